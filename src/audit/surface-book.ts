import type { AuditEntry, SurfaceState } from "./audit-schema.js";

/** How many /resume confirmations are remembered (older ones count for nothing: a tap on them is refused). */
export const RESUME_SURFACES_KEPT = 4;

/**
 * The decision surfaces the audit log records (see src/desk/surfaces.ts), by
 * message id: what each showed, and whether a one-time one was used. Part of
 * the audit index, so it is rebuilt from the checkpoint and the lines after
 * it; its size follows the live drafts (a draft's surfaces go with it when it
 * is archived) plus a few /resume confirmations.
 */
export class SurfaceBook {
  private readonly byMessage = new Map<number, SurfaceState>();

  /** Takes a `surface`, `surface_used` or (older logs) `edit_prompt` line into account; other kinds are ignored. */
  note(entry: AuditEntry): void {
    if (entry.kind === "surface") {
      const { kind: _, ...fields } = entry;
      this.set({ ...fields, used: false });
    } else if (entry.kind === "surface_used") {
      const known = this.byMessage.get(entry.message_id);
      if (known && known.chat_id === entry.chat_id) this.byMessage.set(entry.message_id, { ...known, used: true });
    } else if (entry.kind === "edit_prompt" && !this.byMessage.has(entry.message_id)) {
      // An edit prompt written before surfaces existed: it showed a version, and no audience.
      this.set({
        chat_id: "",
        message_id: entry.message_id,
        asks: "edit",
        draft_id: entry.draft_id,
        text_version: entry.text_version,
        audience: null,
        identity: "bot",
        used: false,
      });
    }
  }

  /** The surface at this message (in `chatId`; an older edit prompt's chat is not recorded). */
  at(chatId: string, messageId: number): SurfaceState | undefined {
    const s = this.byMessage.get(messageId);
    return s && (s.chat_id === chatId || s.chat_id === "") ? s : undefined;
  }

  /** The surface at this message, whatever its chat. */
  byMessageId(messageId: number): SurfaceState | undefined {
    return this.byMessage.get(messageId);
  }

  /** Every surface (for the checkpoint and the desk's message index). */
  all(): IterableIterator<SurfaceState> {
    return this.byMessage.values();
  }

  /** Forgets the surfaces of drafts the store no longer holds. */
  retain(keep: (draftId: string) => boolean): void {
    for (const [m, s] of this.byMessage) if (s.draft_id !== null && !keep(s.draft_id)) this.byMessage.delete(m);
  }

  /** Restores surfaces from a checkpoint. */
  restore(states: readonly SurfaceState[]): void {
    for (const s of states) this.set(s);
  }

  private set(s: SurfaceState): void {
    this.byMessage.delete(s.message_id);
    this.byMessage.set(s.message_id, s);
    if (s.asks !== "resume") return;
    const resumes = [...this.byMessage.values()].filter((x) => x.asks === "resume");
    for (const old of resumes.slice(0, Math.max(0, resumes.length - RESUME_SURFACES_KEPT))) this.byMessage.delete(old.message_id);
  }
}
