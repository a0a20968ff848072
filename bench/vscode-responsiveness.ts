// npm run bench:vscode: is the extension host still responsive while a demo agent floods it?
// Runs the in-host responsiveness test (test/vscode/suite/run.test.ts, "stays responsive") in a real
// VS Code (code-server) against the sandbox: a narrowed Run on one ticket whose demo agent emits
// 20,000 stream events in 10 s, while the test times command round trips (executeCommand
// "setContext": extension host -> workbench -> extension host). The baseline is the same round trip
// measured idle, in the same run, just before the burst. Prints the figures and their ratio.
import { printResults, runInHostTests } from "../scripts/vscode/in-host";
import { setup } from "../test/vscode/support/run-setup";

async function main(): Promise<number> {
  const s = await setup();
  try {
    const { results, ok } = await runInHostTests({ workspace: s.workspace, env: s.env, grep: "stays responsive", timeoutMs: 240_000 });
    printResults(results);
    const f = results.figures;
    const idle = f["round trip idle p50"]?.value;
    const p95 = f["round trip during 20k-event burst p95"]?.value;
    if (idle !== undefined && p95 !== undefined) {
      console.log(`\nbench:vscode  round trip idle p50 ${idle} ms · during the burst p95 ${p95} ms, max ${f["round trip during 20k-event burst max"]?.value} ms · ratio p95/idle ${(p95 / Math.max(0.1, idle)).toFixed(1)}x`);
    }
    return ok ? 0 : 1;
  } finally {
    await s.teardown();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
