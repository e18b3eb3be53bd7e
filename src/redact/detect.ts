import { findCards } from "./card.js";
import { findEmails } from "./email.js";
import { findIbans } from "./iban.js";
import { findIps } from "./ip.js";
import type { Detector, PiiSpan } from "./kinds.js";
import { findNinos } from "./nino.js";
import { findPhones } from "./phone.js";
import { findSecrets } from "./secret.js";
import { resolveOverlaps } from "./spans.js";
import { findSsns } from "./ssn.js";
import { findTfns } from "./tfn.js";

/** Every detector family; add a new family here. */
const DETECTORS: readonly Detector[] = [findSecrets, findIbans, findCards, findTfns, findSsns, findNinos, findEmails, findIps, findPhones];

/**
 * All PII in `text` as non-overlapping spans sorted by position. `redact`
 * is built on it; the corpus report scores it span by span.
 */
export function findPii(text: string): PiiSpan[] {
  return resolveOverlaps(DETECTORS.flatMap((detect) => detect(text)));
}
