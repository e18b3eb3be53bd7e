/**
 * Arguments as Slack reads them from either body: a form-encoded body gives
 * strings ("true", "200", a JSON string for `metadata`), a JSON body gives
 * the values themselves.
 */

/** A method's arguments, from either body. */
export type Args = Readonly<Record<string, unknown>>;

/** A string argument (a number is taken as its digits), or undefined. */
export function str(args: Args, key: string): string | undefined {
  const v = args[key];
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  return undefined;
}

/** A boolean argument: true, "true" or "1" (and 1) are true; anything else false. */
export function bool(args: Args, key: string): boolean {
  const v = args[key];
  return v === true || v === "true" || v === "1" || v === 1;
}

/** An integer argument, or `fallback` when absent or not a number. */
export function int(args: Args, key: string, fallback: number): number {
  const v = args[key];
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isInteger(n) ? n : fallback;
}

/** A JSON-valued argument: the object of a JSON body, or the parsed string of a form; "bad" when it does not parse. */
export function json(args: Args, key: string): unknown | "bad" {
  const v = args[key];
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return "bad";
  }
}

/** A page of `items` from an opaque cursor (an offset), Slack's shape: items and response_metadata.next_cursor. */
export function page<T>(items: readonly T[], args: Args, max = 1000): { slice: T[]; next: string } | "invalid_cursor" {
  const cursor = str(args, "cursor");
  const offset =
    cursor === undefined || cursor === ""
      ? 0
      : Number(
          Buffer.from(cursor, "base64")
            .toString("utf8")
            .replace(/^offset:/, ""),
        );
  if (!Number.isInteger(offset) || offset < 0) return "invalid_cursor";
  const limit = Math.min(Math.max(int(args, "limit", 100), 1), max);
  const slice = items.slice(offset, offset + limit);
  const next = offset + limit < items.length ? Buffer.from(`offset:${offset + limit}`).toString("base64") : "";
  return { slice, next };
}
