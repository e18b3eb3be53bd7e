/**
 * One @linear/sdk client per call, each with its own deadline. The SDK
 * passes every option it does not know to fetch (`...others` in
 * LinearGraphQLClient.rawRequest), so an AbortSignal given here ends a hung
 * call, the answer's body included; a signal is single-use, hence a client
 * per call (a LinearClient is a few plain objects, no connection of its own).
 *
 * Retries: the SDK 88.3.0 has none. Its request path is one `fetch` per call
 * (LinearGraphQLClient.rawRequest and .request), with no retry, backoff or
 * rate-limit wait anywhere in it; Node's fetch (undici) does not retry a
 * POST either. A test proves one request per failed send. If a later SDK
 * grows retries, they must be switched off here: a retried commentCreate
 * whose first answer was lost would be refused as a taken id at best.
 */
import { LinearClient } from "@linear/sdk";
import type { LinearConfig } from "./config.js";

/** The default time one call to Linear may take (the answer's body included). */
export const LINEAR_DEFAULT_TIMEOUT_MS = 30_000;

/** Makes SDK clients for one configuration, each call with its own `timeoutMs` deadline. */
export function linearClientFactory(config: LinearConfig, timeoutMs: number): () => LinearClient {
  return () => new LinearClient({ apiKey: config.apiKey, apiUrl: config.apiUrl, signal: AbortSignal.timeout(timeoutMs) });
}

/** Removes the API key from a text that may have come back from the service. */
export function scrubber(config: LinearConfig): (text: string) => string {
  return (text) => (config.apiKey === "" ? text : text.split(config.apiKey).join("[LINEAR_API_KEY]"));
}
