import { LinearClient, LinearErrorType } from "@linear/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type LinearDouble, linearAnswers, startLinearDouble } from "./index.js";

/**
 * The double itself, driven by the real SDK: it answers the SDK's own
 * documents (large fragments included) from the seeded workspace, refuses a
 * query the schema does not allow and keeps it, checks the key as Linear
 * does, and its faults do what their names say.
 */
let linear: LinearDouble;

beforeEach(async () => {
  linear = await startLinearDouble();
  linear.state.workspace.addUser({ name: "Phill Owner", email: "phill@example.com" }, { viewer: true });
});
afterEach(async () => {
  await linear.close();
});

const client = (apiKey = linear.apiKey) => new LinearClient({ apiKey, apiUrl: linear.url });

describe("the Linear double", () => {
  it("answers the SDK's viewer and comment documents from the workspace", async () => {
    const w = linear.state.workspace;
    const anna = w.addUser({ name: "Anna Berg" });
    const issue = w.addIssue(w.addTeam({ key: "ENG", name: "Engineering", members: [anna] }), { title: "Login fails" });
    const parent = w.addComment(issue, anna, "Can someone look?");

    const me = await client().viewer;
    expect(me.name).toBe("Phill Owner");
    const created = await client().createComment({
      id: "8d2f6a4e-0b7c-4f51-9a3e-2c1d5e6f7a8b",
      issueId: "ENG-1",
      body: "On it.",
      parentId: parent.id,
    });
    expect(created.commentId).toBe("8d2f6a4e-0b7c-4f51-9a3e-2c1d5e6f7a8b");
    const fetched = await client().comment({ id: "8d2f6a4e-0b7c-4f51-9a3e-2c1d5e6f7a8b" });
    expect(fetched.body).toBe("On it.");
    expect(fetched.url).toBe("https://linear.app/acme/issue/ENG-1/login-fails#comment-8d2f6a4e");
    expect(linear.state.invalid).toEqual([]);
  });

  it("refuses a query the schema does not allow, and keeps it", async () => {
    await expect(client().client.rawRequest("query Bad { viewer { noSuchField } }")).rejects.toThrow();
    expect(linear.state.invalid).toHaveLength(1);
    expect(linear.state.invalid[0]?.errors[0]).toMatch(/noSuchField/);
  });

  it("refuses a key sent with Bearer, or another key, as Linear refuses an unknown key", async () => {
    const refused = await client(`Bearer ${linear.apiKey}`)
      .viewer.then(() => null)
      .catch((e: { type?: string }) => e);
    expect(refused?.type).toBe(LinearErrorType.AuthenticationError);
    expect(linear.state.requests.at(-1)?.authorization).toBe(`Bearer ${linear.apiKey}`);
  });

  it("answers an unknown issue with Linear's Entity not found, classified invalid input by the SDK", async () => {
    const error = await client()
      .issue("ENG-404")
      .then(() => null)
      .catch((e: { type?: string; message: string }) => e);
    expect(error?.type).toBe(LinearErrorType.InvalidInput);
    expect(error?.message).toMatch(/Entity not found: Issue/);
  });

  it("fails, loses and holds the next call of a field, and counts every call", async () => {
    const w = linear.state.workspace;
    w.addIssue(w.addTeam({ key: "ENG", name: "Engineering" }), { title: "A" });
    linear.failNext("viewer", linearAnswers.forbidden());
    await expect(client().viewer).rejects.toMatchObject({ type: LinearErrorType.Forbidden });

    linear.loseNext("commentCreate");
    const id = "0b7c8d2f-6a4e-4f51-9a3e-2c1d5e6f7a8b";
    await expect(client().createComment({ id, issueId: "ENG-1", body: "lost" })).rejects.toThrow();
    expect(w.comments.get(id)?.body).toBe("lost");

    const hold = linear.holdNext("viewer");
    const pending = client().viewer;
    await hold.arrived;
    hold.release();
    expect((await pending).name).toBe("Phill Owner");
    expect(linear.state.calls.get("viewer")).toBe(2);
    expect(linear.state.calls.get("commentCreate")).toBe(1);
  });

  it("tells a listener of each request as it arrives, so a fault planned then applies to it", async () => {
    const w = linear.state.workspace;
    w.addIssue(w.addTeam({ key: "ENG", name: "Engineering" }), { title: "A" });
    const heard: string[] = [];
    const stop = linear.onRequest((r) => {
      heard.push(r.rootFields.join(","));
      if (r.rootFields.includes("commentCreate")) linear.loseNext("commentCreate");
    });
    const id = "6a4e0b7c-8d2f-4f51-9a3e-2c1d5e6f7a8b";
    await expect(client().createComment({ id, issueId: "ENG-1", body: "lost at once" })).rejects.toThrow();
    expect(w.comments.get(id)?.body).toBe("lost at once");
    stop();
    await client().viewer;
    expect(heard).toEqual(["commentCreate"]);
  });
});
