import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

// No import cycle anywhere in src/ (the sandbox and the demo included), type-only imports
// included: a cycle means two files each need the other, so neither can be read, moved or tested
// alone.
const SRC = path.resolve(__dirname, "../../../src");
// `import … from`, `import type … from`, `export … from` (over several lines too), a side-effect
// `import "./x"`, and `import("./x")`.
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.{1,2}\/[^"]+)"|import\(\s*"(\.{1,2}\/[^"]+)"\s*\)|(?:^|\n)\s*import\s+"(\.{1,2}\/[^"]+)"/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, "index.ts"), base]) if (candidate.endsWith(".ts") && existsSync(candidate)) return candidate;
  return null;
}

export function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const deps = [...text.matchAll(SPECIFIER)].map((m) => resolveImport(file, (m[1] ?? m[2] ?? m[3])!)).filter((d): d is string => d !== null);
    graph.set(file, [...new Set(deps)]);
  }
  return graph;
}

/** Tarjan's strongly connected components of more than one file (or a file importing itself). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) !== indexOf.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

describe("lint: no import cycles in src/", () => {
  it("finds a cycle when there is one (the check can fail)", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    assert.deepEqual(cycles(graph), [["a", "b", "c"]]);
    assert.deepEqual(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
      [],
    );
  });

  it("reads every kind of import from real files, so a planted cycle is found", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "import-cycles-"));
    try {
      const files: Record<string, string> = {
        // a -> b by a type-only import, b -> a by an import over several lines: one cycle.
        "a.ts": 'import type { B } from "./b";\nexport type A = B;\n',
        "b.ts": 'import {\n  type A,\n} from "./a";\nexport type B = { a?: A };\n',
        // c -> d by a re-export, d -> c by a dynamic import: another.
        "c.ts": 'export { d } from "./d";\n',
        "d.ts": 'export const d = () => import("./c");\n',
        // e -> sub/f by a side-effect import, sub/f -> e: a third, across folders.
        "e.ts": 'import "./sub/f";\n',
        "sub/f.ts": 'import { g } from "../e";\nexport const f = g;\n',
        // No cycle: h imports a, nothing imports h.
        "h.ts": 'import type { A } from "./a";\nexport type H = A;\n',
      };
      for (const [name, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        writeFileSync(path.join(dir, name), text);
      }
      const found = cycles(importGraph(Object.keys(files).map((f) => path.join(dir, f)))).map((c) => c.map((f) => path.relative(dir, f)));
      assert.deepEqual(found.sort(), [
        ["a.ts", "b.ts"],
        ["c.ts", "d.ts"],
        ["e.ts", "sub/f.ts"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("src/ has none, the sandbox and type-only imports included", () => {
    const graph = importGraph(sourceFiles(SRC));
    assert.ok(graph.size > 100, `read ${graph.size} files`);
    const found = cycles(graph).map((c) => c.map((f) => path.relative(SRC, f)).join(" -> "));
    assert.deepEqual(found, [], `import cycles:\n${found.join("\n")}`);
  });
});
