// Runs the in-host mocha suite inside a real VS Code extension host (code-server), the way
// @vscode/test-electron does with desktop VS Code: headless Chromium opens the workbench with an
// extensionDevelopmentPath + extensionTestsPath payload; the suite writes its results to a file
// this waits for. Always stops the browser and code-server it started, by pid.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startCodeServer, tail, type CodeServer } from "./code-server";
import { launchChromium, openCodeServerPage } from "./chromium";
import { buildSuite, privateSuiteOut, REPO_ROOT } from "./build-suite";
import type { InHostResults } from "../../test/vscode/support/results";
import { startWorkbenchProbe, WORKBENCH_PROFILE_DIR, type WorkbenchProbe } from "./workbench-probe";

/** Environment a developer's shell may carry that would change what the suite sees. */
export const STRAY_ENV = ["TICKET_RUNNER_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "TICKET_RUNNER_API_URL", "TICKET_RUNNER_TEST_GREP"];

export interface InHostOptions {
  /** The folder (or `.code-workspace` file) the workbench opens. Default: a fresh empty temp folder. */
  workspace?: string;
  /** Extra environment for the extension host (e.g. TICKET_RUNNER_API_URL of a sandbox). */
  env?: Record<string, string>;
  /** Only tests whose full title matches. */
  grep?: string;
  /** Overall deadline for the suite. Default 300 s. */
  timeoutMs?: number;
  /** Where failure screenshots and the browser console go. Default test-results/. */
  artifactsDir?: string;
  /** Workspace Trust on, so the folder opens in Restricted Mode (the untrusted suite). */
  workspaceTrust?: boolean;
}

export interface InHostRun {
  results: InHostResults;
  ok: boolean;
}

/** A folder opens as `?folder=`; a `.code-workspace` file as `?workspace=` (a multi-root window). */
export function workbenchUrl(server: CodeServer, folder: string, payload: [string, string][]): string {
  const kind = folder.endsWith(".code-workspace") ? "workspace" : "folder";
  return `${server.url}/?${kind}=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

export async function runInHostTests(opts: InHostOptions = {}): Promise<InHostRun> {
  const suiteOut = privateSuiteOut();
  const files = await buildSuite(suiteOut);
  if (!existsSync(join(REPO_ROOT, "dist", "extension.js"))) throw new Error("dist/extension.js is missing: run `npm run build` first");
  const scratch = mkdtempSync(join(tmpdir(), "tr-in-host-"));
  const workspace = resolve(opts.workspace ?? join(scratch, "workspace"));
  if (!workspace.endsWith(".code-workspace")) mkdirSync(workspace, { recursive: true });
  const resultsFile = join(scratch, "results.json");
  const artifacts = opts.artifactsDir ?? join(REPO_ROOT, "test-results");
  const timeoutMs = opts.timeoutMs ?? 300_000;
  const consoleLines: string[] = [];
  console.log(`in-host: ${files} test file(s), workspace ${workspace}`);

  let server: CodeServer | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let probe: WorkbenchProbe | undefined;
  try {
    server = await startCodeServer({
      unsetEnv: STRAY_ENV,
      // The host's floor for an activation, timed beside ours by activation.test.ts (ADR 0300).
      installFolders: [join(REPO_ROOT, "test", "vscode", "activation-floor")],
      ...(opts.workspaceTrust ? { workspaceTrust: true } : {}),
      env: { ...opts.env, TICKET_RUNNER_TEST_RESULTS: resultsFile, ...(opts.grep ? { TICKET_RUNNER_TEST_GREP: opts.grep } : {}) },
    });
    console.log(`in-host: code-server pid ${server.pid} at ${server.url}`);
    const remote = (path: string): string => `vscode-remote://127.0.0.1:${server!.port}${path}`;
    const url = workbenchUrl(server, workspace, [
      ["extensionDevelopmentPath", remote(REPO_ROOT)],
      ["extensionTestsPath", remote(join(suiteOut, "index.js"))],
    ]);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("console", (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    page.on("pageerror", (e) => consoleLines.push(`[pageerror] ${e.message}`));
    if (WORKBENCH_PROFILE_DIR) probe = await startWorkbenchProbe(page, WORKBENCH_PROFILE_DIR);
    await openCodeServerPage(page, url, server.password);

    const deadline = Date.now() + timeoutMs;
    while (!existsSync(resultsFile)) {
      if (Date.now() > deadline) {
        mkdirSync(artifacts, { recursive: true });
        await page.screenshot({ path: join(artifacts, "in-host-timeout.png") }).catch(() => undefined);
        throw new Error(
          `in-host: no results within ${timeoutMs / 1000} s (screenshot: test-results/in-host-timeout.png)\n` +
            `--- code-server log ---\n${tail(server.logFile)}\n--- browser console ---\n${consoleLines.slice(-40).join("\n")}`,
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const results = JSON.parse(readFileSync(resultsFile, "utf8")) as InHostResults;
    if (results.failures.length > 0) keepExtensionLog(server.userDataDir, artifacts);
    return { results, ok: results.failures.length === 0 && results.passes.length > 0 };
  } finally {
    if (consoleLines.length) {
      mkdirSync(artifacts, { recursive: true });
      writeFileSync(join(artifacts, "in-host-console.log"), consoleLines.join("\n") + "\n");
    }
    await probe?.stop().catch((e: unknown) => console.log(`in-host: the workbench probe failed: ${String(e)}`));
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (process.env["TICKET_RUNNER_KEEP_TEMP"] !== "1") {
      rmSync(scratch, { recursive: true, force: true });
      rmSync(suiteOut, { recursive: true, force: true });
    }
  }
}

/**
 * A failed test's why is often only in the extension's own log (a skipped ticket's reason, a
 * warning): keep it under test-results/ and print its tail, so a CI log alone can explain a failure.
 */
function keepExtensionLog(userDataDir: string, artifacts: string): void {
  const logs = join(userDataDir, "logs");
  const found = existsSync(logs)
    ? readdirSync(logs, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(join("ticket-runner.ticket-runner", "Ticket Runner.log")))
    : [];
  for (const [i, rel] of found.entries()) {
    const file = join(logs, rel);
    mkdirSync(artifacts, { recursive: true });
    const kept = join(artifacts, `in-host-extension-${i + 1}.log`);
    copyFileSync(file, kept);
    console.log(`--- the extension's log (last 60 lines; all of it in ${kept}) ---\n${tail(file, 60)}\n---`);
  }
}

export function printResults(results: InHostResults): void {
  const byFile = new Map<string, string[]>();
  const line = (file: string, text: string): void => void byFile.set(file, [...(byFile.get(file) ?? []), text]);
  for (const t of results.passes) line(t.file, `  ✓ ${t.title} (${t.durationMs} ms)`);
  for (const t of results.pending) line(t.file, `  - ${t.title} (pending)`);
  for (const t of results.failures) line(t.file, `  ✗ ${t.title}\n      ${t.message.split("\n").join("\n      ")}`);
  for (const [file, lines] of byFile) console.log(`${file.replace(/^.*\/suite\//, "")}\n${lines.join("\n")}`);
  for (const [name, f] of Object.entries(results.figures)) console.log(`figure: ${name}: ${f.value} ${f.unit}`);
  if (results.failures.length) {
    console.log("\nfailures:");
    for (const t of results.failures) console.log(`✗ ${t.title}\n${t.stack}\n`);
  }
  console.log(
    `\n${results.passes.length} passing, ${results.failures.length} failing, ${results.pending.length} pending (${(results.durationMs / 1000).toFixed(1)} s in the host)`,
  );
}
