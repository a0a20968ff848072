// The board as a person sees it: a seeded sandbox with every marker kind, the extension in
// code-server, driven by Playwright in headless Chromium. Saves
//   test-results/board-markers.png   the Board with every marker kind, sections and Run column
//   test-results/board-tooltip.png   a claimed ticket's tooltip (lease details and links)
//   test-results/board-error.png     the error row after GitHub fails, with the board kept
// Run: npm run build && tsx scripts/vscode/ui-board.ts
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { SandboxAdmin } from "../../src/sandbox/admin-client";
import { setup, BOARD_SEED_ENV, type BoardSeedInfo } from "../../test/vscode/support/board-setup";
import { REPO_ROOT } from "./build-suite";
import { launchChromium } from "./chromium";
import { startCodeServer, tail, type CodeServer } from "./code-server";
import { STRAY_ENV, workbenchUrl } from "./in-host";

const SHOTS = join(REPO_ROOT, "test-results");
const TIMEOUT = 60_000;

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const value = await fn();
  console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
  return value;
}

function row(page: Page, text: string | RegExp) {
  return page.locator(".part.sidebar .monaco-list-row", { hasText: text }).first();
}

async function main(): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const env = await setup({ everyMarker: true });
  const seed = JSON.parse(env.env[BOARD_SEED_ENV] ?? "{}") as BoardSeedInfo;
  let server: CodeServer | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page | undefined;
  console.log("ui-board: every marker kind on the Board, in code-server");
  try {
    server = await step("code-server starts with the sandbox's URL and token", () => startCodeServer({ unsetEnv: STRAY_ENV, env: env.env }));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
    const p = page;
    const url = workbenchUrl(server, env.workspace, [["extensionDevelopmentPath", `vscode-remote://127.0.0.1:${server.port}${REPO_ROOT}`]]);
    await step("the workbench loads", async () => {
      await p.goto(url);
      await p.locator(".monaco-workbench").waitFor({ timeout: TIMEOUT });
    });
    await step("the Ticket Runner container opens", async () => {
      const item = p.locator('.part.activitybar [aria-label^="Ticket Runner"]').first();
      await item.waitFor({ timeout: TIMEOUT });
      await item.click();
    });
    await step("the board loads every section", async () => {
      for (const title of ["Running here", "Claimed elsewhere", "Stale", "Frontier (ready)", "Blocked", "Needs a person", "Stranded"]) await row(p, title).waitFor({ timeout: TIMEOUT });
      await row(p, "● desk · implement").waitFor({ timeout: TIMEOUT });
    });
    await step("the sidebar is widened so the Run column shows in full", async () => {
      const box = await p.locator(".part.sidebar").boundingBox();
      if (!box) throw new Error("no sidebar");
      await p.mouse.move(box.x + box.width + 1, box.y + box.height / 2);
      await p.mouse.down();
      await p.mouse.move(box.x + 900, box.y + box.height / 2, { steps: 10 });
      await p.mouse.up();
    });
    await step("screenshot test-results/board-markers.png", async () => {
      await p.mouse.move(1400, 850); // no hover
      await p.waitForTimeout(300); // let the sash settle; a picture, not a test condition
      await p.screenshot({ path: join(SHOTS, "board-markers.png") });
    });
    await step("hovering a claim shows the lease tooltip: test-results/board-tooltip.png", async () => {
      await row(p, "◌ laptop-2").hover();
      await p.locator(".monaco-hover, .workbench-hover", { hasText: "Open the lease comment" }).first().waitFor({ timeout: TIMEOUT });
      await p.screenshot({ path: join(SHOTS, "board-tooltip.png") });
    });
    await step("a failed fetch shows the error row and keeps the board: test-results/board-error.png", async () => {
      const admin = new SandboxAdmin(seed.apiUrl, seed.adminToken);
      await admin.setFaults({ errorRate: 1, errorRoutes: "^POST /graphql", errorStatus: 502 });
      try {
        await p.mouse.move(1400, 850);
        await p.keyboard.press("F1");
        const input = p.locator(".quick-input-widget input.input");
        await input.waitFor({ state: "visible", timeout: TIMEOUT });
        await input.fill(">Ticket Runner: Refresh");
        await p.locator(".quick-input-list .monaco-list-row", { hasText: "Ticket Runner: Refresh" }).first().waitFor({ timeout: TIMEOUT });
        await p.keyboard.press("Enter");
        await row(p, "Couldn't refresh the board").waitFor({ timeout: TIMEOUT });
        await row(p, "Frontier (ready)").waitFor({ timeout: TIMEOUT });
        await p.screenshot({ path: join(SHOTS, "board-error.png") });
      } finally {
        await admin.setFaults({});
      }
    });
    console.log("ui-board: passed");
  } catch (e) {
    await page?.screenshot({ path: join(SHOTS, "ui-board-failure.png") }).catch(() => undefined);
    console.error(`ui-board: FAILED (screenshot: test-results/ui-board-failure.png): ${e instanceof Error ? e.message : String(e)}`);
    if (server) console.error(`--- code-server log ---\n${tail(server.logFile)}`);
    process.exitCode = 1;
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    await env.teardown();
  }
}

void main();
