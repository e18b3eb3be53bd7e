import { readEnvFile, setEnvValues, writeEnvFile } from "./env-file.js";
import { type ChannelProof, describeProof, proveChannel, SETUP_CHANNELS, type SetupChannel } from "./channel-proof.js";
import { isYes } from "./write-plan.js";

/** What the channels step needs of the setup session. */
export interface ChannelStepTalk {
  /** Progress for a person. */
  say(text: string): void;
  /** Asks one question and resolves with the line typed ("" at the end of input). */
  ask(question: string): Promise<string>;
  /** The same, typed without echo on a terminal (a secret). */
  askHidden(question: string): Promise<string>;
  /** A person can answer (stdin is a terminal). */
  readonly interactive: boolean;
  /** --yes: write without asking. */
  readonly yes: boolean;
  /** --no-write: only print. */
  readonly noWrite: boolean;
  /** The process environment (it wins over .env, as for the daemon). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly envPath: string;
}

/** What became of one channel, for `--json`. */
export interface ChannelStepOutcome {
  readonly channel: string;
  /** Its variables are set (in the environment, .env, or as just typed). */
  readonly configured: boolean;
  /** Who the daemon speaks as there; null when it was not proven. */
  readonly speaks_as: string | null;
  /** The service refused the credentials: the daemon would halt the channel. */
  readonly credentials_refused: boolean;
  /** What is wrong, in words; null when nothing is. */
  readonly problem: string | null;
  readonly written: boolean;
}

/** How often refused or wrong values are asked again before the channel is skipped. */
const ASK_AGAIN = 2;

/**
 * Setup's channels step (contract v5: "`draft-review setup` asks for each
 * channel and proves it the same way"): a channel already configured is
 * proven as the daemon proves it at start; on a terminal, one that is not
 * (or whose credentials are refused or wrong) is asked for (Enter skips),
 * proven, and written to .env after asking, as the ids are. Without a
 * terminal nothing is asked.
 */
export async function channelsStep(t: ChannelStepTalk): Promise<ChannelStepOutcome[]> {
  const file = await readEnvFile(t.envPath);
  const env = { ...file.values, ...definedOnly(t.env) };
  if (t.interactive)
    t.say(
      "\nOther channels (optional): approved drafts can also go out as Linear comments, emails and Slack messages; the review stays here in Telegram.",
    );
  const outcomes: ChannelStepOutcome[] = [];
  for (const channel of SETUP_CHANNELS) outcomes.push(await oneChannel(t, channel, env));
  const skipped = outcomes.filter((o) => !o.configured).map((o) => o.channel);
  if (!t.interactive && skipped.length > 0)
    t.say(`Channels not configured: ${skipped.join(", ")} (optional; run setup on a terminal to add them, or see the README).`);
  return outcomes;
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1].trim() !== ""));
}

/** Proves what is configured; asks on a terminal when nothing is, or what is there is refused or wrong. */
async function oneChannel(t: ChannelStepTalk, channel: SetupChannel, env: Record<string, string>): Promise<ChannelStepOutcome> {
  const proof = await proveChannel(channel, env);
  if (proof.kind !== "absent") t.say(describeProof(channel, proof));
  const fixable = proof.kind === "invalid" || (proof.kind === "asked" && !proof.identity.ok && proof.identity.credentialsRefused);
  if (!t.interactive || (proof.kind !== "absent" && !fixable)) return outcome(channel, proof, false);
  return askChannel(t, channel, env, proof);
}

/** Asks for the channel's values until they are proven (or skipped, or asked ASK_AGAIN times more). */
async function askChannel(
  t: ChannelStepTalk,
  channel: SetupChannel,
  env: Record<string, string>,
  before: ChannelProof,
): Promise<ChannelStepOutcome> {
  t.say(channel.where);
  for (let attempt = 0; attempt <= ASK_AGAIN; attempt++) {
    const typed = await askValues(t, channel);
    if (typed === null) {
      t.say(before.kind === "absent" ? `  ${channel.title} skipped.` : `  ${channel.title} left as it is.`);
      return outcome(channel, before, false);
    }
    const proof = await proveChannel(channel, { ...env, ...typed });
    t.say(`  ${describeProof(channel, proof)}`);
    if (proof.kind !== "asked") continue;
    const id = proof.identity;
    if (id.ok || !id.credentialsRefused) return outcome(channel, proof, await offerWrite(t, channel, typed, id.ok));
  }
  t.say(`  ${channel.title} skipped; set ${channel.asks.map((a) => a.variable).join(" and ")} in ${t.envPath} yourself.`);
  return outcome(channel, before, false);
}

/** The channel's answers, or null when the first is empty (skip). */
async function askValues(t: ChannelStepTalk, channel: SetupChannel): Promise<Record<string, string> | null> {
  const typed: Record<string, string> = {};
  for (const [i, a] of channel.asks.entries()) {
    const answer = (await (a.hidden ? t.askHidden(a.question) : t.ask(a.question))).trim();
    if (answer === "" && i === 0) return null;
    if (answer !== "") typed[a.variable] = answer;
  }
  return typed;
}

/**
 * Writes the typed values to .env (mode 0600: they are secrets), after asking
 * on a terminal: Y/n for a proven channel, y/N for one that could not be
 * reached. The values are never printed back.
 */
async function offerWrite(t: ChannelStepTalk, channel: SetupChannel, typed: Record<string, string>, proven: boolean): Promise<boolean> {
  const names = Object.keys(typed).join(" and ");
  if (t.noWrite) {
    t.say(
      `  --no-write: ${t.envPath} is left as it is; add ${names} (as you typed ${Object.keys(typed).length === 1 ? "it" : "them"}) yourself.`,
    );
    return false;
  }
  if (!t.yes) {
    const question = proven
      ? `  Write ${names} to ${t.envPath}? [Y/n] `
      : `  ${channel.title} was not reached; write ${names} to ${t.envPath} anyway? [y/N] `;
    if (!isYes(await t.ask(question), proven)) {
      t.say(`  ${t.envPath} left as it is for ${channel.title}.`);
      return false;
    }
  }
  const file = await readEnvFile(t.envPath);
  await writeEnvFile(t.envPath, setEnvValues(file.text, typed));
  t.say(`  ✓ Wrote ${names} to ${t.envPath} (mode 0600); the daemon proves ${channel.title} again at its next start.`);
  for (const name of Object.keys(typed))
    if ((t.env[name]?.trim() ?? "") !== "" && t.env[name]?.trim() !== typed[name])
      t.say(`  Note: ${name} is also set in the environment, which wins over .env: unset it there.`);
  return true;
}

function outcome(channel: SetupChannel, proof: ChannelProof, written: boolean): ChannelStepOutcome {
  const base = { channel: channel.name, configured: proof.kind !== "absent", written };
  if (proof.kind === "absent") return { ...base, speaks_as: null, credentials_refused: false, problem: null };
  if (proof.kind === "invalid") return { ...base, speaks_as: null, credentials_refused: false, problem: proof.problems.join("; ") };
  const id = proof.identity;
  if (id.ok) return { ...base, speaks_as: id.speaksAs, credentials_refused: false, problem: null };
  return { ...base, speaks_as: null, credentials_refused: id.credentialsRefused, problem: id.reason };
}
