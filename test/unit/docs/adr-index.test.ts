/**
 * docs/adr/README.md indexes every ADR by area (with its status), so a new engineer finds the
 * decisions of the room they are in. An ADR without a row fails here, before it lands.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ADR_DIR = join(__dirname, "..", "..", "..", "docs", "adr");

describe("docs/adr/README.md, the ADR index", function () {
  it("has a row linking every ADR in docs/adr/", function () {
    const index = readFileSync(join(ADR_DIR, "README.md"), "utf8");
    const linked = new Set([...index.matchAll(/\]\((\d{4}-[^)]+\.md)\)/g)].map((m) => m[1]));
    const missing = readdirSync(ADR_DIR).filter((name) => /^\d{4}-.+\.md$/.test(name) && !linked.has(name));
    assert.deepEqual(missing, [], `add a row for each of these to docs/adr/README.md, under its area (number, title, status): ${missing.join(", ")}`);
  });

  it("links no ADR that is not there", function () {
    const index = readFileSync(join(ADR_DIR, "README.md"), "utf8");
    const present = new Set(readdirSync(ADR_DIR));
    const dangling = [...index.matchAll(/\]\((\d{4}-[^)]+\.md)\)/g)].map((m) => m[1]!).filter((name) => !present.has(name));
    assert.deepEqual(dangling, []);
  });
});
