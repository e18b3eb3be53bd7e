/**
 * The SMTP double's fault plan: what it will answer, drop or hold next. The
 * double asks it at each command; tests and the lead's end-to-end tests set
 * it through the double's hooks (see email-double.ts).
 */

/** A command the double can be told to fail. */
export type FaultCommand = "MAIL" | "RCPT" | "DATA";
/** An SMTP answer: its code and its text. */
export type Answer = { readonly code: number; readonly text: string };

/** An answer as smtp-server takes it from a handler: an Error with a responseCode. */
export function smtpError(answer: Answer): Error {
  return Object.assign(new Error(answer.text), { responseCode: answer.code });
}

/** A held answer: `arrived` when the message is in, `release` lets the answer go. */
interface Hold {
  readonly released: Promise<void>;
  readonly arrived: () => void;
  readonly release: () => void;
}

/** Makes a promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

/** What the double will do instead of answering normally. */
export class FaultPlan {
  private readonly refusedRecipients = new Map<string, Answer>();
  private readonly next = new Map<FaultCommand, Answer[]>();
  private readonly drops = new Set<"MAIL" | "RCPT">();
  private readonly greetings: Promise<void>[] = [];
  private readonly holds: Hold[] = [];
  /** Every gate ever made, opened at close so that nothing waits for good. */
  private readonly everyGate: (() => void)[] = [];
  private authRefusal: Answer | null = null;
  private dropsAfterData = 0;

  refuseRecipient(address: string, answer: Answer): void {
    this.refusedRecipients.set(address.toLowerCase(), answer);
  }

  failNext(command: FaultCommand, answer: Answer): void {
    this.next.set(command, [...(this.next.get(command) ?? []), answer]);
  }

  /** The answer for this command now, if any (a lasting recipient refusal first, then a one-shot one). */
  take(command: FaultCommand, recipient?: string): Answer | undefined {
    const lasting = recipient === undefined ? undefined : this.refusedRecipients.get(recipient.toLowerCase());
    return lasting ?? this.next.get(command)?.shift();
  }

  refuseAuth(answer: Answer): void {
    this.authRefusal = answer;
  }

  authAnswer(): Answer | null {
    return this.authRefusal;
  }

  dropNext(command: "MAIL" | "RCPT"): void {
    this.drops.add(command);
  }

  /** Whether this command is to be dropped (once). */
  takeDrop(command: "MAIL" | "RCPT"): boolean {
    return this.drops.delete(command);
  }

  holdNextGreeting(): { release(): void } {
    const g = gate();
    this.greetings.push(g.promise);
    this.everyGate.push(g.open);
    return { release: g.open };
  }

  /** What the next greeting waits for, if anything. */
  takeGreeting(): Promise<void> | undefined {
    return this.greetings.shift();
  }

  dropNextAfterData(): void {
    this.dropsAfterData++;
  }

  /** Whether the message just received loses its answer (once per dropNextAfterData). */
  takeDropAfterData(): boolean {
    if (this.dropsAfterData === 0) return false;
    this.dropsAfterData--;
    return true;
  }

  holdNext(): { readonly received: Promise<void>; release(): void } {
    const released = gate();
    const received = gate();
    this.holds.push({ released: released.promise, arrived: received.open, release: released.open });
    this.everyGate.push(released.open, received.open);
    return { received: received.promise, release: released.open };
  }

  /** The hold for the message just received, if any. */
  takeHold(): { arrived: () => void; released: Promise<void> } | undefined {
    return this.holds.shift();
  }

  /** Lifts every lasting and pending fault (held answers and greetings stay until released). */
  clear(): void {
    this.refusedRecipients.clear();
    this.next.clear();
    this.drops.clear();
    this.authRefusal = null;
    this.dropsAfterData = 0;
  }

  /** Opens every gate: the double is closing. */
  releaseAll(): void {
    for (const open of this.everyGate) open();
  }
}
