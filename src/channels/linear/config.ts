/**
 * LINEAR_API_KEY and LINEAR_API_URL read from the environment (contract v5,
 * "Configuration"). Absent when neither is set; invalid, naming the variable
 * and what to set, when one is set wrongly or the key is missing. The key
 * never appears in an error.
 */

/** Linear's GraphQL endpoint, used when LINEAR_API_URL is not set. */
export const LINEAR_DEFAULT_API_URL = "https://api.linear.app/graphql";

/** What the Linear channel needs to reach Linear. */
export interface LinearConfig {
  /** A personal API key: sent as `Authorization: <key>`, comments appear as its owner. */
  readonly apiKey: string;
  /** The GraphQL endpoint (a test double on 127.0.0.1 in tests). */
  readonly apiUrl: string;
}

/** The Linear variables as read: not set, usable, or wrong with words saying how to fix them. */
export type LinearConfigRead =
  | { readonly kind: "absent" }
  | { readonly kind: "ok"; readonly config: LinearConfig }
  | { readonly kind: "invalid"; readonly error: string };

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

function readUrl(text: string): string | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `LINEAR_API_URL is not a URL: set it to ${LINEAR_DEFAULT_API_URL} or unset it` };
  }
  if (url.username !== "" || url.password !== "") {
    return { error: "LINEAR_API_URL must not carry a user or password: the key goes in LINEAR_API_KEY" };
  }
  const loopback = LOOPBACK.has(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    return { error: "LINEAR_API_URL must be an https:// URL (plain http only on 127.0.0.1 or localhost, for a test double)" };
  }
  return url.toString();
}

function checkKey(key: string): string | null {
  if (/^bearer\s/i.test(key))
    return 'LINEAR_API_KEY must be the personal API key alone, without "Bearer" (Linear takes personal keys bare)';
  if (/\s/.test(key)) return "LINEAR_API_KEY holds spaces or line breaks: set it to the personal API key alone (lin_api_…)";
  return null;
}

/** Reads LINEAR_API_KEY and LINEAR_API_URL; an empty value counts as not set. */
export function linearConfigFromEnv(env: Record<string, string | undefined>): LinearConfigRead {
  const key = env.LINEAR_API_KEY?.trim() ?? "";
  const urlText = env.LINEAR_API_URL?.trim() ?? "";
  if (key === "" && urlText === "") return { kind: "absent" };
  if (key === "") {
    return {
      kind: "invalid",
      error:
        "LINEAR_API_URL is set but LINEAR_API_KEY is not: set LINEAR_API_KEY to a Linear personal API key (Settings → Security & access), or unset LINEAR_API_URL",
    };
  }
  const keyProblem = checkKey(key);
  if (keyProblem !== null) return { kind: "invalid", error: keyProblem };
  const apiUrl = urlText === "" ? LINEAR_DEFAULT_API_URL : readUrl(urlText);
  if (typeof apiUrl !== "string") return { kind: "invalid", error: apiUrl.error };
  return { kind: "ok", config: { apiKey: key, apiUrl } };
}
