/**
 * docs/refusals.md against the code: its generated list is exactly what the code says today, and
 * its table has a row for every reason a refusal in src/ gives.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { findRefusals, refreshedDoc, REFUSALS_DOC } from "../../scripts/refusals-doc";

describe("docs/refusals.md", () => {
  const doc = readFileSync(REFUSALS_DOC, "utf8");

  it("lists every refusal's text exactly as the code has it, once (else: npm run docs:refusals)", () => {
    assert.equal(refreshedDoc(doc), doc, "docs/refusals.md is out of date with src/: run `npm run docs:refusals` and commit it");
  });

  it("has a row in its table for every reason the code gives", () => {
    const reasons = new Set(
      findRefusals()
        .map((r) => r.reason)
        .filter((r) => /^[a-z-]+$/.test(r)),
    );
    assert.ok(reasons.size >= 10, [...reasons].join(", "));
    for (const reason of reasons) assert.match(doc, new RegExp(`^\\| \`${reason}\` \\|`, "m"), `no table row for ${reason}`);
  });

  it("each text is listed once", () => {
    const blocks = doc
      .split("```text")
      .slice(1)
      .map((b) => b.split("```")[0]!.trim());
    assert.equal(new Set(blocks).size, blocks.length);
  });
});
