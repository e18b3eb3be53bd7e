import { auditEntrySchema, RESERVED_FIELDS, type AuditEntry } from "./audit-schema.js";

/** An audit entry checked against the schema and serialised, ready for the log to put its envelope around. */
export interface Encoded {
  /** The entry's JSON. */
  readonly json: string;
  readonly entry: AuditEntry;
}

/** Validates (against the audit schema) and serialises one entry; throws a TypeError (a caller's bug) for a bad one. */
export function encodeEntry(entry: AuditEntry): Encoded {
  for (const key of RESERVED_FIELDS) {
    if (Object.hasOwn(entry, key)) throw new TypeError(`an audit entry cannot set "${key}": the audit log writes it`);
  }
  const checked = auditEntrySchema.safeParse(entry);
  if (!checked.success) {
    throw new TypeError(
      `an audit entry of kind "${String((entry as { kind?: unknown }).kind)}" does not match the audit schema (src/audit/audit-schema.ts): ${checked.error.message}`,
    );
  }
  const json = JSON.stringify(entry);
  if (json === undefined || json[0] !== "{") throw new TypeError("an audit entry must be a JSON object");
  return { json, entry: checked.data };
}
