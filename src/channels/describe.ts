import type { StoredDestination } from "../drafts/destination.js";
import { describeEmailDestination, type EmailDestination } from "./email/destination.js";
import { describeLinearDestination, type LinearDestination } from "./linear/destination.js";
import { describeSlackDestination, type SlackDestination } from "./slack/destination.js";

/**
 * Where a draft to Linear, email or Slack goes, in a few words for a button
 * or a list ("email to anna@example.org +2", "ENG-123 comment", "Slack
 * C0DESIGN01"): each channel says it of its own destination.
 */
export function describeDestination(d: StoredDestination): string {
  switch (d.channel) {
    case "email":
      return describeEmailDestination(d as unknown as EmailDestination);
    case "linear":
      return describeLinearDestination(d as unknown as LinearDestination);
    case "slack":
      return describeSlackDestination(d as unknown as SlackDestination);
  }
}
