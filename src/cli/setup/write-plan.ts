/** What setup does with the ids it found: write `.env`, ask first, or only print them. */
export type WritePlan =
  | { readonly kind: "write" }
  | { readonly kind: "ask"; readonly question: string; readonly defaultYes: boolean }
  | { readonly kind: "unchanged" }
  | { readonly kind: "skip"; readonly reason: string };

/** What the decision depends on. */
export interface WritePlanInputs {
  /** The values `.env` holds now (absent: not set there). */
  readonly existing: Readonly<Record<string, string | undefined>>;
  readonly proposed: Readonly<Record<string, string>>;
  /** --yes */
  readonly yes: boolean;
  /** --no-write */
  readonly noWrite: boolean;
  /** Whether stdin is a terminal (a person can answer). */
  readonly interactive: boolean;
  readonly envPath: string;
}

/**
 * Decides whether setup writes `.env`. --no-write only prints; values already
 * there change nothing; --yes writes; without a terminal nothing is written
 * (a script must say --yes); otherwise the person is asked: y/N when an
 * existing value would be overwritten, Y/n when only adding. Pure.
 */
export function planEnvWrite(inputs: WritePlanInputs): WritePlan {
  if (inputs.noWrite) return { kind: "skip", reason: "--no-write: .env is left as it is; add the lines above yourself." };
  const changes = Object.entries(inputs.proposed).filter(([name, value]) => inputs.existing[name] !== value);
  if (changes.length === 0) return { kind: "unchanged" };
  if (inputs.yes) return { kind: "write" };
  if (!inputs.interactive) {
    return {
      kind: "skip",
      reason: `stdin is not a terminal, so .env is left as it is: run setup again with --yes to write it, or add the lines above to ${inputs.envPath} yourself.`,
    };
  }
  // An empty assignment (`REVIEW_CHAT_ID=`, as .env.example has it) is filled in, not overwritten.
  const overwrites = changes.filter(([name]) => (inputs.existing[name] ?? "") !== "");
  if (overwrites.length === 0) return { kind: "ask", question: `Write these to ${inputs.envPath}? [Y/n] `, defaultYes: true };
  const replaced = overwrites.map(([name]) => `${name}=${inputs.existing[name]}`).join(", ");
  return { kind: "ask", question: `${inputs.envPath} already has ${replaced}. Overwrite? [y/N] `, defaultYes: false };
}

/** Reads a y/n answer; empty means the default. */
export function isYes(answer: string, defaultYes: boolean): boolean {
  const a = answer.trim().toLowerCase();
  if (a === "") return defaultYes;
  return a === "y" || a === "yes";
}

/**
 * The REVIEWER_USER_IDS to propose: the existing list when it already names
 * this user (other reviewers are kept), otherwise this user alone.
 */
export function proposedReviewers(existing: string | undefined, userId: number): string {
  const ids = (existing ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return ids.includes(String(userId)) ? ids.join(",") : String(userId);
}
