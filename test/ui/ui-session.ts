// What the Playwright scripts share: a code-server and one headless Chromium page, driven in named
// steps; on a failure a screenshot and code-server's log tail; at the end both stopped (code-server
// by its process group). The workbench selectors Ticket Runner's scripts rely on live here too, so a
// VS Code update that moves one is fixed once.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { waitFor } from "../support/wait-for";
import { REPO_ROOT } from "../../scripts/vscode/build-suite";
import { launchChromium, openCodeServerPage } from "../../scripts/vscode/chromium";
import { startCodeServer, tail, type CodeServer, type StartCodeServerOptions } from "../../scripts/vscode/code-server";
import { STRAY_ENV } from "../../scripts/vscode/in-host";

/** Screenshots, where CI keeps them. */
export const SHOTS = join(REPO_ROOT, "test-results");
/** One UI step's patience: a cold workbench on a busy 2-core machine takes tens of seconds. */
export const UI_TIMEOUT_MS = 60_000;

/** Runs one step and prints it with its time, so a slow or stuck step names itself in the log. */
export async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const value = await fn();
  console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
  return value;
}

/** Polls for a condition the workbench or the sandbox gives no event for; gentler than a unit test's poll. */
export function until<T>(what: string, probe: () => T | Promise<T>, opts: { timeoutMs?: number; everyMs?: number } = {}): Promise<NonNullable<T>> {
  return waitFor(probe, { what, timeoutMs: opts.timeoutMs ?? UI_TIMEOUT_MS, intervalMs: opts.everyMs ?? 250 });
}

export class UiSession {
  server: CodeServer | undefined;
  page: Page | undefined;
  private browser: Browser | undefined;

  constructor() {
    mkdirSync(SHOTS, { recursive: true });
  }

  /** A developer's own tokens and API URL are left out, so the extension sees only what `opts.env` gives it. */
  async startServer(opts: StartCodeServerOptions = {}): Promise<CodeServer> {
    this.server = await startCodeServer({ unsetEnv: STRAY_ENV, ...opts });
    return this.server;
  }

  async openPage(viewport: { width: number; height: number }): Promise<Page> {
    this.browser = await launchChromium();
    this.page = await this.browser.newPage({ viewport });
    return this.page;
  }

  /**
   * Keeps what a failure needs to be understood (a screenshot of the page, code-server's log tail)
   * and returns the one line that says so.
   */
  async failure(label: string, shot: string, e: unknown): Promise<string> {
    await this.page?.screenshot({ path: join(SHOTS, shot) }).catch(() => undefined);
    if (this.server) console.error(`--- code-server log ---\n${tail(this.server.logFile)}`);
    return `${label}: FAILED (screenshot: test-results/${shot}): ${e instanceof Error ? e.message : String(e)}`;
  }

  async closeBrowser(): Promise<void> {
    await this.browser?.close().catch(() => undefined);
    this.browser = undefined;
    this.page = undefined;
  }

  async close(): Promise<void> {
    await this.closeBrowser();
    await this.server?.stop();
    this.server = undefined;
  }
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, name) });
}

/** Signs in to code-server with its password, then waits for the workbench of `url`. */
export async function openWorkbench(page: Page, url: string, password: string): Promise<void> {
  await openCodeServerPage(page, url, password);
  await page.locator(".monaco-workbench").waitFor({ timeout: UI_TIMEOUT_MS });
}

export function activityItem(page: Page): Locator {
  return page.locator('.part.activitybar [aria-label^="Ticket Runner"]').first();
}

/** Opens the Ticket Runner container with a click, as a person would. */
export async function openTicketRunner(page: Page): Promise<void> {
  const item = activityItem(page);
  await item.waitFor({ timeout: UI_TIMEOUT_MS });
  await item.click();
}

/** Every tree row in the side bar with this text (the Board's sections and tickets). */
export function sidebarRows(page: Page, text: string | RegExp): Locator {
  return page.locator(".part.sidebar .monaco-list-row", { hasText: text });
}

/** Ticket Runner's status-bar item: shown while a Run is on, and its stop button. */
export function statusItem(page: Page): Locator {
  return page.locator(".part.statusbar .statusbar-item", { hasText: "Ticket Runner" }).first();
}

export function paletteInput(page: Page): Locator {
  return page.locator(".quick-input-widget input.input");
}

/** Runs a command from the Command Palette (F1). */
export async function runFromPalette(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  await paletteInput(page).waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
  await pickInPalette(page, title);
}

/** In an open palette: types the command and presses Enter once its row shows, or Enter would run whatever is first. */
export async function pickInPalette(page: Page, title: string): Promise<void> {
  await paletteInput(page).fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: UI_TIMEOUT_MS });
  await page.keyboard.press("Enter");
}

/** Drags the side bar's edge to `right` px from its left, so the Board's Run column shows in full. */
export async function widenSidebar(page: Page, right: number): Promise<void> {
  const box = await page.locator(".part.sidebar").boundingBox();
  if (!box) throw new Error("no sidebar");
  await page.mouse.move(box.x + box.width + 1, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + right, box.y + box.height / 2, { steps: 10 });
  await page.mouse.up();
}
