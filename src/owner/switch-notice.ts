import { killSwitchLine } from "./status-report.js";
import { ownerHaltPresent, type KillSwitch } from "../send/kill-switch.js";
import { readHaltRecord } from "../send/halt-record.js";

/** How recent a change of the halt record must be for the CLI's notice of it (the CLI posts right after it). */
const NOTICE_WINDOW_MS = 60_000;

/** What the review chat is told when the owner's switch changed outside it. */
export interface SwitchNoticeDeps {
  /** HARNESS_DIR/HALT. */
  readonly haltPath: string;
  readonly killSwitch: KillSwitch;
  /** Posts in the review chat (the answer lane). */
  readonly say: (text: string) => Promise<void>;
  /** HARNESS_DIR/halt_record.json: when the last halt began and ended. */
  readonly recordPath: string;
  readonly now: () => number;
  /** The record changes told already (one notice per change, however often the API is called). */
  readonly told: Set<string>;
}

/**
 * The change of the halt record the notice is about: a halt that began, or one that ended, within the
 * last minute and not told yet. Null otherwise: the API token is the swarm's, and a caller must not be
 * able to make the chat announce a change that did not just happen, nor announce one twice.
 */
async function freshChange(deps: SwitchNoticeDeps, action: "halt" | "resume"): Promise<string | null> {
  const read = await readHaltRecord(deps.recordPath);
  if (read.kind !== "record") return null;
  const at = action === "halt" ? (read.record.ended_at === null ? read.record.began_at : null) : read.record.ended_at;
  if (at === null || deps.now() - Date.parse(at) > NOTICE_WINDOW_MS) return null;
  const key = `${action}:${at}`;
  return deps.told.has(key) ? null : key;
}

/**
 * Tells the review chat that `draft-review halt` or `resume` changed the
 * owner's switch, as /halt and /resume answer there. The daemon reads the
 * switch itself: a notice whose action the HALT file does not show (a
 * resume while HALT is there), or that the halt record does not show as a
 * change of the last minute not told yet, says nothing and answers null, so
 * the API can never make the chat claim a state that is not so.
 */
export async function tellSwitchChanged(deps: SwitchNoticeDeps, action: "halt" | "resume"): Promise<string | null> {
  const present = (await ownerHaltPresent(deps.haltPath)).present;
  if (present !== (action === "halt")) return null;
  const change = await freshChange(deps, action);
  if (change === null) return null;
  deps.told.add(change);
  let text: string;
  if (action === "halt") {
    text = "⛔ Sends halted from the command line (`draft-review halt`). Nothing goes out until /resume or `draft-review resume`.";
  } else {
    const state = await deps.killSwitch.check();
    const head = "The owner's halt was lifted from the command line (`draft-review resume`).";
    text = state.halted
      ? `${head} Sends are still halted: ${state.reason}.`
      : `${head} ${killSwitchLine(state)}. Drafts halted meanwhile need a new 👍: /pending lists them.`;
  }
  await deps.say(text);
  return text;
}
