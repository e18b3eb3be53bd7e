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
