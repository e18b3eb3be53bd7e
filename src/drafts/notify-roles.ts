import { ROLES, type Role } from "./record.js";

/**
 * Who hears about a draft's event: the role that drafted it, first, and the
 * role a revision note addresses. A note addresses a role when it starts with
 * that role's name and a colon (`Margot: check the Q2 numbers`); case and
 * spaces before the colon are forgiven, a name inside the text is not.
 * Pure: the feed and the review chat's answer use the same list.
 */
export function notifyRoles(draftedBy: Role, note: string | null): Role[] {
  const addressed = addressedRole(note);
  return addressed === null || addressed === draftedBy ? [draftedBy] : [draftedBy, addressed];
}

/** The role a note starts with (`Name:`), or null. */
export function addressedRole(note: string | null): Role | null {
  if (note === null) return null;
  const m = /^\s*([A-Za-z]+)\s*:/.exec(note);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  return ROLES.find((r) => r.toLowerCase() === name) ?? null;
}
