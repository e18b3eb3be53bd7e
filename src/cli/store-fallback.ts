import { open } from "node:fs/promises";
import { draftRecordSchema, type DraftRecord } from "../drafts/record.js";
import { errCode } from "../store/fs-util.js";
import { replay } from "../store/replay.js";
import { StoreCorruptError } from "../store/store-errors.js";
import { callApi, DaemonNotRunning, type ApiAnswer } from "./api-client.js";
import { apiTarget, clientToken } from "./api-target.js";
import { cliHarness } from "./harness.js";
import { CliFailure, type CliIo } from "./io.js";
import { printProblem } from "./output.js";

/** The running daemon's answer. */
export type DaemonAnswer = ApiAnswer & { readonly kind: "daemon" };

/** The drafts as the store file holds them, read without the daemon. */
export interface StoreView {
  readonly kind: "store";
  /** The current record of each draft (the last line of each draft_id). */
  readonly drafts: readonly DraftRecord[];
  readonly path: string;
}

/**
 * Asks the running daemon (`GET path`); when nothing listens on its port,
 * reads HARNESS_DIR's store instead, read-only and without the daemon's lock
 * (nothing is written, a torn last line is skipped, not cut), and says so on
 * stderr.
 */
export async function askDaemonOrReadStore(io: CliIo, path: string): Promise<DaemonAnswer | StoreView> {
  const target = apiTarget(io.env);
  let tokenProblem: CliFailure | null = null;
  let token = "";
  try {
    token = await clientToken(io.env, io.cwd);
  } catch (err) {
    if (!(err instanceof CliFailure)) throw err;
    tokenProblem = err;
  }
  try {
    const answer = await callApi(target, token, { method: "GET", path, timeoutMs: 10_000 });
    if (answer.status === 401 && tokenProblem) throw tokenProblem;
    return { kind: "daemon", ...answer };
  } catch (err) {
    if (!(err instanceof DaemonNotRunning)) throw err;
  }
  const store = cliHarness(io).drafts;
  printProblem(io, `the daemon is not running (nothing answers at ${target.url}); read ${store} directly, read-only`);
  return { kind: "store", drafts: await readStoreReadOnly(store), path: store };
}

/** The current records of `path` (none when the file does not exist), without writing anything. */
export async function readStoreReadOnly(path: string): Promise<DraftRecord[]> {
  let fh;
  try {
    fh = await open(path, "r");
  } catch (err) {
    if (errCode(err) === "ENOENT") return [];
    throw new CliFailure(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const r = await replay(fh, path, (value) => draftRecordSchema.parse(value));
    return [...r.latest.values()];
  } catch (err) {
    if (err instanceof StoreCorruptError) throw new CliFailure(err.message);
    throw err;
  } finally {
    await fh.close();
  }
}
