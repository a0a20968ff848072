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
import { installVsix, listExtensions } from "./code-server";
import { packVsix } from "./vsix";
import { runLauncher } from "./leftover-guard";
import { runRunE2E } from "../../test/ui/ui-run-e2e";
import { activityItem, openWorkbench, runFromPalette, shot, step, UI_TIMEOUT_MS, UiSession } from "../../test/ui/ui-session";

const EXTENSION_ID = "ticket-runner.ticket-runner";

async function main(): Promise<void> {
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), "tr-ui-"));
  const extensionsDir = join(scratch, "extensions");
  const userDataDir = join(scratch, "user-data");
  const workspace = join(scratch, "workspace");
  mkdirSync(workspace, { recursive: true });
  const ui = new UiSession();
  console.log("ui: the packaged extension in code-server, driven by Playwright");
  try {
    const vsix = join(scratch, "ticket-runner.vsix");
    await step("vsce package makes a .vsix", async () => void packVsix(vsix));
    await step("code-server --install-extension installs it", async () => {
      installVsix(vsix, extensionsDir, userDataDir);
      const listed = listExtensions(extensionsDir, userDataDir);
      if (!listed.some((l) => l.startsWith(`${EXTENSION_ID}@`))) throw new Error(`${EXTENSION_ID} not listed after install: ${listed.join(", ") || "(none)"}`);
    });

    const server = await step("code-server starts", () => ui.startServer({ extensionsDir, userDataDir }));
    const p = await ui.openPage({ width: 1280, height: 800 });
    await step("the workbench loads", () => openWorkbench(p, `${server.url}/?folder=${encodeURIComponent(workspace)}`, server.password));

    await step("clicking the Ticket Runner activity-bar item opens the container", async () => {
      const item = activityItem(p);
      await item.waitFor({ timeout: UI_TIMEOUT_MS });
      await item.click();
      await p.locator(".part.sidebar .composite.title", { hasText: /Ticket Runner/i }).waitFor({ timeout: UI_TIMEOUT_MS });
    });

    await step('"Ticket Runner: Refresh" runs from the Command Palette', async () => {
      await runFromPalette(p, "Ticket Runner: Refresh");
      await p.locator(".quick-input-widget").waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
    });

    await step("the Board view shows its signed-out welcome with a Sign In button", async () => {
      const sidebar = p.locator(".part.sidebar");
      await sidebar.locator(".welcome-view-content", { hasText: "Sign in to GitHub" }).waitFor({ timeout: UI_TIMEOUT_MS });
      await sidebar.getByRole("button", { name: "Sign In" }).waitFor({ timeout: UI_TIMEOUT_MS });
      const errors = await p.locator(".notifications-toasts .notification-list-item", { hasText: /failed|error/i }).count();
      if (errors > 0) throw new Error(`an error notification is showing after Refresh`);
    });

    await step("screenshot test-results/ui-board-open.png", () => shot(p, "ui-board-open.png"));
    await ui.close();
    await runRunE2E(extensionsDir);
    console.log(`ui: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (e) {
    console.error(await ui.failure("ui", "ui-failure.png", e));
    process.exitCode = 1;
  } finally {
    await ui.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

void runLauncher("ui", main);
