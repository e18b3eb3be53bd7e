import { beforeEach, describe, expect, it, vi } from "vitest";
import { BearerAuth } from "../../src/http/auth.js";

/** Every pair of buffers BearerAuth handed to crypto.timingSafeEqual. */
const compared = vi.hoisted(() => [] as [Uint8Array, Uint8Array][]);

vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  const timingSafeEqual = (a: Uint8Array, b: Uint8Array) => {
    compared.push([a, b]);
    return actual.timingSafeEqual(a, b);
  };
  return { ...actual, default: { ...actual, timingSafeEqual }, timingSafeEqual };
});

const TOKEN = "0123456789abcdef0123456789abcdef";

describe("BearerAuth", () => {
  beforeEach(() => {
    compared.length = 0;
  });

  it("allows exactly the token", () => {
    const auth = new BearerAuth(TOKEN);
    expect(auth.allows(`Bearer ${TOKEN}`)).toBe(true);
    expect(auth.allows(`bearer  ${TOKEN} `)).toBe(true);
    expect(auth.allows(`Bearer ${TOKEN}0`)).toBe(false);
    expect(auth.allows(`Bearer ${TOKEN.slice(1)}`)).toBe(false);
    expect(auth.allows(`Bearer ${TOKEN} extra`)).toBe(false);
    expect(auth.allows(TOKEN)).toBe(false);
    expect(auth.allows(undefined)).toBe(false);
    expect(auth.allows("")).toBe(false);
  });

  it("compares in constant time: timingSafeEqual over two 32-byte digests, whatever was presented", () => {
    const auth = new BearerAuth(TOKEN);
    const presented = [undefined, "", "Basic abc", "Bearer x", `Bearer ${TOKEN}`, `Bearer ${"y".repeat(500)}`];
    for (const header of presented) auth.allows(header);
    expect(compared).toHaveLength(presented.length);
    for (const [a, b] of compared) {
      expect(a.length).toBe(32);
      expect(b.length).toBe(32);
    }
  });

  it("refuses to be built with an empty token", () => {
    expect(() => new BearerAuth("")).toThrow(/empty/);
  });
});
