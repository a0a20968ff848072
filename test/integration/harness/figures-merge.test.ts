/**
 * Reliability figures from processes that flush at once (mocha's parallel workers, ADR 0320) all
 * land in the one figures file: none is dropped by another's read-modify-write, none is read torn.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { makeTempDir } from "../../support/git-fixtures";

const ROOT = path.resolve(__dirname, "../../..");
const FIGURES = path.join(ROOT, "test/reliability/support/figures.ts");
const WRITERS = 4;
const FLUSHES = 40;

/** One writer: FLUSHES flushes of a row each, as fast as it can. */
function writer(n: number, file: string): Promise<number | null> {
  const script = `
    const { record, flushFigures } = require(${JSON.stringify(FIGURES)});
    for (let k = 0; k < ${FLUSHES}; k++) {
      record("w${n}-" + k, { what: "a row", test: "figures-merge", losses: 0 });
      flushFigures(() => undefined);
    }`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--require", "tsx/cjs", "-e", script], {
      cwd: ROOT,
      env: { ...process.env, TR_RELIABILITY_FIGURES: file },
      stdio: "inherit",
    });
    child.on("close", (code) => resolve(code));
  });
}

describe("reliability figures flushed by several processes at once", function () {
  let dir: string;
  before(async () => {
    dir = await makeTempDir("tr-figures-");
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it(`keeps every row of ${WRITERS} writers flushing ${FLUSHES} times each`, async function () {
    this.timeout(120_000);
    const file = path.join(dir, "figures.json");
    const codes = await Promise.all(Array.from({ length: WRITERS }, (_, n) => writer(n, file)));
    assert.deepEqual(codes, Array(WRITERS).fill(0));
    const rows = Object.keys(JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>);
    const missing = Array.from({ length: WRITERS * FLUSHES }, (_, i) => `w${Math.floor(i / FLUSHES)}-${i % FLUSHES}`).filter((id) => !rows.includes(id));
    assert.deepEqual(missing, [], `${missing.length} of ${WRITERS * FLUSHES} rows lost`);
  });
});
