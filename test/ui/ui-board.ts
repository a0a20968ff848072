// The board as a person sees it: a seeded sandbox with every marker kind, the extension in
// code-server, driven by Playwright in headless Chromium. Saves
//   test-results/board-markers.png   the Board with every marker kind, sections and Run column
//   test-results/board-tooltip.png   a claimed ticket's tooltip (lease details and links)
//   test-results/board-error.png     the error row after GitHub fails, with the board kept
// Run: npm run build && tsx test/ui/ui-board.ts
import { runLauncher } from "../../scripts/vscode/leftover-guard";
import { SandboxAdmin } from "../../src/sandbox/admin-client";
import { setup, BOARD_SEED_ENV, type BoardSeedInfo } from "../vscode/support/board-setup";
import { REPO_ROOT } from "../../scripts/vscode/build-suite";
import { workbenchUrl } from "../../scripts/vscode/in-host";
import { openTicketRunner, openWorkbench, runFromPalette, shot, sidebarRows, step, UI_TIMEOUT_MS, UiSession, widenSidebar } from "./ui-session";

async function main(): Promise<void> {
  const ui = new UiSession();
  const env = await setup({ everyMarker: true });
  const seed = JSON.parse(env.env[BOARD_SEED_ENV] ?? "{}") as BoardSeedInfo;
  console.log("ui-board: every marker kind on the Board, in code-server");
  try {
    const server = await step("code-server starts with the sandbox's URL and token", () => ui.startServer({ env: env.env }));
    const p = await ui.openPage({ width: 1500, height: 900 });
    const row = (text: string | RegExp) => sidebarRows(p, text).first();
    await step("the workbench loads", () =>
      openWorkbench(
        p,
        workbenchUrl(server, env.workspace, [["extensionDevelopmentPath", `vscode-remote://127.0.0.1:${server.port}${REPO_ROOT}`]]),
        server.password,
      ),
    );
    await step("the Ticket Runner container opens", () => openTicketRunner(p));
    await step("the board loads every section", async () => {
      for (const title of ["Running here", "Claimed elsewhere", "Stale", "Frontier (ready)", "Blocked", "Needs a person", "Stranded"])
        await row(title).waitFor({ timeout: UI_TIMEOUT_MS });
      await row("● desk · implement").waitFor({ timeout: UI_TIMEOUT_MS });
    });
    await step("the sidebar is widened so the Run column shows in full", () => widenSidebar(p, 900));
    await step("screenshot test-results/board-markers.png", async () => {
      await p.mouse.move(1400, 850); // no hover
      await p.waitForTimeout(300); // let the sash settle; a picture, not a test condition
      await shot(p, "board-markers.png");
    });
    await step("hovering a claim shows the lease tooltip: test-results/board-tooltip.png", async () => {
      await row("◌ laptop-2").hover();
      await p.locator(".monaco-hover, .workbench-hover", { hasText: "Open the lease comment" }).first().waitFor({ timeout: UI_TIMEOUT_MS });
      await shot(p, "board-tooltip.png");
    });
    await step("a failed fetch shows the error row and keeps the board: test-results/board-error.png", async () => {
      const admin = new SandboxAdmin(seed.apiUrl, seed.adminToken);
      await admin.setFaults({ errorRate: 1, errorRoutes: "^POST /graphql", errorStatus: 502 });
      try {
        await p.mouse.move(1400, 850);
        await runFromPalette(p, "Ticket Runner: Refresh");
        await row("Couldn't refresh the board").waitFor({ timeout: UI_TIMEOUT_MS });
        await row("Frontier (ready)").waitFor({ timeout: UI_TIMEOUT_MS });
        await shot(p, "board-error.png");
      } finally {
        await admin.setFaults({});
      }
    });
    console.log("ui-board: passed");
  } catch (e) {
    console.error(await ui.failure("ui-board", "ui-board-failure.png", e));
    process.exitCode = 1;
  } finally {
    await ui.close();
    await env.teardown();
  }
}

void runLauncher("ui-board", main);
