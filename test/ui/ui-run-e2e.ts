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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, type SandboxHandle } from "../../src/sandbox/start";
import { sandboxOctokit } from "../support/board-seed";
import { openTickets, seedRunTarget, simpleTicket } from "../support/run-seed";
import { openTicketRunner, openWorkbench, runFromPalette, shot, sidebarRows, statusItem, step, UI_TIMEOUT_MS, UiSession } from "./ui-session";

/** Runs the E2E with the extension already installed in `extensionsDir`. Throws on the first failed step. */
export async function runRunE2E(extensionsDir: string): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), "tr-e2e-"));
  let sandbox: SandboxHandle | undefined;
  const ui = new UiSession();
  console.log("e2e: Start, watch, transcript, Stop, in the packaged extension against the sandbox");
  try {
    sandbox = await startSandbox({ quiet: true });
    const target = await seedRunTarget(sandbox, scratch, { lanes: 1 });
    const [busy, waiting] = await openTickets(target, [simpleTicket("alpha", ["slow:15000"]), simpleTicket("beta")]);
    const server = await step("code-server starts with the packaged extension, the sandbox's URL and a token", () =>
      ui.startServer({
        extensionsDir,
        userDataDir: join(scratch, "user-data"),
        env: {
          TICKET_RUNNER_API_URL: target.apiUrl,
          TICKET_RUNNER_TOKEN: target.userToken,
          TICKET_RUNNER_RUN_ROOT: join(scratch, "runs"),
          TICKET_RUNNER_HOST_NAME: "desk",
        },
      }),
    );
    const p = await ui.openPage({ width: 1440, height: 900 });
    const sidebarRow = (text: string | RegExp) => sidebarRows(p, text).first();
    const ticketRow = (n: number | undefined) => sidebarRow(new RegExp(`^#${n} Add the`));
    const status = statusItem(p);

    await step("the workbench opens the clone's .code-workspace", () =>
      openWorkbench(p, `${server.url}/?workspace=${encodeURIComponent(target.workspaceFile)}`, server.password),
    );
    await step("1. clicking the Ticket Runner activity-bar item opens the Board: both tickets on the Frontier", async () => {
      await openTicketRunner(p);
      await sidebarRow("Frontier (ready)").waitFor({ timeout: UI_TIMEOUT_MS });
      await ticketRow(busy).waitFor({ timeout: UI_TIMEOUT_MS });
      await ticketRow(waiting).waitFor({ timeout: UI_TIMEOUT_MS });
      await shot(p, "e2e-1-board.png");
    });
    await step('2. "Ticket Runner: Start" from the Command Palette asks first, naming the repository, lanes and agent', async () => {
      await runFromPalette(p, "Ticket Runner: Start");
      const dialog = p.locator(".monaco-dialog-box");
      await dialog.waitFor({ timeout: UI_TIMEOUT_MS });
      const text = await dialog.innerText();
      if (!text.includes(`Start a Run on ${target.owner}/${target.repo} with 1 lane and the demo agent?`)) throw new Error(`unexpected question: ${text}`);
      await shot(p, "e2e-2-confirm.png");
      await dialog.getByRole("button", { name: "Start", exact: true }).click();
      await dialog.waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
    });
    await step(`3. #${busy} moves from the Frontier to Running here, its marker spinning`, async () => {
      const section = sidebarRow(/^Running here\s*1/);
      await section.waitFor({ timeout: UI_TIMEOUT_MS });
      // No click: the section was empty when the board first drew it, and opens by itself once it has a row.
      await ticketRow(busy).locator(".codicon-modifier-spin").waitFor({ timeout: UI_TIMEOUT_MS });
      await status.filter({ hasText: `#${busy} implement` }).waitFor({ timeout: UI_TIMEOUT_MS });
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
        await item.waitFor({ timeout: UI_TIMEOUT_MS });
        await item.hover();
        await item.click();
        const shown = await output
          .filter({ hasText: `#${busy} ` })
          .first()
          .waitFor({ timeout: 10_000 })
          .then(
            () => true,
            () => false,
          );
        if (shown) break;
        if (attempt === 3) throw new Error("Show Transcript from the context menu did not open the transcript");
        await p.keyboard.press("Escape");
      }
      await output.filter({ hasText: `#${busy} implement` }).waitFor({ timeout: UI_TIMEOUT_MS });
      await output.filter({ hasText: "Still working on the implement Stage" }).waitFor({ timeout: UI_TIMEOUT_MS });
      await shot(p, "e2e-4-transcript.png");
    });
    await step("5. the status-bar item is the stop button: its tooltip names the lane; a click stops the Run", async () => {
      await status.hover();
      await p.locator(".monaco-hover", { hasText: "is running on" }).first().waitFor({ timeout: UI_TIMEOUT_MS });
      await shot(p, "e2e-5-status-tooltip.png");
      await status.click();
      await status.filter({ hasText: `stopping: finishing #${busy}` }).waitFor({ timeout: UI_TIMEOUT_MS });
      await shot(p, "e2e-6-stopping.png");
    });
    await step(`6. #${busy} finishes (merged), #${waiting} is never claimed, the status bar goes quiet`, async () => {
      await status.waitFor({ state: "hidden", timeout: 120_000 });
      const admin = sandboxOctokit(target.apiUrl, target.adminToken);
      const get = async (n: number | undefined) => (await admin.rest.issues.get({ owner: target.owner, repo: target.repo, issue_number: n ?? 0 })).data;
      const merged = await get(busy);
      if (merged.state !== "closed") throw new Error(`#${busy} is ${merged.state}, not merged and closed`);
      const left = await get(waiting);
      const labels = left.labels.map((l) => (typeof l === "string" ? l : l.name));
      if (left.state !== "open" || labels.join() !== "ready-for-agent" || left.comments !== 0)
        throw new Error(`#${waiting} was touched: ${left.state} ${labels.join(",")} ${left.comments} comments`);
      await p.locator(".notifications-toasts .notification-list-item", { hasText: "Stopped at" }).first().waitFor({ timeout: UI_TIMEOUT_MS });
      await ticketRow(waiting).waitFor({ timeout: UI_TIMEOUT_MS });
      await shot(p, "e2e-7-stopped.png");
    });
    console.log("e2e: passed");
  } catch (e) {
    throw new Error(await ui.failure("e2e", "e2e-failure.png", e));
  } finally {
    await ui.close();
    await sandbox?.stop();
    if (process.env["TICKET_RUNNER_KEEP_TEMP"] !== "1") rmSync(scratch, { recursive: true, force: true });
  }
}
