// npm run test:vscode (part 2): the extension as a person gets it, driven like a person would.
// 1. packs a .vsix and installs it into a fresh extensions folder with code-server's own
//    --install-extension (the proof that `npm run package` output installs);
// 2. opens code-server in headless Chromium, clicks the Ticket Runner activity-bar item, runs
//    "Ticket Runner: Refresh" from the Command Palette (F1) and checks the Board view shows;
// 3. saves test-results/ui-board-open.png;
// 4. the Run end to end in the same packaged extension (ui-run-e2e.ts): Start from the palette,
//    the ticket spinning under Running here, its transcript, Stop from the status bar
//    (test-results/e2e-*.png).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { installVsix, listExtensions, startCodeServer, tail, type CodeServer } from "./code-server";
import { launchChromium } from "./chromium";
import { REPO_ROOT } from "./build-suite";
import { STRAY_ENV } from "./in-host";
import { packVsix } from "./vsix";
import { runRunE2E } from "./ui-run-e2e";

const EXTENSION_ID = "ticket-runner.ticket-runner";
const SHOTS = join(REPO_ROOT, "test-results");
const STEP_TIMEOUT_MS = 60_000;

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const value = await fn();
  console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
  return value;
}

async function runCommandFromPalette(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input.input");
  await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT_MS });
  await input.fill(`>${title}`);
  // The row must say exactly this command before Enter, or Enter would run whatever is first.
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: STEP_TIMEOUT_MS });
  await page.keyboard.press("Enter");
  await page.locator(".quick-input-widget").waitFor({ state: "hidden", timeout: STEP_TIMEOUT_MS });
}

async function main(): Promise<void> {
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), "tr-ui-"));
  const extensionsDir = join(scratch, "extensions");
  const userDataDir = join(scratch, "user-data");
  const workspace = join(scratch, "workspace");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(SHOTS, { recursive: true });
  let server: CodeServer | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page | undefined;
  console.log("ui: the packaged extension in code-server, driven by Playwright");
  try {
    const vsix = join(scratch, "ticket-runner.vsix");
    await step("vsce package makes a .vsix", async () => void packVsix(vsix));
    await step("code-server --install-extension installs it", async () => {
      installVsix(vsix, extensionsDir, userDataDir);
      const listed = listExtensions(extensionsDir, userDataDir);
      if (!listed.some((l) => l.startsWith(`${EXTENSION_ID}@`))) throw new Error(`${EXTENSION_ID} not listed after install: ${listed.join(", ") || "(none)"}`);
    });

    server = await step("code-server starts", () => startCodeServer({ extensionsDir, userDataDir, unsetEnv: STRAY_ENV }));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const p = page;
    await step("the workbench loads", async () => {
      await p.goto(`${server!.url}/?folder=${encodeURIComponent(workspace)}`);
      await p.locator(".monaco-workbench").waitFor({ timeout: STEP_TIMEOUT_MS });
    });

    await step("clicking the Ticket Runner activity-bar item opens the container", async () => {
      const item = p.locator('.part.activitybar [aria-label="Ticket Runner"]').first();
      await item.waitFor({ timeout: STEP_TIMEOUT_MS });
      await item.click();
      await p.locator(".part.sidebar .composite.title", { hasText: /Ticket Runner/i }).waitFor({ timeout: STEP_TIMEOUT_MS });
    });

    await step('"Ticket Runner: Refresh" runs from the Command Palette', () => runCommandFromPalette(p, "Ticket Runner: Refresh"));

    await step("the Board view shows its signed-out welcome with a Sign In button", async () => {
      const sidebar = p.locator(".part.sidebar");
      await sidebar.locator(".welcome-view-content", { hasText: "Sign in to GitHub" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      await sidebar.getByRole("button", { name: "Sign In" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      const errors = await p.locator(".notifications-toasts .notification-list-item", { hasText: /failed|error/i }).count();
      if (errors > 0) throw new Error(`an error notification is showing after Refresh`);
    });

    await step("screenshot test-results/ui-board-open.png", () => p.screenshot({ path: join(SHOTS, "ui-board-open.png") }));
    await browser.close();
    browser = undefined;
    await server.stop();
    server = undefined;
    await runRunE2E(extensionsDir);
    console.log(`ui: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (e) {
    await page?.screenshot({ path: join(SHOTS, "ui-failure.png") }).catch(() => undefined);
    console.error(`ui: FAILED (screenshot: test-results/ui-failure.png): ${e instanceof Error ? e.message : String(e)}`);
    if (server) console.error(`--- code-server log ---\n${tail(server.logFile)}`);
    process.exitCode = 1;
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

void main();
