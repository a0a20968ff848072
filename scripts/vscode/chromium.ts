// Headless Chromium for the VS Code tests, with the flags that keep it quiet on a closed network
// (docs/vscode.md). Playwright ends the browser it launched when the browser is closed.
import { chromium, type Browser, type Page } from "playwright-core";
import { existsSync } from "node:fs";

export const CHROMIUM_PATH = process.env["TICKET_RUNNER_CHROMIUM"] ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not at ${CHROMIUM_PATH}. As root: apt-get install -y chromium (or set TICKET_RUNNER_CHROMIUM).`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/**
 * Opens a code-server URL as a person does: code-server asks for its password first (it never runs
 * with `--auth none`, ADR 0232), then goes on to the URL it was asked for, query and all.
 */
export async function openCodeServerPage(page: Page, url: string, password: string, timeoutMs = 60_000): Promise<void> {
  await page.goto(url);
  const field = page.locator('input[name="password"]');
  await field.waitFor({ timeout: timeoutMs });
  await field.fill(password);
  await Promise.all([page.waitForURL((u) => !u.pathname.endsWith("/login"), { timeout: timeoutMs }), field.press("Enter")]);
}
