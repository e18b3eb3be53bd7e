/**
 * One life of the real daemon (`node dist/main.js`) on a HARNESS_DIR that
 * outlives it: started without waiting, so a kill can land during start-up,
 * and killed with SIGKILL from anywhere, synchronously (inside a Bot API
 * double callback or an inotify callback), so the kill lands between two
 * steps of the daemon rather than some milliseconds later.
 */
import { startDaemon, TEST_API_TOKEN, type DaemonProcess } from "../../support/daemon-process.js";

/** An HTTP answer from the intake API. */
export interface ApiAnswer {
  status: number;
  body: any;
}

/** A running (or starting) daemon life. */
export interface Life {
  readonly proc: DaemonProcess;
  /** The intake API's URL once the daemon says it is running; null if it exited or was killed first. */
  readonly running: Promise<string | null>;
  /** How the life was ended, once it was. */
  killedBy: string | null;
  /** SIGKILL now (first call wins); `how` names the kill point. */
  kill(how: string): void;
  request(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
}

/** Starts a daemon life on `dirs` with `env`. */
export async function startLife(dirs: { cwd: string; harnessDir: string }, env: Record<string, string>): Promise<Life> {
  const proc = await startDaemon({ ...dirs, env, waitUntilRunning: false });
  let url: string | null = null;
  const running = proc
    .waitForLog((l) => l.msg === "draft-review is running", 60_000)
    .then(
      (line) => (url = String(line.api)),
      () => null,
    );
  const life: Life = {
    proc,
    running,
    killedBy: null,
    kill(how) {
      if (life.killedBy !== null) return;
      life.killedBy = how;
      proc.child.kill("SIGKILL");
    },
    async request(method, path, body) {
      if (url === null) throw new Error("the daemon is not running");
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${TEST_API_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
  };
  return life;
}

/** Log lines of a life that match `msg`. */
export function logsOf(life: Life, msg: string): Array<Record<string, unknown>> {
  return life.proc.logs.filter((l) => l.msg === msg);
}
