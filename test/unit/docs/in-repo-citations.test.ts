import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";

// Comments, test titles and docs cite documents a reader of this repository can open (a doc, an
// ADR, a file), never a tracker issue, a finding of a review kept elsewhere, or the documents the
// project was started from (CONTRIBUTING.md, "Add a decision").
const ROOT = path.resolve(__dirname, "../../..");
const FOLDERS = ["src", "test", "docs", "scripts", "bench", ".ci"];
const FILES = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "eslint.config.mjs", "esbuild.mjs"];
const SKIP = new Set(["node_modules", "fixtures"]);
const OUTSIDE = /\bissue #?\d+\b|\bfindings? \d+\b|\bBRIEF\.md\b|\bthe brief\b|\.\.\/shared\/|\/work\/shared\b|\bseed documents?\b/i;
// In code only what a person reads as prose: comments and test titles (issue numbers in test data are data).
const PROSE = /^\s*(\/\/|\/\*|\*)|\b(it|describe)\(\s*["'`]/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return /\.(ts|mts|mjs|js|md|sh)$/.test(e.name) || !e.name.includes(".") ? [full] : [];
  });
}

/** Each line of `text` that cites a document outside the repository, as `file:line: text`. */
export function outsideCitations(file: string, text: string): string[] {
  const prose = file.endsWith(".md");
  return text.split("\n").flatMap((line, i) => ((prose || PROSE.test(line)) && OUTSIDE.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe("docs: comments and docs cite documents in this repository", () => {
  it("finds a cited tracker issue, review finding or outside document (the check can fail)", () => {
    assert.equal(outsideCitations("a.md", "As issue #15 asks.\nSee ADR 0220.").length, 1);
    assert.equal(outsideCitations("a.ts", '// finding 7 of the review\nit("refuses (issue 19)", () => {});\nconst x = 1;').length, 2);
    assert.equal(outsideCitations("a.ts", "/** See the brief. */").length, 1);
    assert.deepEqual(outsideCitations("a.ts", 'assert.deepEqual(skipped, ["run.json names issue #8, not #7"]);\n// See docs/claims.md.'), []);
  });

  it("none in src, test, docs, scripts, bench, CI, README, CONTRIBUTING or CHANGELOG", () => {
    const all = [...FOLDERS.flatMap((d) => files(path.join(ROOT, d))), ...FILES.map((f) => path.join(ROOT, f))];
    assert.ok(all.length > 300, `read ${all.length} files`);
    const found = all.flatMap((f) => outsideCitations(path.relative(ROOT, f), readFileSync(f, "utf8")));
    assert.deepEqual(found, [], `cite a doc, an ADR or a file in the repository instead:\n${found.join("\n")}`);
  });
});
