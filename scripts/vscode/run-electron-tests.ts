// npm run test:electron: the same in-host suite in desktop VS Code via @vscode/test-electron,
// where desktop VS Code can be downloaded (not on the team's sandboxed machines: there, use
// `npm run test:vscode`, which runs the suite in code-server). Not part of `npm test`.
//   tsx scripts/vscode/run-electron-tests.ts [--workspace DIR] [--version 1.100.3|stable]
import { runTests } from "@vscode/test-electron";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildSuite, REPO_ROOT, SUITE_INDEX } from "./build-suite";
import { printResults, STRAY_ENV } from "./in-host";
import type { InHostResults } from "../../test/vscode/support/results";

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<number> {
  await buildSuite();
  const scratch = mkdtempSync(join(tmpdir(), "tr-electron-"));
  const workspace = resolve(flag("--workspace") ?? join(scratch, "workspace"));
  mkdirSync(workspace, { recursive: true });
  const resultsFile = join(scratch, "results.json");
  const env: Record<string, string | undefined> = { TICKET_RUNNER_TEST_RESULTS: resultsFile };
  for (const name of STRAY_ENV) env[name] = undefined;
  try {
    const code = await runTests({
      // The same release code-server runs here; override with --version stable.
      version: flag("--version") ?? "1.100.3",
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: SUITE_INDEX,
      extensionTestsEnv: env,
      launchArgs: [
        workspace,
        "--disable-extensions", // other installed extensions; ours still loads as the development one
        "--disable-workspace-trust",
        "--skip-welcome",
        "--skip-release-notes",
        `--user-data-dir=${join(scratch, "user-data")}`,
      ],
    }).catch((e: unknown) => {
      console.error(`test-electron: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    });
    if (existsSync(resultsFile)) printResults(JSON.parse(readFileSync(resultsFile, "utf8")) as InHostResults);
    return code;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
