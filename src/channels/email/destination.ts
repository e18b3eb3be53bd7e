/**
 * The payload's `destination` object for an email (contract v5): who it goes
 * to, the subject, and the Message-IDs it answers. Everything that ends up in
 * a header is checked here, at intake, so that nothing the review post did
 * not show can reach the wire: no CR/LF (header injection), no invisible
 * direction or zero-width characters, no display names, no address twice.
 */
import { z } from "zod";
import { outgoing, readAddress, unsafeCharacterProblem } from "./address.js";

/** At most this many recipients in to, cc and bcc together. */
export const MAX_RECIPIENTS = 100;
/** At most this many Message-IDs in `references`. */
export const MAX_REFERENCES = 50;
/** RFC 5322's line limit: a subject longer than this cannot be one header line. */
export const MAX_SUBJECT = 998;

const MESSAGE_ID = /^<[^<>@\s]+@[^<>@\s]+>$/;

const address = z.string({ error: "must be an address written as a string, like anna@example.org" }).superRefine((value, ctx) => {
  const read = readAddress(value);
  if (!read.ok) ctx.addIssue({ code: "custom", message: read.problem });
});

function addressList(field: string) {
  return z.array(address, { error: `${field} must be a list of addresses, like ["anna@example.org"]` });
}

const messageId = z.string({ error: 'must be a Message-ID written as a string, like "<abc@example.org>"' }).superRefine((value, ctx) => {
  const unsafe = unsafeCharacterProblem(value);
  if (unsafe) ctx.addIssue({ code: "custom", message: unsafe });
  else if (value.length > 250 || !MESSAGE_ID.test(value)) {
    ctx.addIssue({ code: "custom", message: `must be one Message-ID in angle brackets, like <abc@example.org> (got ${value})` });
  }
});

/**
 * The subject, checked as given (a CR or LF anywhere is refused, never trimmed away), then without
 * the spaces at its ends: mail clients drop those, so the post shows the subject as it will read.
 */
const subject = z
  .string({ error: "subject is required: a line of text" })
  .superRefine((value, ctx) => {
    const unsafe = unsafeCharacterProblem(value);
    if (unsafe) ctx.addIssue({ code: "custom", message: unsafe });
    else if (value.trim() === "") ctx.addIssue({ code: "custom", message: "subject must not be empty" });
    else if (value.length > MAX_SUBJECT) {
      ctx.addIssue({ code: "custom", message: `subject is ${value.length} characters; at most ${MAX_SUBJECT}` });
    }
  })
  .transform((value) => value.replace(/^ +| +$/g, ""));

const FIELDS = ["channel", "to", "cc", "bcc", "subject", "in_reply_to", "references"];

/**
 * The `destination` object of an email draft. `cc` and `bcc` default to [],
 * `in_reply_to` to null and `references` to []. Unknown fields are refused
 * by name.
 */
export const emailDestinationSchema = z
  .strictObject(
    {
      channel: z.literal("email", { error: 'channel must be "email"' }),
      to: addressList("to").min(1, { error: "to needs at least one address" }),
      cc: addressList("cc").default([]),
      bcc: addressList("bcc").default([]),
      subject,
      in_reply_to: messageId.nullable().default(null),
      references: z
        .array(messageId, { error: 'references must be a list of Message-IDs, like ["<abc@example.org>"]' })
        .max(MAX_REFERENCES, { error: `references holds at most ${MAX_REFERENCES} Message-IDs` })
        .default([]),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown field ${iss.keys.join(", ")}; an email destination has ${FIELDS.join(", ")}`
          : undefined,
    },
  )
  .superRefine((d, ctx) => {
    const total = d.to.length + d.cc.length + d.bcc.length;
    if (total > MAX_RECIPIENTS) {
      ctx.addIssue({
        code: "custom",
        path: ["to"],
        message: `at most ${MAX_RECIPIENTS} recipients in to, cc and bcc together (got ${total})`,
      });
    }
    const seen = new Map<string, string>();
    for (const field of ["to", "cc", "bcc"] as const) {
      d[field].forEach((value, i) => {
        const key = outgoing(value).ascii.toLowerCase();
        const first = seen.get(key);
        if (first !== undefined) {
          ctx.addIssue({ code: "custom", path: [field, i], message: `${value} is already a recipient (${first}); name each address once` });
        } else seen.set(key, `${field}[${i}]`);
      });
    }
  });

/** An email destination as the schema returns it (defaults filled in). */
export type EmailDestination = z.output<typeof emailDestinationSchema>;

/** Every recipient of an email with its label, in the order to, cc, bcc. */
export function recipientsOf(d: EmailDestination): { readonly field: "to" | "cc" | "bcc"; readonly value: string }[] {
  return [
    ...d.to.map((value) => ({ field: "to" as const, value })),
    ...d.cc.map((value) => ({ field: "cc" as const, value })),
    ...d.bcc.map((value) => ({ field: "bcc" as const, value })),
  ];
}

/**
 * Every recipient (to, cc, bcc) in the form `knownRecipient` is asked with:
 * the ASCII (xn--) form, lowercased. The lead records these for an approved
 * email, so that the next email to the same address asks no extra tap.
 */
export function emailRecipientKeys(d: EmailDestination): string[] {
  return recipientsOf(d).map((r) => outgoing(r.value).ascii.toLowerCase());
}

/** A one-line label of where an email goes, for lists and notices: "email to anna@example.org +2". */
export function describeEmailDestination(d: EmailDestination): string {
  const others = d.to.length + d.cc.length + d.bcc.length - 1;
  return `email to ${d.to[0] ?? "nobody"}${others > 0 ? ` +${others}` : ""}`;
}

/** The longest email text this channel sends, in characters (contract v5: email 100,000). */
export const EMAIL_MAX_LENGTH = 100_000;
