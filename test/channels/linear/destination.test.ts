import { describe, expect, it } from "vitest";
import {
  describeLinearDestination,
  LINEAR_DEFAULT_API_URL,
  linearConfigFromEnv,
  linearDestinationSchema,
} from "../../../src/channels/linear/index.js";

const UUID = "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";

/** The first issue of a refused destination: its path and message. */
function refusal(input: unknown): { path: string; message: string } {
  const r = linearDestinationSchema.safeParse(input);
  if (r.success) throw new Error("accepted");
  const issue = r.error.issues[0];
  return { path: (issue?.path ?? []).join("."), message: issue?.message ?? "" };
}

describe("the Linear destination", () => {
  it("takes an issue identifier or UUID, and null, absent or a UUID for the answered comment", () => {
    for (const issue of ["ENG-123", "A-1", "DATA_OPS2-999999999", UUID]) {
      expect(linearDestinationSchema.parse({ channel: "linear", issue, parent_comment_id: null }).issue).toBe(issue);
    }
    expect(linearDestinationSchema.parse({ channel: "linear", issue: "ENG-1" }).parent_comment_id).toBeNull();
    expect(linearDestinationSchema.parse({ channel: "linear", issue: "ENG-1", parent_comment_id: UUID }).parent_comment_id).toBe(UUID);
  });

  it("refuses a malformed issue, naming the field and the forms it takes", () => {
    for (const issue of ["eng-123", "ENG-0", "ENG-01", "ENG123", "TOOLONGTEAM-1", "ENG-1234567890", UUID.toUpperCase(), "", 123]) {
      const r = refusal({ channel: "linear", issue, parent_comment_id: null });
      expect(r.path).toBe("issue");
      expect(r.message).toMatch(/identifier \(ENG-123|must be the issue's identifier/);
    }
  });

  it("refuses a malformed answered comment, an unknown field and another channel, each naming the field", () => {
    expect(refusal({ channel: "linear", issue: "ENG-1", parent_comment_id: "c-1" })).toMatchObject({ path: "parent_comment_id" });
    expect(refusal({ channel: "linear", issue: "ENG-1", parent_comment_id: null, thread: 1 }).message).toMatch(/thread/);
    expect(refusal({ channel: "slack", issue: "ENG-1", parent_comment_id: null }).path).toBe("channel");
  });

  it("is described in a few words for lists and notices", () => {
    expect(describeLinearDestination({ channel: "linear", issue: "ENG-123", parent_comment_id: null })).toBe("ENG-123 comment");
    expect(describeLinearDestination({ channel: "linear", issue: "ENG-123", parent_comment_id: UUID })).toBe("ENG-123 reply");
    expect(describeLinearDestination({ channel: "linear", issue: UUID, parent_comment_id: null })).toBe("issue 3f2b1c4d… comment");
  });
});

describe("the Linear configuration", () => {
  const key = "lin_api_0123456789abcdefghijklmnopqrstuvwxyzAB";

  it("is absent when neither variable is set (empty counts as unset)", () => {
    expect(linearConfigFromEnv({})).toEqual({ kind: "absent" });
    expect(linearConfigFromEnv({ LINEAR_API_KEY: "", LINEAR_API_URL: " " })).toEqual({ kind: "absent" });
  });

  it("takes the key with Linear's endpoint by default, or a test double's on 127.0.0.1", () => {
    expect(linearConfigFromEnv({ LINEAR_API_KEY: key })).toEqual({ kind: "ok", config: { apiKey: key, apiUrl: LINEAR_DEFAULT_API_URL } });
    const local = linearConfigFromEnv({ LINEAR_API_KEY: key, LINEAR_API_URL: "http://127.0.0.1:4567/graphql" });
    expect(local).toEqual({ kind: "ok", config: { apiKey: key, apiUrl: "http://127.0.0.1:4567/graphql" } });
  });

  it("is invalid, naming the variable and what to set, and never showing the key", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ LINEAR_API_URL: "https://api.linear.app/graphql" }, /LINEAR_API_KEY is not: set LINEAR_API_KEY/],
      [{ LINEAR_API_KEY: `Bearer ${key}` }, /LINEAR_API_KEY must be the personal API key alone, without "Bearer"/],
      [{ LINEAR_API_KEY: `${key} extra` }, /LINEAR_API_KEY holds spaces/],
      [{ LINEAR_API_KEY: key, LINEAR_API_URL: "api.linear.app" }, /LINEAR_API_URL is not a URL/],
      [{ LINEAR_API_KEY: key, LINEAR_API_URL: "http://api.linear.app/graphql" }, /LINEAR_API_URL must be an https:\/\/ URL/],
      [{ LINEAR_API_KEY: key, LINEAR_API_URL: "https://me:pw@api.linear.app/graphql" }, /LINEAR_API_URL must not carry a user/],
    ];
    for (const [env, expected] of cases) {
      const read = linearConfigFromEnv(env);
      expect(read.kind).toBe("invalid");
      const error = read.kind === "invalid" ? read.error : "";
      expect(error).toMatch(expected);
      expect(error).not.toContain(key);
    }
  });
});
