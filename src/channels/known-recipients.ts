import type { DraftRecord } from "../drafts/record.js";
import { outgoing } from "./email/address.js";

/**
 * Whether an approved email went to `address` before (contract v5: an
 * address outside EMAIL_FROM's domain that no approved email went to asks
 * for the extra tap), read from the daemon's own records: the sent email
 * drafts it holds. A draft archived since is no longer counted, so an old
 * correspondent may ask for the tap again (fails closed). `address` is the
 * ASCII form, lowercased, as the email channel asks.
 */
export function sentEmailTo(drafts: () => Iterable<DraftRecord>): (address: string) => boolean {
  return (address) => {
    for (const d of drafts()) {
      if (d.status !== "sent" || d.destination?.channel !== "email") continue;
      for (const field of ["to", "cc", "bcc"] as const) {
        const list = d.destination[field];
        if (Array.isArray(list) && list.some((a) => outgoing(String(a)).ascii.toLowerCase() === address)) return true;
      }
    }
    return false;
  };
}

/**
 * When the send that carries `reference` began, from the daemon's records (the
 * `sending` line's time): Slack's lookup after a crash reads the conversation
 * from a little before then, not a whole week back. Null when no draft is
 * sending with it.
 */
export function sendStartedAt(drafts: () => Iterable<DraftRecord>): (reference: string) => number | null {
  return (reference) => {
    for (const d of drafts()) if (d.send_reference === reference && d.status === "sending") return Date.parse(d.updated_at);
    return null;
  };
}
