import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";

// No import cycle in the product's code (src/ but the sandbox, the local GitHub for tests and the
// demo), type-only imports included: a cycle means two files each need the other, so neither can
// be read, moved or tested alone.
const SRC = path.resolve(__dirname, "../../../src");
const SANDBOX = path.join(SRC, "sandbox");
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.{1,2}\/[^"]+)"|import\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return full === SANDBOX ? [] : sourceFiles(full);
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
    const deps = [...text.matchAll(SPECIFIER)].map((m) => resolveImport(file, (m[1] ?? m[2])!)).filter((d): d is string => d !== null);
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

describe("lint: no import cycles in the product's code", () => {
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

  it("src/ (but src/sandbox) has none, type-only imports included", () => {
    const graph = importGraph(sourceFiles(SRC));
    assert.ok(graph.size > 100, `read ${graph.size} files`);
    const found = cycles(graph).map((c) => c.map((f) => path.relative(SRC, f)).join(" -> "));
    assert.deepEqual(found, [], `import cycles:\n${found.join("\n")}`);
  });
});
