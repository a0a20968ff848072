/**
 * docs/architecture.md is the map of every room: each path it names is in the tree, and each room
 * of src/ (its folders, two levels down) is on the map. A move that forgets the map fails here.
 */
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..", "..");
const MAP = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");

/** `src/…`, `test/…`, `bench/…`, `scripts/…` in backticks, without globs or placeholders. */
function namedPaths(): string[] {
  return [...MAP.matchAll(/`((?:src|test|bench|scripts)\/[^`\s]*)`/g)].map((m) => m[1]!).filter((p) => !/[*<>{}]/.test(p));
}

function rooms(): string[] {
  const out: string[] = [];
  for (const top of readdirSync(join(ROOT, "src"), { withFileTypes: true })) {
    if (!top.isDirectory()) continue;
    out.push(`src/${top.name}/`);
    for (const sub of readdirSync(join(ROOT, "src", top.name), { withFileTypes: true })) if (sub.isDirectory()) out.push(`src/${top.name}/${sub.name}/`);
  }
  return out;
}

describe("docs/architecture.md, the map of every room", () => {
  it("names only paths that are in the tree", () => {
    const paths = namedPaths();
    assert.ok(paths.length > 50, `read ${paths.length} paths`);
    assert.deepEqual(
      paths.filter((p) => !existsSync(join(ROOT, p.replace(/\/$/, "")))),
      [],
      "fix these rows of docs/architecture.md (the file moved, or was renamed or deleted)",
    );
  });

  it("has every room of src/ on it", () => {
    const named = namedPaths();
    const missing = rooms().filter((room) => !named.some((p) => p.startsWith(room)));
    assert.deepEqual(missing, [], "add a row for each of these rooms to docs/architecture.md");
  });
});
