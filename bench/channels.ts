/**
 * 11. Linear, email and Slack (issue 33): the channel limiter's drains
 * against Slack's posting limit and EMAIL_RATE, and decision -> the channel's
 * call per channel. An in-process core with the daemon's channel clients and
 * channel limiter, the doubles of test/doubles in this process; real time
 * (TELEGRAM_RATE_SCALE 1), so no double's limit needs scaling.
 */
import { channelLatency, type ChannelStages } from "./channel-latency.js";
import { boundRate, emailDrain, keyEfficiency, permittedSpan, slackDrain, type KeyDrain } from "./channel-rate.js";
import { fixed, quantile } from "./support.js";
import { info, judged, skipped, type Row } from "./table.js";

/** Workload sizes, in one place. */
const SLACK_ONE = 60;
const SLACK_SPREAD = { conversations: 6, each: 10 };
const EMAIL = { drafts: 120, ratePerMinute: 60 };
const LATENCY = { samples: 100, warmup: 10 };

function drainFigure(d: KeyDrain): string {
  const done = d.sent === d.drafts ? "" : `, DID NOT FINISH: ${d.sent}/${d.drafts} sent`;
  return `${fixed(keyEfficiency(d))} (${fixed(d.spanMs / 1000, 1)} s vs ${fixed(d.permittedSpanMs / 1000, 1)} s permitted${done})`;
}

async function slackRows(): Promise<Row[]> {
  const one = await slackDrain(1, SLACK_ONE);
  const d = one.drains[0]!;
  const rows = [
    judged(
      "11",
      `Slack: ${SLACK_ONE} approved drafts to 1 conversation (double: 1 a second, 429 beyond)`,
      `${drainFigure(d)} of 1/s, ${one.tooManyRequests} x 429`,
      "≥ 0.95, 0 x 429",
      keyEfficiency(d) >= 0.95 && one.tooManyRequests === 0,
    ),
  ];
  const { conversations, each } = SLACK_SPREAD;
  const spread = await slackDrain(conversations, each);
  const worst = Math.min(...spread.drains.map(keyEfficiency));
  const each6 = spread.drains.map((x) => fixed(keyEfficiency(x))).join(" ");
  rows.push(
    judged(
      "11",
      `Slack: ${conversations * each} drafts to ${conversations} conversations (${each} each), interleaved`,
      `each of 1/s: ${each6} (worst ${fixed(worst)}), ${spread.tooManyRequests} x 429`,
      "each ≥ 0.95, 0 x 429",
      worst >= 0.95 && spread.tooManyRequests === 0,
    ),
  );
  return rows;
}

/**
 * Email, three ways: the first EMAIL_RATE drafts (what fits one sliding
 * window: none may be held back), the rate once the window binds (the
 * limiter's own share), and the whole drain against a sender with no latency
 * (the SMTP dialogue of each message, one at a time, included).
 */
async function emailRows(): Promise<Row[]> {
  const { drafts, ratePerMinute } = EMAIL;
  const at = await emailDrain(drafts, ratePerMinute);
  if (at.length < drafts)
    return [skipped("11", `email: ${drafts} drafts at EMAIL_RATE=${ratePerMinute}`, `DID NOT FINISH: ${at.length}/${drafts} sent`)];
  const firstMs = at[ratePerMinute - 1]! - at[0]!;
  const firstRate = (ratePerMinute - 1) / (firstMs / 60_000) / ratePerMinute;
  const bound = boundRate(at, ratePerMinute, 60_000);
  const whole: KeyDrain = {
    key: "email",
    sent: at.length,
    drafts,
    spanMs: at.at(-1)! - at[0]!,
    permittedSpanMs: permittedSpan(drafts, ratePerMinute, 60_000),
  };
  return [
    judged(
      "11",
      `email: the first ${ratePerMinute} approved drafts at EMAIL_RATE=${ratePerMinute} (one window: none held back)`,
      `${fixed(firstMs / 1000, 2)} s first to last = ${fixed(firstRate, 1)} x the rate (one SMTP dialogue at a time)`,
      "≥ 0.95 of the rate",
      firstRate >= 0.95,
    ),
    judged(
      "11",
      `email: drafts ${ratePerMinute + 1}-${drafts}, the window bound: each send's minute, the ${ratePerMinute} before it included`,
      `lowest ${fixed(bound, 3)} of ${ratePerMinute} a minute`,
      "≥ 0.95 of the rate",
      bound >= 0.95,
    ),
    info(
      "11",
      `  all ${drafts}, first to last, vs a sender with no latency (SMTP dialogues included; the double greets after 100 ms)`,
      drainFigure(whole),
    ),
  ];
}

function p(ms: readonly number[], q: number): string {
  return fixed(quantile(ms, q), 1);
}

/**
 * The judged figure: decision -> the call at the double, minus the service's
 * own time on the way (per sample). Email's call is a dialogue of seven
 * exchanges, the server's time throughout: it is judged at the dialogue's
 * start (the client's send()), the whole dialogue shown beside it.
 */
function latencyRows(l: (typeof LATENCY_OF)[number], s: ChannelStages): Row[] {
  const judgedMs = l.channel === "email" ? s.call : s.total.map((t, i) => t - s.service[i]!);
  const service = l.channel === "email" ? "" : `; service's time p99 ${p(s.service, 0.99)} ms`;
  const figure = `p50 ${p(judgedMs, 0.5)} ms, p99 ${p(judgedMs, 0.99)} ms (n=${judgedMs.length}${service})`;
  const rows = [judged("11", `decide() -> ${l.what}`, figure, "p99 ≤ 20 ms", quantile(judgedMs, 0.99) <= 20)];
  if (l.channel === "email") {
    const dialogue = s.total.map((t, i) => t - s.call[i]!);
    rows.push(
      info(
        "11",
        "  email: send() -> the email in full at the double (the SMTP dialogue)",
        `p50 ${p(dialogue, 0.5)} ms, p99 ${p(dialogue, 0.99)} ms`,
      ),
    );
  } else {
    rows.push(
      info(
        "11",
        `  ${l.name}: of which until the channel client's send() is called`,
        `p50 ${p(s.call, 0.5)} ms, p99 ${p(s.call, 0.99)} ms`,
      ),
    );
  }
  return rows;
}

const LATENCY_OF = [
  { channel: "linear", name: "Linear", what: "Linear commentCreate at the double, beyond the audience re-read's queries" },
  { channel: "slack", name: "Slack", what: "Slack chat.postMessage at the double, beyond the audience re-read's calls" },
  { channel: "email", name: "email", what: "the SMTP dialogue starts (the email client's send())" },
] as const;

/** The section: Slack and email drains, then the three latencies; a failed part is a SKIP row, the rest still run. */
export async function channelsSection(): Promise<Row[]> {
  const rows: Row[] = [info("11", "channels: in-process core, the daemon's channel clients and limiter, doubles; real time", "")];
  const parts: Array<[string, () => Promise<Row[]>]> = [
    ["Slack drains", slackRows],
    ["email drain", emailRows],
    ...LATENCY_OF.map((l): [string, () => Promise<Row[]>] => [
      `${l.name} latency`,
      async () => latencyRows(l, await channelLatency(l.channel, LATENCY.samples, LATENCY.warmup)),
    ]),
  ];
  for (const [what, run] of parts) {
    try {
      rows.push(...(await run()));
    } catch (err) {
      rows.push(skipped("11", what, `failed: ${(err as Error).message.split("\n")[0]}`));
    }
  }
  return rows;
}
