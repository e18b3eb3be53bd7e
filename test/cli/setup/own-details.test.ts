import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Answers } from "../../../src/cli/setup/answers.js";
import { isEmailAddress, isPhoneNumber, mergeAllowList, piiAllowProblem, readOwnDetails } from "../../../src/cli/setup/own-details.js";
import { piiAllowStep, type PiiStepTalk } from "../../../src/cli/setup/pii-step.js";
import { makeRedactor } from "../../../src/redact/redact.js";

// Issue 25 point 6: setup asks for the owner's own phone numbers and email addresses and writes PII_ALLOW.

describe("the owner's own details", () => {
  it("checks each value: phone numbers in common notations, email addresses as redaction finds them", () => {
    for (const phone of ["+61 412 345 678", "0412 345 678", "+44 (0) 20 7946 0958", "+1-415-555-0100"])
      expect(isPhoneNumber(phone), phone).toBe(true);
    for (const bad of ["12345", "+61 412 345 678 999 999", "call 0412 345 678", "owner@tao.example"])
      expect(isPhoneNumber(bad), bad).toBe(false);
    expect(isEmailAddress("owner@tao.example")).toBe(true);
    for (const bad of ["owner@", "@owner", "owner@tao", "a@b.io c@d.io", "+61 412 345 678"]) expect(isEmailAddress(bad), bad).toBe(false);
    expect(readOwnDetails(" +61 412 345 678 ; 0413 999 888,, 12 ", "phone")).toEqual({
      values: ["+61 412 345 678", "0413 999 888"],
      invalid: ["12"],
    });
    expect(readOwnDetails("", "email")).toEqual({ values: [], invalid: [] });
    expect(piiAllowProblem("+61 412 345 678, owner@tao.example")).toBeNull();
    expect(piiAllowProblem("+61 412 345 678, nope, 12")).toBe(
      '--pii-allow: "nope", "12" are no phone number (7 to 15 digits, + and spaces allowed) or email address',
    );
  });

  it("merges with an existing PII_ALLOW: a value it already allows, in any notation or case, is not added twice", () => {
    expect(mergeAllowList(undefined, ["+61 412 345 678", "owner@tao.example"])).toEqual({
      value: "+61 412 345 678,owner@tao.example",
      added: ["+61 412 345 678", "owner@tao.example"],
    });
    expect(
      mergeAllowList("+61412345678, Owner@Tao.example,@owner", [
        "0412 345 678",
        "owner@tao.example",
        "+44 20 7946 0958",
        "+44 20 7946 0958",
      ]),
    ).toEqual({
      value: "+61412345678,Owner@Tao.example,@owner,+44 20 7946 0958",
      added: ["+44 20 7946 0958"],
    });
  });

  it("what it writes keeps the owner's details in drafts, and only those", () => {
    const { value } = mergeAllowList(undefined, ["+61 412 345 678", "owner@tao.example"]);
    const redact = makeRedactor(value);
    expect(redact("Call 0412 345 678 or owner@tao.example; Sam is on 0413 999 888.").text).toBe(
      "Call 0412 345 678 or owner@tao.example; Sam is on [phone].",
    );
  });
});

/** A talk that answers `answers` in turn and records what was said. */
async function talk(over: Partial<PiiStepTalk>, answers: string[] = []): Promise<PiiStepTalk & { said: string[]; asked: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "pii-step-"));
  const said: string[] = [];
  const asked: string[] = [];
  return {
    said,
    asked,
    say: (text) => void said.push(text),
    ask: async (q) => {
      asked.push(q);
      return answers.shift() ?? "";
    },
    interactive: true,
    yes: false,
    noWrite: false,
    given: null,
    envValue: undefined,
    envPath: join(dir, ".env"),
    ...over,
  };
}

describe("setup's PII_ALLOW step", () => {
  it("asks for phone numbers and addresses, asks again after a value that is none, and writes after asking, keeping .env's other lines", async () => {
    const t = await talk({}, ["0412 345 678, 12", "+61 412 345 678", "Owner@Tao.example", ""]);
    await writeFile(t.envPath, "TELEGRAM_BOT_TOKEN=1:x\nPII_ALLOW=+61412345678\n");
    expect(await piiAllowStep(t)).toEqual({ added: 1, written: true });
    expect(t.asked).toEqual([
      "Your phone numbers, with country code (e.g. +61 412 345 678), comma-separated; Enter skips: ",
      "Your phone numbers, with country code (e.g. +61 412 345 678), comma-separated; Enter skips: ",
      "Your email addresses, comma-separated; Enter skips: ",
      `Write PII_ALLOW=+61412345678,Owner@Tao.example to ${t.envPath}? [Y/n] `,
    ]);
    expect(t.said).toContain('  Not a phone number (7 to 15 digits, + and spaces allowed): "12".');
    expect(await readFile(t.envPath, "utf8")).toBe("TELEGRAM_BOT_TOKEN=1:x\nPII_ALLOW=+61412345678,Owner@Tao.example\n");
  });

  it("takes a number and an email address typed together on the phone line, both, without asking again", async () => {
    const t = await talk({}, ["+61 412 345 678, owner@tao.example", "", "y"]);
    expect(await piiAllowStep(t)).toEqual({ added: 2, written: true });
    expect(t.asked).toEqual([
      "Your phone numbers, with country code (e.g. +61 412 345 678), comma-separated; Enter skips: ",
      "Your email addresses, comma-separated; Enter skips: ",
      `Write PII_ALLOW=+61 412 345 678,owner@tao.example to ${t.envPath}? [Y/n] `,
    ]);
    expect(await readFile(t.envPath, "utf8")).toContain("PII_ALLOW=+61 412 345 678,owner@tao.example\n");
  });

  it("skips on empty answers, leaves .env alone on 'n', and says so", async () => {
    const empty = await talk({}, ["", ""]);
    expect(await piiAllowStep(empty)).toEqual({ added: 0, written: false });
    await expect(readFile(empty.envPath, "utf8")).rejects.toThrow();

    const no = await talk({}, ["+61 412 345 678", "", "n"]);
    expect(await piiAllowStep(no)).toEqual({ added: 1, written: false });
    expect(no.said.at(-1)).toBe(`PII_ALLOW left as it is; to add them later, put this line in ${no.envPath}:\n  PII_ALLOW=+61 412 345 678`);
    await expect(readFile(no.envPath, "utf8")).rejects.toThrow();
  });

  it("without a terminal asks nothing and says how; --pii-allow writes with --yes, only prints with --no-write, changes nothing twice", async () => {
    const piped = await talk({ interactive: false });
    expect(await piiAllowStep(piped)).toEqual({ added: 0, written: false });
    expect(piped.asked).toEqual([]);
    expect(piped.said[0]).toMatch(/^PII_ALLOW: not asked \(stdin is not a terminal\)\. .*--pii-allow/);

    const given = await talk({ interactive: false, yes: true, given: "+61 412 345 678, owner@tao.example", envValue: "other@x.io" });
    expect(await piiAllowStep(given)).toEqual({ added: 2, written: true });
    expect(await readFile(given.envPath, "utf8")).toBe("PII_ALLOW=+61 412 345 678,owner@tao.example\n");
    expect(given.said.at(-1)).toMatch(/PII_ALLOW=other@x\.io is also set in the environment, which wins over \.env/);
    const again = await talk({ interactive: false, yes: true, given: "0412 345 678", envPath: given.envPath });
    expect(await piiAllowStep(again)).toEqual({ added: 0, written: false });
    expect(again.said).toEqual([`✓ PII_ALLOW in ${given.envPath} already has it.`]);

    const printed = await talk({ interactive: false, noWrite: true, given: "owner@tao.example" });
    expect(await piiAllowStep(printed)).toEqual({ added: 1, written: false });
    expect(printed.said.at(-1)).toBe(`--no-write: add this line to ${printed.envPath} yourself:\n  PII_ALLOW=owner@tao.example`);
    expect(await piiAllowStep(await talk({ given: "nope" }))).toEqual({ refused: expect.stringMatching(/^--pii-allow: "nope"/) });
  });
});

describe("Answers", () => {
  it("gives one line per question, also lines typed ahead, and '' once input ends", async () => {
    const input = new PassThrough();
    const answers = new Answers(input);
    input.write("first\nsecond\n");
    expect(await answers.next()).toBe("first");
    expect(await answers.next()).toBe("second");
    const third = answers.next();
    input.end("third\n");
    expect(await third).toBe("third");
    expect(await answers.next()).toBe("");
    answers.close();
  });
});
