/**
 * True when a draft-review daemon answers `GET /healthz` at host:port (within
 * `timeoutMs`). Setup uses it to refuse early, before it would fight the
 * daemon over getUpdates. A daemon that answers but is unhealthy (503 with
 * its reasons) still counts: it is running. Anything else there (or nothing) is false.
 */
export async function daemonAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/healthz`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as { ok?: unknown };
    return (res.status === 200 || res.status === 503) && typeof body.ok === "boolean";
  } catch {
    return false;
  }
}
