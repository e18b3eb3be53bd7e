import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import { MAX_BODY_BYTES } from "../http/body.js";
import { CliFailure, EXIT, type CliIo } from "./io.js";

/** A payload the CLI refuses before asking the daemon, with the `{"error"}` answer to print. */
export class PayloadRefused extends Error {
  override readonly name = "PayloadRefused";
}

/**
 * Reads one draft payload from `--file PATH` (`-` is stdin) or stdin, at most
 * the API's body limit, and parses it as JSON. Malformed or oversized input is
 * a PayloadRefused (exit 2, the daemon is not asked); an unreadable file is a
 * CliFailure.
 */
export async function readPayload(io: CliIo, file: string | undefined): Promise<{ text: string; value: unknown }> {
  const fromStdin = file === undefined || file === "-";
  if (fromStdin && io.stdin.isTTY) io.stderr.write("draft-review: reading one draft payload (JSON) from stdin; end it with Ctrl-D\n");
  const source = fromStdin ? io.stdin : createReadStream(resolve(io.cwd, file));
  const bytes = await readAtMost(source, MAX_BODY_BYTES, fromStdin ? "stdin" : file);
  if (bytes === null) {
    throw new PayloadRefused(
      `the payload is larger than ${MAX_BODY_BYTES} bytes; the daemon refuses it (draft_text is at most 4096 characters)`,
    );
  }
  const text = bytes.toString("utf8");
  if (text.trim() === "")
    throw new PayloadRefused(`the payload is empty; pass one draft payload object as JSON ${fromStdin ? "on stdin" : `in ${file}`}`);
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch (err) {
    throw new PayloadRefused(
      `the payload is not valid JSON (${(err as Error).message}); pass one draft payload object ${fromStdin ? "on stdin" : `in ${file}`}`,
    );
  }
}

/** The whole stream, or null as soon as it passes `limit` bytes (the rest is not read). */
async function readAtMost(stream: NodeJS.ReadableStream, limit: number, name: string): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        (stream as { destroy?: () => void }).destroy?.();
        return null;
      }
      chunks.push(buf);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (err as Error).message;
    throw new CliFailure(`cannot read ${name} (${why})`, EXIT.failed);
  }
  return Buffer.concat(chunks, size);
}
