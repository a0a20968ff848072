// Headless Chromium for the VS Code tests, with the flags that keep it quiet on a closed network
// (docs/vscode.md). Playwright ends the browser it launched when the browser is closed.
import { chromium, type Browser } from "playwright-core";
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
