/**
 * Hostile intake: property-based fuzzing of POST /drafts on the real daemon
 * (`node dist/main.js` against the Bot API double). Arbitrary JSON, mutated
 * payloads (wrong types, missing fields, __proto__/constructor keys,
 * duplicate keys), invalid UTF-8, wrong content types, and header abuse on a
 * raw socket. Every request gets a clear 4xx refusal (or a 2xx for a valid
 * payload), never a 5xx or a dropped connection, and the daemon still answers
 * /healthz afterwards.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_API_TOKEN } from "../support/daemon-process.js";
import { useLiveDaemon } from "../support/live-fixture.js";
import { fetchJson, httpBytes, rawRequest } from "./support/hostile-http.js";
import { cleanup, figures, payload, scaled, SEED } from "./support/hostile-kit.js";

const live = useLiveDaemon({ scope: "file", env: { PII_REDACTION: "off", LOG_LEVEL: "info" }, start: true });
const statuses = new Map<number, number>();
let cases = 0;

const KEYS = [
  "draft_text",
  "destination_chat_id",
  "destination_thread_id",
  "drafted_by_role",
  "originating_intent_id",
  "idempotency_key",
] as const;
const REQUIRED = ["draft_text", "destination_chat_id", "drafted_by_role", "originating_intent_id"];
const HOSTILE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "crc",
  "draft_id",
  "status",
  "approval",
  "version",
  "review_message_id",
  "",
];

function count(status: number): void {
  cases++;
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

/** A JSON object as text from entries, keeping duplicate and "__proto__" keys as own keys. */
function objectText(entries: ReadonlyArray<readonly [string, unknown]>): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
}

/** JSON.parse keeps "__proto__" as an own key: the object the daemon sees. */
function parsedKeys(text: string): string[] {
  return Object.keys(JSON.parse(text) as object);
}

async function post(body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetchJson(`${live.daemon.apiUrl}/drafts`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_API_TOKEN}`, "content-type": "application/json", ...headers },
    body,
  });
  count(res.status);
  return res;
}

/** A 4xx answer in the API's one error shape. */
function expectRefusal(res: { status: number; json: any; text: string }, allowed: number[]): void {
  expect(allowed, res.text).toContain(res.status);
  if (res.status >= 400) {
    expect(typeof res.json?.error, res.text).toBe("string");
    expect(res.json.error.length).toBeGreaterThan(10);
  }
}

async function healthy(): Promise<void> {
  const h = await fetchJson(`${live.daemon.apiUrl}/healthz`, {});
  expect(h.status).toBe(200);
  expect(live.daemon.child.exitCode).toBeNull();
}

afterAll(async () => {
  expect(live.daemon.rawStderr()).not.toContain("unexpected error");
  await cleanup();
  figures("hostile-http total", { cases, statuses: Object.fromEntries([...statuses].sort()) });
});

const leaf = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(0, -0, 1e308, -1, 2 ** 53 + 1, "", " ", "\u0000", "-1001234567890", "@owner", "Scribe", "x".repeat(5000)),
);
const anyValue = fc.oneof(
  { maxDepth: 3 },
  leaf,
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(leaf, { maxLength: 3 }),
  fc.dictionary(fc.string(), leaf, { maxKeys: 3 }),
);

describe("POST /drafts under fuzzing", () => {
  it("refuses arbitrary JSON with a 400 that names the field", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 5 }), async (value) => {
        const res = await post(JSON.stringify(value));
        expectRefusal(res, [400]);
        expect(typeof res.json.field).toBe("string");
        n++;
      }),
      { numRuns: scaled(200), seed: SEED },
    );
    await healthy();
    figures("hostile-http arbitrary-json", { cases: n });
  });

  it("answers mutated payloads (wrong types, missing fields, prototype keys, duplicates) with 201 or a 400 naming a field at fault", async () => {
    const mutation = fc.record({
      drop: fc.subarray([...KEYS]),
      replace: fc.dictionary(fc.constantFrom(...KEYS), anyValue, { maxKeys: 2 }),
      extra: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 8 })), anyValue), { maxLength: 2 }),
      intent: fc.uuid(),
    });
    const seen = { accepted: 0, refused: 0, prototypeKeys: 0 };
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        const base = payload("Fuzzed draft", { originating_intent_id: m.intent, idempotency_key: `k-${m.intent}` });
        const entries: Array<[string, unknown]> = Object.entries(base).filter(([k]) => !m.drop.includes(k as (typeof KEYS)[number]));
        for (const [k, v] of Object.entries(m.replace)) entries.push([k, v]);
        for (const [k, v] of m.extra) entries.push([k, v]);
        const text = objectText(entries);
        const keys = parsedKeys(text);
        const obj = JSON.parse(text) as Record<string, unknown>;
        const unknown = keys.filter((k) => !(KEYS as readonly string[]).includes(k));
        const missing = REQUIRED.filter((k) => !Object.hasOwn(obj, k) || obj[k] === undefined);
        if (unknown.some((k) => HOSTILE_KEYS.includes(k))) seen.prototypeKeys++;
        const res = await post(text);
        expectRefusal(res, [200, 201, 400, 409]);
        if (unknown.length > 0 || missing.length > 0) expect(res.status, text).toBe(400);
        if (res.status === 400) {
          seen.refused++;
          const field: string = res.json.field;
          expect(res.json.error.startsWith(`${field}:`), res.text).toBe(true);
          // The field named is one this request got wrong, never a bystander.
          const culprits = [...unknown, ...missing, ...Object.keys(m.replace)];
          expect(
            culprits.some((c) => field === c || field.startsWith(`${c}.`) || field.split(", ").includes(c)),
            `${field} for ${text}`,
          ).toBe(true);
          // "is required" only for a field that is really absent (the answer names every bad field, "; " between them).
          for (const part of (res.json.error as string).split("; ")) {
            const required = /^([^:]+): is required$/.exec(part)?.[1];
            if (required !== undefined) expect(Object.hasOwn(obj, required) && obj[required] !== undefined, res.text).toBe(false);
          }
        }
        if (res.status === 201) {
          seen.accepted++;
          const got = await fetchJson(`${live.daemon.apiUrl}/drafts/${res.json.draft_id}`, {
            headers: { authorization: `Bearer ${TEST_API_TOKEN}` },
          });
          expect(got.status).toBe(200);
          // What is stored is the payload's text (trimmed as Telegram trims), nothing from the extra keys.
          expect(got.json.draft_text).toBe(String(obj.draft_text).replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, ""));
          expect(["queued", "pending"]).toContain(got.json.status);
          expect(got.json.approval).toBeNull();
        }
      }),
      { numRuns: scaled(300), seed: SEED + 1 },
    );
    await healthy();
    figures("hostile-http mutated-payload", { cases: seen.accepted + seen.refused, ...seen });
  });

  it("prototype pollution attempts are refused and leave later submissions unaffected", async () => {
    const base = objectText(Object.entries(payload("Pollute?")));
    const attempts = [
      `${base.slice(0, -1)},"__proto__":{"idempotency_key":"polluted","destination_thread_id":7,"status":"approved"}}`,
      `${base.slice(0, -1)},"constructor":{"prototype":{"idempotency_key":"polluted"}}}`,
      `{"__proto__":{"draft_text":"x","destination_chat_id":"-1001","drafted_by_role":"Scribe","originating_intent_id":"i"}}`,
      `${base.slice(0, -1)},"__proto__":null}`,
    ];
    for (const text of attempts) {
      const res = await post(text);
      expectRefusal(res, [400]);
    }
    // Were Object.prototype polluted, these two would share an idempotency key (409) or a thread id.
    const a = await post(JSON.stringify(payload("After pollution 1", { originating_intent_id: "p1" })));
    const b = await post(JSON.stringify(payload("After pollution 2", { originating_intent_id: "p2" })));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.json.draft_id).not.toBe(b.json.draft_id);
    for (const id of [a.json.draft_id, b.json.draft_id]) {
      const got = await fetchJson(`${live.daemon.apiUrl}/drafts/${id}`, { headers: { authorization: `Bearer ${TEST_API_TOKEN}` } });
      expect(got.json).toMatchObject({ idempotency_key: null, destination_thread_id: null });
    }
    figures("hostile-http prototype-pollution", { attempts: attempts.length, refused: attempts.length, later_submissions_clean: 2 });
  });

  it("refuses bodies that are not UTF-8, too large or too deep", async () => {
    let n = 0;
    let notUtf8 = 0;
    const valid = Buffer.from(JSON.stringify(payload("Bytes: ")));
    const at = valid.indexOf("Bytes: ") + 7;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 8 }), async (bytes) => {
        const body = Buffer.concat([valid.subarray(0, at), Buffer.from(bytes), valid.subarray(at)]);
        let utf8 = true;
        try {
          new TextDecoder("utf-8", { fatal: true }).decode(body);
        } catch {
          utf8 = false;
        }
        const res = await post(body);
        expectRefusal(res, [201, 400]);
        if (!utf8) {
          notUtf8++;
          expect(res.status).toBe(400);
          expect(res.json.error).toContain("not UTF-8");
        }
        n++;
      }),
      { numRuns: scaled(120), seed: SEED + 2 },
    );
    const fixed: Array<[string, Buffer | string, number[]]> = [
      ["overlong-slash", Buffer.concat([valid.subarray(0, at), Buffer.from([0xc0, 0xaf]), valid.subarray(at)]), [400]],
      ["utf8-surrogate", Buffer.concat([valid.subarray(0, at), Buffer.from([0xed, 0xa0, 0x80]), valid.subarray(at)]), [400]],
      ["over-64KiB", JSON.stringify(payload("y".repeat(70_000))), [413]],
      ["text-4097", JSON.stringify(payload("z".repeat(4097))), [400]],
      ["deep-array-in-field", `{"draft_text":${"[".repeat(30_000)}${"]".repeat(30_000)}}`, [400]],
      ["deep-object-unknown-key", `{"x":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}`, [400]],
      ["deep-array-top", `${"[".repeat(32_000)}${"]".repeat(32_000)}`, [400]],
      ["empty", "", [400]],
      ["json-then-garbage", `${JSON.stringify(payload("x"))} trailing`, [400]],
      ["nul-only", Buffer.alloc(100), [400]],
      [
        "bom",
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(payload("BOM", { originating_intent_id: "bom" })))]),
        [201, 400],
      ],
    ];
    for (const [name, body, allowed] of fixed) {
      const res = await post(body);
      expect(allowed, `${name}: ${res.text.slice(0, 200)}`).toContain(res.status);
      expectRefusal(res, allowed);
      n++;
    }
    await healthy();
    figures("hostile-http bytes", { cases: n, invalid_utf8: notUtf8, fixed: fixed.length });
  });

  it("answers only application/json (UTF-8) with anything but 415", async () => {
    let n = 0;
    const contentType = fc.oneof(
      fc.constantFrom(
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin1",
        "application/json;charset=UTF-16",
        "APPLICATION/JSON",
        'application/json; charset="utf-8"',
        "application/jsonp",
        "application/json\t;charset=utf-8",
        "application/json, text/plain",
        "*/*",
        "application/*",
        "json",
        "application/ld+json",
        "application/json; charset=utf-8; charset=latin1",
      ),
      fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz/;=+- "ABCJSON0123456789'), maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(contentType, fc.uuid(), async (ct, intent) => {
        const res = await post(JSON.stringify(payload("Typed", { originating_intent_id: intent })), { "content-type": ct });
        const mediaType = ct.split(";")[0]!.trim().toLowerCase();
        if (mediaType !== "application/json") expect(res.status, ct).toBe(415);
        expectRefusal(res, [201, 400, 415]);
        n++;
      }),
      { numRuns: scaled(80), seed: SEED + 3 },
    );
    // No content type at all.
    const none = await fetchJson(`${live.daemon.apiUrl}/drafts`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_API_TOKEN}` },
      body: new Uint8Array(Buffer.from("{}")),
    });
    count(none.status);
    expect(none.status).toBe(415);
    await healthy();
    figures("hostile-http content-type", { cases: n + 1 });
  });

  it("refuses header abuse on a raw socket: duplicate Authorization, oversized and malformed headers, lying lengths", async () => {
    const good = `Bearer ${TEST_API_TOKEN}`;
    const body = JSON.stringify(payload("Header abuse", { originating_intent_id: "hdr" }));
    const json: [string, string] = ["Content-Type", "application/json"];
    const len = (b: string): [string, string] => ["Content-Length", String(Buffer.byteLength(b))];
    type Case = { name: string; bytes: Buffer; allowed: number[] };
    const cases_: Case[] = [
      {
        name: "auth-bad-then-good",
        bytes: httpBytes(
          "POST",
          "/drafts",
          [["Authorization", "Bearer wrong-token-000000"], ["Authorization", good], json, len(body)],
          body,
        ),
        allowed: [401],
      },
      {
        name: "auth-good-then-bad",
        bytes: httpBytes(
          "POST",
          "/drafts",
          [["Authorization", good], ["Authorization", "Bearer wrong-token-000000"], json, len(body)],
          body,
        ),
        allowed: [401],
      },
      {
        name: "auth-two-in-one",
        bytes: httpBytes("POST", "/drafts", [["Authorization", `${good}, ${good}`], json, len(body)], body),
        allowed: [401],
      },
      {
        name: "auth-8KiB",
        bytes: httpBytes("POST", "/drafts", [["Authorization", `Bearer ${"a".repeat(8192)}`], json, len(body)], body),
        allowed: [401],
      },
      {
        name: "auth-basic",
        bytes: httpBytes(
          "POST",
          "/drafts",
          [["Authorization", `Basic ${Buffer.from(`x:${TEST_API_TOKEN}`).toString("base64")}`], json, len(body)],
          body,
        ),
        allowed: [401],
      },
      {
        name: "auth-prefix",
        bytes: httpBytes("POST", "/drafts", [["Authorization", good.slice(0, -1)], json, len(body)], body),
        allowed: [401],
      },
      { name: "auth-suffix", bytes: httpBytes("POST", "/drafts", [["Authorization", `${good}x`], json, len(body)], body), allowed: [401] },
      {
        name: "auth-case",
        bytes: httpBytes("POST", "/drafts", [["Authorization", `Bearer ${TEST_API_TOKEN.toUpperCase()}`], json, len(body)], body),
        allowed: [401],
      },
      {
        name: "auth-utf8",
        bytes: httpBytes("POST", "/drafts", [["Authorization", "Bearer ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ"], json, len(body)], body),
        allowed: [401],
      },
      { name: "auth-empty", bytes: httpBytes("POST", "/drafts", [["Authorization", ""], json, len(body)], body), allowed: [401] },
      {
        name: "headers-20KiB",
        bytes: httpBytes("POST", "/drafts", [["Authorization", good], ["X-Pad", "p".repeat(20_000)], json, len(body)], body),
        allowed: [431],
      },
      {
        name: "headers-3000",
        bytes: httpBytes(
          "POST",
          "/drafts",
          [["Authorization", good], ...Array.from({ length: 3000 }, (_, i): [string, string] => [`X-H${i}`, "1"]), json, len(body)],
          body,
        ),
        allowed: [400, 431],
      },
      { name: "path-20KiB", bytes: httpBytes("GET", `/drafts/${"d".repeat(20_000)}`, [["Authorization", good]]), allowed: [414, 431] },
      {
        name: "obs-fold",
        bytes: Buffer.from(
          `POST /drafts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n ${TEST_API_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        ),
        allowed: [400, 401],
      },
      {
        name: "bare-cr",
        bytes: Buffer.from(`POST /drafts HTTP/1.1\r\nHost: x\r\nAuthorization: ${good}\rX-Evil: 1\r\nContent-Length: 0\r\n\r\n`),
        allowed: [400],
      },
      {
        name: "cl-and-te",
        bytes: httpBytes("POST", "/drafts", [["Authorization", good], json, len(body), ["Transfer-Encoding", "chunked"]], body),
        allowed: [400],
      },
      {
        name: "two-cl",
        bytes: httpBytes("POST", "/drafts", [["Authorization", good], json, len(body), ["Content-Length", "3"]], body),
        allowed: [400],
      },
      {
        name: "cl-negative",
        bytes: httpBytes("POST", "/drafts", [["Authorization", good], json, ["Content-Length", "-1"]], body),
        allowed: [400],
      },
      {
        name: "cl-huge",
        bytes: httpBytes("POST", "/drafts", [["Authorization", good], json, ["Content-Length", "99999999999"]], body),
        allowed: [413],
      },
      {
        name: "chunk-huge",
        bytes: httpBytes(
          "POST",
          "/drafts",
          [["Authorization", good], json, ["Transfer-Encoding", "chunked"]],
          `FFFFFFFFFFFF\r\n${"c".repeat(70_000)}`,
        ),
        allowed: [400, 413],
      },
      {
        name: "chunked-70KiB",
        bytes: httpBytes(
          "POST",
          "/drafts",
          [["Authorization", good], json, ["Transfer-Encoding", "chunked"]],
          `11170\r\n${"q".repeat(70_000)}\r\n0\r\n\r\n`,
        ),
        allowed: [413],
      },
      {
        name: "nul-in-path",
        bytes: Buffer.from(`GET /drafts/\u0000 HTTP/1.1\r\nHost: x\r\nAuthorization: ${good}\r\n\r\n`, "latin1"),
        allowed: [400, 404],
      },
      { name: "traversal", bytes: httpBytes("GET", "/drafts/..%2f..%2fapi_token", [["Authorization", good]]), allowed: [404] },
      { name: "bad-escape", bytes: httpBytes("GET", "/drafts/%E0%A4%A", [["Authorization", good]]), allowed: [404] },
      {
        name: "absolute-form",
        bytes: httpBytes("POST", "http://evil.example/drafts", [["Authorization", good], json, len(body)], body),
        allowed: [400, 404],
      },
      { name: "method-delete", bytes: httpBytes("DELETE", "/drafts", [["Authorization", good]]), allowed: [405] },
      { name: "method-trace", bytes: httpBytes("TRACE", "/drafts", [["Authorization", good]]), allowed: [405] },
      { name: "method-junk", bytes: httpBytes("FOO", "/drafts", [["Authorization", good]]), allowed: [400, 405] },
      { name: "no-host-1.1", bytes: Buffer.from(`GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n`), allowed: [200, 400] },
      { name: "http-0.9", bytes: Buffer.from("GET /healthz\r\n\r\n"), allowed: [0, 200, 400] },
      { name: "binary-garbage", bytes: Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]), allowed: [0, 400] },
    ];
    const results: Array<{ name: string; status: number }> = [];
    for (const c of cases_) {
      const res = await rawRequest(live.daemon.apiUrl, c.bytes);
      count(res.status);
      results.push({ name: c.name, status: res.status });
      expect(c.allowed, `${c.name}: ${res.raw.slice(0, 300)}`).toContain(res.status);
      if (res.status >= 400) expect(() => JSON.parse(res.body), `${c.name}: ${res.body}`).not.toThrow();
      expect(res.raw).not.toContain(TEST_API_TOKEN);
    }
    // A body shorter than its declared length, then the client leaves: nothing is stored, nothing breaks.
    const short = await rawRequest(
      live.daemon.apiUrl,
      httpBytes("POST", "/drafts", [["Authorization", good], json, ["Content-Length", "5000"]], body.slice(0, 50)),
      { timeoutMs: 300 },
    );
    count(short.status);
    expect(short.status).toBe(0);
    await healthy();
    figures("hostile-http header-abuse", {
      cases: results.length + 1,
      auth_good_then_bad: results.find((r) => r.name === "auth-good-then-bad")?.status,
      statuses: Object.fromEntries(results.map((r) => [r.name, r.status])),
    });
  });

  it("random extra headers next to a good token change nothing but what they must", async () => {
    const name = fc
      .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/)
      .filter((n) => !/^(host|content-length|transfer-encoding|authorization|content-type|connection|expect|upgrade|te|trailer)$/i.test(n));
    const value = fc.string({ unit: fc.constantFrom(..."abc XYZ 0123456789;=,:/\"'\t!#$%&*+.^_`|~"), maxLength: 200 });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 20 }), fc.uuid(), async (headers, intent) => {
        const body = JSON.stringify(payload("Random headers", { originating_intent_id: intent }));
        const res = await rawRequest(
          live.daemon.apiUrl,
          httpBytes(
            "POST",
            "/drafts",
            [
              ["Authorization", `Bearer ${TEST_API_TOKEN}`],
              ["Content-Type", "application/json"],
              ["Content-Length", String(Buffer.byteLength(body))],
              ...headers,
            ],
            body,
          ),
        );
        count(res.status);
        expect(res.status, res.raw.slice(0, 300)).toBe(201);
        n++;
      }),
      { numRuns: scaled(40), seed: SEED + 4 },
    );
    await healthy();
    figures("hostile-http random-headers", { cases: n });
  });
});
