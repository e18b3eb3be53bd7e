import { readEnvFile, setEnvValues, writeEnvFile } from "./env-file.js";
import { mergeAllowList, piiAllowProblem, readGivenList } from "./own-details.js";
import { isYes } from "./write-plan.js";

/** What the PII_ALLOW step needs of the setup session. */
export interface PiiStepTalk {
  /** Progress for a person. */
  say(text: string): void;
  /** Asks one question and resolves with the line typed ("" at the end of input). */
  ask(question: string): Promise<string>;
  /** A person can answer (stdin is a terminal). */
  readonly interactive: boolean;
  /** --yes: write without asking. */
  readonly yes: boolean;
  /** --no-write: only print. */
  readonly noWrite: boolean;
  /** --pii-allow: the values given on the command line (null: none; then a terminal is asked). */
  readonly given: string | null;
  /** PII_ALLOW in the process environment (it wins over .env). */
  readonly envValue: string | undefined;
  readonly envPath: string;
}

/** What became of PII_ALLOW: how many values were added, and whether .env was written. */
export interface PiiStepOutcome {
  readonly added: number;
  readonly written: boolean;
}

/** How often a list with a value that is no phone number (or no address) is asked again. */
const ASK_AGAIN = 2;

/**
 * Setup's PII_ALLOW step (contract v4, "His own details, one tap"): asks for
 * the owner's own phone numbers and email addresses (or takes `--pii-allow`),
 * checks each, merges them with the PII_ALLOW that `.env` has (no value twice,
 * in any notation) and writes it after asking, as for the ids. An empty
 * answer skips; without a terminal and without `--pii-allow` nothing is asked.
 * A value that is not valid on the command line is refused (the caller exits 1).
 */
export async function piiAllowStep(t: PiiStepTalk): Promise<PiiStepOutcome | { readonly refused: string }> {
  const none = { added: 0, written: false };
  let values: string[];
  if (t.given !== null) {
    const problem = piiAllowProblem(t.given);
    if (problem !== null) return { refused: problem };
    values = [...readGivenList(t.given).values];
  } else if (t.interactive) {
    t.say("\nYour own details stay in drafts (PII_ALLOW); redaction removes every other phone number and email address.");
    values = [
      ...(await askList(t, "Your phone numbers, with country code (e.g. +61 412 345 678), comma-separated; Enter skips: ", "phone")),
      ...(await askList(t, "Your email addresses, comma-separated; Enter skips: ", "email")),
    ];
  } else {
    t.say(
      `PII_ALLOW: not asked (stdin is not a terminal). Your own phone numbers and email addresses are redacted from drafts until you add them: run setup on a terminal, or with --pii-allow "+61 412 345 678,you@example.com", or add PII_ALLOW=… to ${t.envPath} yourself.`,
    );
    return none;
  }
  if (values.length === 0) return none;
  return writeMerged(t, values);
}

/**
 * One question, asked again (twice at most) while the answer holds a value that is neither a phone number nor
 * an email address; "" skips. Either kind counts in either answer: an email address typed beside a number on
 * the phone line is taken too, not asked for again.
 */
async function askList(t: PiiStepTalk, question: string, kind: "phone" | "email"): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    const answer = readGivenList(await t.ask(question));
    if (answer.invalid.length === 0) return [...answer.values];
    const what = kind === "phone" ? "a phone number (7 to 15 digits, + and spaces allowed)" : "an email address";
    t.say(`  Not ${what}: ${answer.invalid.map((v) => `"${v}"`).join(", ")}.`);
    if (attempt === ASK_AGAIN) {
      t.say(`  Skipped; add ${kind === "phone" ? "phone numbers" : "email addresses"} to PII_ALLOW in ${t.envPath} yourself.`);
      return [];
    }
  }
}

async function writeMerged(t: PiiStepTalk, values: readonly string[]): Promise<PiiStepOutcome> {
  const file = await readEnvFile(t.envPath);
  const merged = mergeAllowList(file.values.PII_ALLOW, values);
  if (merged.added.length === 0) {
    t.say(`✓ PII_ALLOW in ${t.envPath} already has ${values.length === 1 ? "it" : "them"}.`);
    return { added: 0, written: false };
  }
  const line = `PII_ALLOW=${merged.value}`;
  if (t.noWrite) {
    t.say(`--no-write: add this line to ${t.envPath} yourself:\n  ${line}`);
    return { added: merged.added.length, written: false };
  }
  if (!t.yes) {
    const asked = t.interactive ? await t.ask(`Write ${line} to ${t.envPath}? [Y/n] `) : "n";
    if (!isYes(asked, t.interactive)) {
      t.say(`PII_ALLOW left as it is; to add them later, put this line in ${t.envPath}:\n  ${line}`);
      return { added: merged.added.length, written: false };
    }
  }
  await writeEnvFile(t.envPath, setEnvValues(file.text, { PII_ALLOW: merged.value }));
  t.say(`✓ Wrote ${line} to ${t.envPath}; the daemon reads it at its next start.`);
  const seen = t.envValue?.trim();
  if (seen && seen !== merged.value)
    t.say(`  Note: PII_ALLOW=${seen} is also set in the environment, which wins over .env: unset it there.`);
  return { added: merged.added.length, written: true };
}
