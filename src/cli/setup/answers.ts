import { createInterface, type Interface } from "node:readline";

/**
 * The lines a person types on stdin, read through one readline interface for
 * the whole setup: a second interface on the same stream would lose lines
 * the first had already buffered (answers typed ahead, or piped in). Each
 * `next` resolves with the next line, or "" once input has ended.
 */
export class Answers {
  private rl: Interface | null = null;
  private readonly lines: string[] = [];
  private readonly waiting: Array<(line: string) => void> = [];
  private ended = false;

  constructor(private readonly input: NodeJS.ReadableStream) {}

  /** The next line typed ("" at the end of input). */
  next(): Promise<string> {
    this.open();
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve("");
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * The next line, typed without echo when stdin is a terminal (a key, a
   * token, a URL with a password): the terminal is in raw mode while it is
   * typed, so nothing shows on screen or stays in its scrollback. Backspace
   * edits the line; Ctrl-C stops setup as it does elsewhere (SIGINT). Not a
   * terminal (a pipe, a test's stream): the line as `next` reads it.
   * `newline` is called once a hidden line was entered (the terminal did not
   * echo the Enter either).
   */
  async nextHidden(newline: () => void): Promise<string> {
    const tty = this.input as NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
    if (tty.isTTY !== true || typeof tty.setRawMode !== "function") return this.next();
    const interrupt = (chunk: Buffer | string) => {
      if (!String(chunk).includes("\u0003")) return;
      tty.setRawMode?.(false);
      process.kill(process.pid, "SIGINT");
    };
    tty.setRawMode(true);
    tty.on("data", interrupt);
    try {
      return withBackspaces(await this.next());
    } finally {
      tty.removeListener("data", interrupt);
      tty.setRawMode(false);
      newline();
    }
  }

  /** Stops reading stdin (so the process can exit). */
  close(): void {
    this.rl?.close();
  }

  private open(): void {
    if (this.rl !== null) return;
    const rl = createInterface({ input: this.input, terminal: false });
    rl.on("line", (line) => {
      const resolve = this.waiting.shift();
      if (resolve) resolve(line);
      else this.lines.push(line);
    });
    rl.on("close", () => {
      this.ended = true;
      for (const resolve of this.waiting.splice(0)) resolve("");
    });
    this.rl = rl;
  }
}

/** A line typed in raw mode, with each backspace (DEL or ^H) applied as the terminal would have. */
export function withBackspaces(line: string): string {
  const kept: string[] = [];
  for (const ch of line) {
    if (ch === "\u007f" || ch === "\b") kept.pop();
    else kept.push(ch);
  }
  return kept.join("");
}
