// Child process of crash.test.ts: appends records in a loop until SIGKILLed,
// printing "ack <draft_id> <version>" for every record once its append resolved.
// argv: <URL of a compiled jsonl-store.js> <store path> <compactAfterLines>
import { crashRecordText } from "./crash-record.mjs";

const [storeModule, path, compactAfter] = process.argv.slice(2);
const { JsonlStore } = await import(storeModule);

const parse = (v) => {
  if (typeof v?.draft_id !== "string" || !Number.isInteger(v.version) || v.text !== crashRecordText(v.draft_id, v.version)) {
    throw new Error(`unexpected record ${JSON.stringify(v).slice(0, 200)}`);
  }
  return v;
};
const log = { warn: (o, m) => process.stderr.write(`${JSON.stringify({ msg: m, ...o })}\n`), info: () => {} };
const store = await JsonlStore.open({ path, parse, log, compactAfterLines: Number(compactAfter) });

const IDS = 16;
const versions = new Map([...store.latest].map(([id, r]) => [id, r.version]));
process.stdout.write(`ready ${store.lineCount}\n`);

async function writer() {
  for (;;) {
    const batch = [];
    // Mostly small batches; now and then a large one (~0.5 MB), which a kill can tear mid-write.
    const n = Math.random() < 0.03 ? 1000 : 1 + Math.floor(Math.random() * 4);
    for (let i = 0; i < n; i++) {
      const id = `d${Math.floor(Math.random() * IDS)}`;
      const version = (versions.get(id) ?? 0) + 1;
      versions.set(id, version);
      batch.push({ draft_id: id, version, text: crashRecordText(id, version) });
    }
    await store.append(batch); // versions are submitted in order, so they land in order
    process.stdout.write(batch.map((r) => `ack ${r.draft_id} ${r.version}\n`).join(""));
  }
}

// Several concurrent writers, so appends overlap and get group-committed.
await Promise.all([writer(), writer(), writer(), writer()]);
