// The Run end to end, clicked as a person would, in the PACKAGED extension (the .vsix installed by
// run-ui-tests.ts) against the sandbox with the demo agent shipped inside it:
//   1. open the Ticket Runner container            test-results/e2e-1-board.png
//   2. "Ticket Runner: Start" from the Command Palette, answer the first-time question
//                                                  test-results/e2e-2-confirm.png
//   3. the ticket moves from Frontier to Running here, spinning
//                                                  test-results/e2e-3-running-here.png
//   4. its transcript, from the row's context menu  test-results/e2e-4-transcript.png
//   5. the status-bar item's tooltip, then a click on it (Stop)
//                                                  test-results/e2e-5-status-tooltip.png, e2e-6-stopping.png
//   6. the busy lane finishes, nothing more is claimed
//                                                  test-results/e2e-7-stopped.png
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { startSandbox, type SandboxHandle } from "../../src/sandbox/start";
import { sandboxOctokit } from "../../test/support/board-seed";
import { openTickets, seedRunTarget, simpleTicket } from "../../test/support/run-seed";
import { REPO_ROOT } from "./build-suite";
import { launchChromium } from "./chromium";
import { startCodeServer, tail, type CodeServer } from "./code-server";
import { STRAY_ENV } from "./in-host";

const SHOTS = join(REPO_ROOT, "test-results");
const TIMEOUT = 60_000;

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const value = await fn();
  console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
  return value;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, name) });
}

async function palette(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input.input");
  await input.waitFor({ state: "visible", timeout: TIMEOUT });
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: TIMEOUT });
  await page.keyboard.press("Enter");
}

/** Runs the E2E with the extension already installed in `extensionsDir`. Throws on the first failed step. */
export async function runRunE2E(extensionsDir: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), "tr-e2e-"));
  let sandbox: SandboxHandle | undefined;
  let server: CodeServer | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page | undefined;
  console.log("e2e: Start, watch, transcript, Stop, in the packaged extension against the sandbox");
  try {
    sandbox = await startSandbox({ quiet: true });
    const target = await seedRunTarget(sandbox, scratch, { lanes: 1 });
    const [busy, waiting] = await openTickets(target, [simpleTicket("alpha", ["slow:15000"]), simpleTicket("beta")]);
    server = await step("code-server starts with the packaged extension, the sandbox's URL and a token", () =>
      startCodeServer({
        extensionsDir,
        userDataDir: join(scratch, "user-data"),
        unsetEnv: STRAY_ENV,
        env: { TICKET_RUNNER_API_URL: target.apiUrl, TICKET_RUNNER_TOKEN: target.userToken, TICKET_RUNNER_RUN_ROOT: join(scratch, "runs"), TICKET_RUNNER_HOST_NAME: "desk" },
      }),
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const p = page;
    const sidebarRow = (text: string | RegExp) => p.locator(".part.sidebar .monaco-list-row", { hasText: text }).first();
    const ticketRow = (n: number | undefined) => sidebarRow(new RegExp(`^#${n} Add the`));
    const statusItem = p.locator(".part.statusbar .statusbar-item", { hasText: "Ticket Runner" }).first();

    await step("the workbench opens the clone's .code-workspace", async () => {
      await p.goto(`${server!.url}/?workspace=${encodeURIComponent(target.workspaceFile)}`);
      await p.locator(".monaco-workbench").waitFor({ timeout: TIMEOUT });
    });
    await step("1. clicking the Ticket Runner activity-bar item opens the Board: both tickets on the Frontier", async () => {
      const item = p.locator('.part.activitybar [aria-label^="Ticket Runner"]').first();
      await item.waitFor({ timeout: TIMEOUT });
      await item.click();
      await sidebarRow("Frontier (ready)").waitFor({ timeout: TIMEOUT });
      await ticketRow(busy).waitFor({ timeout: TIMEOUT });
      await ticketRow(waiting).waitFor({ timeout: TIMEOUT });
      await shot(p, "e2e-1-board.png");
    });
    await step('2. "Ticket Runner: Start" from the Command Palette asks first, naming the repository, lanes and agent', async () => {
      await palette(p, "Ticket Runner: Start");
      const dialog = p.locator(".monaco-dialog-box");
      await dialog.waitFor({ timeout: TIMEOUT });
      const text = await dialog.innerText();
      if (!text.includes(`Start a Run on ${target.owner}/${target.repo} with 1 lane and the demo agent?`)) throw new Error(`unexpected question: ${text}`);
      await shot(p, "e2e-2-confirm.png");
      await dialog.getByRole("button", { name: "Start", exact: true }).click();
      await dialog.waitFor({ state: "hidden", timeout: TIMEOUT });
    });
    await step(`3. #${busy} moves from the Frontier to Running here, its marker spinning`, async () => {
      const section = sidebarRow(/^Running here\s*1/);
      await section.waitFor({ timeout: TIMEOUT });
      // No click: the section was empty when the board first drew it, and opens by itself once it has a row.
      await ticketRow(busy).locator(".codicon-modifier-spin").waitFor({ timeout: TIMEOUT });
      await statusItem.filter({ hasText: `#${busy} implement` }).waitFor({ timeout: TIMEOUT });
      await shot(p, "e2e-3-running-here.png");
    });
    await step(`4. Show Transcript from #${busy}'s context menu opens "Ticket Runner #${busy}", streaming`, async () => {
      const menu = p.locator(".context-view .monaco-menu");
      const item = menu.locator(".action-label", { hasText: "Show Transcript" }).first();
      const output = p.locator(".part.panel .view-lines");
      // The board redraws only on a visible change, but a Stage change is one: if the menu closed
      // without running the command, try again, like a person would. Success is the transcript showing.
      for (let attempt = 1; ; attempt++) {
        await ticketRow(busy).click({ button: "right" });
        await item.waitFor({ timeout: TIMEOUT });
        await item.hover();
        await item.click();
        const shown = await output.filter({ hasText: `#${busy} ` }).first().waitFor({ timeout: 10_000 }).then(() => true, () => false);
        if (shown) break;
        if (attempt === 3) throw new Error("Show Transcript from the context menu did not open the transcript");
        await p.keyboard.press("Escape");
      }
      await output.filter({ hasText: `#${busy} implement` }).waitFor({ timeout: TIMEOUT });
      await output.filter({ hasText: "Still working on the implement Stage" }).waitFor({ timeout: TIMEOUT });
      await shot(p, "e2e-4-transcript.png");
    });
    await step("5. the status-bar item is the stop button: its tooltip names the lane; a click stops the Run", async () => {
      await statusItem.hover();
      await p.locator(".monaco-hover", { hasText: "is running on" }).first().waitFor({ timeout: TIMEOUT });
      await shot(p, "e2e-5-status-tooltip.png");
      await statusItem.click();
      await statusItem.filter({ hasText: `stopping: finishing #${busy}` }).waitFor({ timeout: TIMEOUT });
      await shot(p, "e2e-6-stopping.png");
    });
    await step(`6. #${busy} finishes (merged), #${waiting} is never claimed, the status bar goes quiet`, async () => {
      await statusItem.waitFor({ state: "hidden", timeout: 120_000 });
      const admin = sandboxOctokit(target.apiUrl, target.adminToken);
      const get = async (n: number | undefined) => (await admin.rest.issues.get({ owner: target.owner, repo: target.repo, issue_number: n ?? 0 })).data;
      const merged = await get(busy);
      if (merged.state !== "closed") throw new Error(`#${busy} is ${merged.state}, not merged and closed`);
      const left = await get(waiting);
      const labels = left.labels.map((l) => (typeof l === "string" ? l : l.name));
      if (left.state !== "open" || labels.join() !== "ready-for-agent" || left.comments !== 0) throw new Error(`#${waiting} was touched: ${left.state} ${labels.join(",")} ${left.comments} comments`);
      await p.locator(".notifications-toasts .notification-list-item", { hasText: "Stopped at" }).first().waitFor({ timeout: TIMEOUT });
      await ticketRow(waiting).waitFor({ timeout: TIMEOUT });
      await shot(p, "e2e-7-stopped.png");
    });
    console.log("e2e: passed");
  } catch (e) {
    await page?.screenshot({ path: join(SHOTS, "e2e-failure.png") }).catch(() => undefined);
    if (server) console.error(`--- code-server log ---\n${tail(server.logFile)}`);
    throw new Error(`e2e: FAILED (screenshot: test-results/e2e-failure.png): ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    await sandbox?.stop();
    if (process.env["TICKET_RUNNER_KEEP_TEMP"] !== "1") rmSync(scratch, { recursive: true, force: true });
  }
}
