import { killSwitchLine } from "./status-report.js";
import { ownerHaltPresent, type KillSwitch } from "../send/kill-switch.js";

/** What the review chat is told when the owner's switch changed outside it. */
export interface SwitchNoticeDeps {
  /** HARNESS_DIR/HALT. */
  readonly haltPath: string;
  readonly killSwitch: KillSwitch;
  /** Posts in the review chat (the answer lane). */
  readonly say: (text: string) => Promise<void>;
}

/**
 * Tells the review chat that `draft-review halt` or `resume` changed the
 * owner's switch, as /halt and /resume answer there. The daemon reads the
 * switch itself: a notice whose action the HALT file does not show (a
 * resume while HALT is there) says nothing and answers null, so the API can
 * never make the chat claim a state that is not so.
 */
export async function tellSwitchChanged(deps: SwitchNoticeDeps, action: "halt" | "resume"): Promise<string | null> {
  const present = (await ownerHaltPresent(deps.haltPath)).present;
  if (present !== (action === "halt")) return null;
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
