// The in-host test entry: VS Code calls run() INSIDE the extension host (extensionTestsPath), with
// the full `vscode` API. It runs mocha over every compiled *.test.js next to it and writes the
// results as JSON to $TICKET_RUNNER_TEST_RESULTS, which the launcher waits for: nothing else
// reports back from a code-server extension host.
import Mocha from "mocha";
import { readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { figures } from "../support/figures";
import type { InHostResults, InHostTestResult } from "../support/results";

export async function run(): Promise<void> {
  const started = Date.now();
  const grep = process.env["TICKET_RUNNER_TEST_GREP"];
  const mocha = new Mocha({ ui: "bdd", color: false, timeout: 60_000, reporter: "spec", ...(grep ? { grep } : {}) });
  for (const file of testFiles(__dirname)) mocha.addFile(file);

  const results: InHostResults = { passes: [], failures: [], pending: [], figures: {}, durationMs: 0 };
  const entry = (t: Mocha.Runnable): InHostTestResult => ({ title: t.fullTitle(), file: t.file ?? "", durationMs: t.duration ?? 0 });

  let failures = 0;
  try {
    failures = await new Promise<number>((resolve) => {
      const runner = mocha.run((n) => resolve(n));
      runner.on("pass", (t) => results.passes.push(entry(t)));
      runner.on("pending", (t) => results.pending.push(entry(t)));
      runner.on("fail", (t, err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        results.failures.push({ ...entry(t), message: e.message, stack: e.stack ?? "" });
      });
    });
  } catch (e) {
    // A test file that throws while loading lands here, not in a `fail` event.
    const err = e instanceof Error ? e : new Error(String(e));
    results.failures.push({ title: "loading the suite", file: "", durationMs: 0, message: err.message, stack: err.stack ?? "" });
    failures += 1;
  }
  results.figures = { ...figures() };
  results.durationMs = Date.now() - started;
  writeResults(results);
  if (failures > 0) throw new Error(`${failures} in-host test(s) failed`);
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const ent of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, ent.name);
    if (ent.isDirectory()) out.push(...testFiles(path));
    else if (ent.name.endsWith(".test.js")) out.push(path);
  }
  return out.sort();
}

function writeResults(results: InHostResults): void {
  const file = process.env["TICKET_RUNNER_TEST_RESULTS"];
  if (!file) return;
  // Write then rename, so the launcher never reads half a file.
  writeFileSync(`${file}.partial`, JSON.stringify(results, null, 2));
  renameSync(`${file}.partial`, file);
}
