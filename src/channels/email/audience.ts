/**
 * Who an email reaches, as the review post shows it, read without the
 * network: the recipients are the destination itself. Every recipient is
 * labelled to / cc / bcc, shown as it will go out (ASCII domain) with its
 * Unicode form beside it, and marked external when its domain is not
 * EMAIL_FROM's (an exact match: a subdomain counts as external).
 */
import { createHash } from "node:crypto";
import type { ChannelAudience } from "../channel.js";
import { outgoing, showAddress } from "./address.js";
import type { EmailConfig } from "./config.js";
import { recipientsOf, type EmailDestination } from "./destination.js";

const LABEL = { to: "to", cc: "cc", bcc: "bcc (hidden from the others)" } as const;

/** What the audience rules need beside the destination. */
export interface AudienceRules {
  readonly config: EmailConfig;
  /** Whether an approved email already went to this address (ASCII form, lowercased). */
  readonly knownRecipient: (address: string) => boolean;
  readonly nowMs: number;
}

/** Asks the lead's records, counting an error there as "not known" (one more tap, never a silent pass). */
function known(rules: AudienceRules, address: string): boolean {
  try {
    return rules.knownRecipient(address) === true;
  } catch {
    return false;
  }
}

/** The From line as it goes out (ASCII domain), with the Unicode form beside it when that differs. */
export function fromLine(config: EmailConfig): string {
  const address = config.fromName ? `${config.fromName} <${config.from.ascii}>` : config.from.ascii;
  return `From: ${address}${config.from.unicode !== config.from.ascii ? ` (${config.from.unicode})` : ""}`;
}

/**
 * The canonical string of everything an approval binds to: the From line,
 * each recipient list (lowercased ASCII forms, sorted), the subject and the
 * thread it answers. Any change a reviewer would care about changes it.
 */
export function emailFingerprint(config: EmailConfig, d: EmailDestination): string {
  const list = (values: readonly string[]) => values.map((v) => outgoing(v).ascii.toLowerCase()).sort();
  const canonical = JSON.stringify({
    channel: "email",
    from: [config.fromName, config.from.ascii.toLowerCase()],
    to: list(d.to),
    cc: list(d.cc),
    bcc: list(d.bcc),
    subject: d.subject,
    in_reply_to: d.in_reply_to,
    references: d.references,
  });
  return `sha256:${createHash("sha256").update(canonical).digest("hex")}`;
}

/**
 * The audience of an email: its distinct recipients, the lines the post
 * shows, and the reasons for one more tap (more than EMAIL_CONFIRM_OVER
 * recipients; an external address no approved email went to before). The
 * text does not change who reads an email, so it is not read.
 */
export function emailAudience(d: EmailDestination, rules: AudienceRules): ChannelAudience {
  const { config } = rules;
  const recipients = recipientsOf(d).map((r) => ({ ...r, address: outgoing(r.value) }));
  const distinct = new Set(recipients.map((r) => r.address.ascii.toLowerCase()));
  const external = recipients.filter((r) => r.address.domain !== config.from.domain);
  const lines = [
    fromLine(config),
    ...recipients.map((r) => `${LABEL[r.field]}: ${showAddress(r.address)}${r.address.domain !== config.from.domain ? " (external)" : ""}`),
    `Subject: ${d.subject}`,
    ...(d.in_reply_to !== null ? [`answers ${d.in_reply_to}`] : []),
  ];
  const confirmReasons: string[] = [];
  if (distinct.size > config.confirmOver) {
    confirmReasons.push(`${distinct.size} recipients, more than EMAIL_CONFIRM_OVER (${config.confirmOver})`);
  }
  const firstTime = external.filter((r) => !known(rules, r.address.ascii.toLowerCase()));
  if (firstTime.length > 0) {
    const names = firstTime.map((r) => showAddress(r.address)).join(", ");
    confirmReasons.push(`first approved email outside ${config.from.domain} to ${names}`);
  }
  return {
    channel: "email",
    readerCount: distinct.size,
    lines,
    confirmReasons,
    problem: null,
    fingerprint: emailFingerprint(config, d),
    checkedAt: new Date(rules.nowMs).toISOString(),
  };
}
