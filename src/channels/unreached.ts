/**
 * The Node and undici error codes of a connection that failed before a byte
 * of the request was written (no connection, no address, a TLS handshake
 * refused): such a request cannot have reached the service, so its send is
 * `not_sent`, never `unknown`. Linear's and Slack's clients both read it.
 */
export const UNREACHED_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);
