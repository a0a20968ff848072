// A window reload is a kill (docs/vscode.md, Lifecycle), clicked as a person would, in the PACKAGED
// extension against the sandbox with the demo agent:
//   1. Start from the Command Palette; the slow ticket is Running here, implementing
//                                                  test-results/reload-1-running.png
//   2. "Developer: Reload Window": the extension host dies mid-Stage. Through the sandbox: the claim
//      stays (in-progress, assignee, a live lease), nothing was written (no hand-off, no release)
//                                                  test-results/reload-2-after-reload.png
//   3. Start again: the sweep finds the ticket Stranded, the dead host's lock is taken over, the
//      ticket resumes and merges, once, with one PR
//                                                  test-results/reload-3-merged.png
// Every demo-agent process of this test (found by the private extensions folder in its command line)
// is accounted for and, at the end, ended by pid.
import { runLauncher } from "../../scripts/vscode/leftover-guard";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { parseLeaseComment } from "../../src/core/claims/lease-comment";
import { startSandbox, type SandboxHandle } from "../../src/sandbox/start";
import { sandboxOctokit } from "../support/board-seed";
import { openTickets, RUN_USER, seedRunTarget, simpleTicket, type RunTarget } from "../support/run-seed";
import { installVsix } from "../../scripts/vscode/code-server";
import { packVsix } from "../../scripts/vscode/vsix";
import { activityItem, openWorkbench, paletteInput, pickInPalette, shot, sidebarRows, statusItem, step, UI_TIMEOUT_MS, UiSession, until } from "./ui-session";

async function palette(page: Page, title: string): Promise<void> {
  // A freshly reloaded page has no focused element, so F1 goes nowhere: focus the editor area first.
  await until("the Command Palette to open", async () => {
    await page.locator(".part.editor").click({ position: { x: 20, y: 20 } });
    await page.keyboard.press("F1");
    return paletteInput(page)
      .waitFor({ state: "visible", timeout: 5_000 })
      .then(
        () => true,
        () => false,
      );
  });
  await pickInPalette(page, title);
}

/** Live demo-agent processes started from this test's own extensions folder: pid -> command line. */
function demoAgents(extensionsDir: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (/\) Z /.test(stat)) continue; // a zombie is gone, only not yet reaped
      if (cmd.includes(extensionsDir) && cmd.includes("demo-agent")) found.set(Number(entry), cmd.trim());
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** The extension's own log ("Ticket Runner" output channel), one text per extension host that wrote one. */
function hostLogs(userDataDir: string): string[] {
  const logs = join(userDataDir, "logs");
  return readdirSync(logs, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(join("ticket-runner.ticket-runner", "Ticket Runner.log")))
    .sort()
    .map((f) => readFileSync(join(logs, f), "utf8"));
}

interface IssueView {
  state: string;
  labels: string[];
  assignees: string[];
  comments: { body: string }[];
}

async function issueView(target: RunTarget, n: number): Promise<IssueView> {
  const admin = sandboxOctokit(target.apiUrl, target.adminToken);
  const { data } = await admin.rest.issues.get({ owner: target.owner, repo: target.repo, issue_number: n });
  const comments = await admin.paginate(admin.rest.issues.listComments, { owner: target.owner, repo: target.repo, issue_number: n, per_page: 100 });
  return {
    state: data.state,
    labels: data.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))),
    assignees: (data.assignees ?? []).map((a) => a.login),
    comments: comments.map((c) => ({ body: c.body ?? "" })),
  };
}

/** The lease states on the issue, one per lease comment, in order. */
function leaseStates(target: RunTarget, n: number, view: IssueView): string[] {
  const states: string[] = [];
  for (const c of view.comments) {
    const parsed = parseLeaseComment(c.body, { repo: `${target.owner}/${target.repo}`, issue: n });
    if (parsed.kind === "lease") states.push(parsed.finished ? "finished" : parsed.lease.state);
    if (parsed.kind === "finished-legacy") states.push("finished");
  }
  return states;
}

async function main(): Promise<void> {
  const started = Date.now();
  const ui = new UiSession();
  const scratch = mkdtempSync(join(tmpdir(), "tr-reload-"));
  const extensionsDir = join(scratch, "extensions");
  const userDataDir = join(scratch, "user-data");
  let sandbox: SandboxHandle | undefined;
  const agentsSeen = new Map<number, string>();
  console.log("reload: a window reload kills the Run; the next Start resumes the Stranded ticket");
  try {
    await step("the packaged extension is installed into a private extensions folder", async () => {
      const vsix = join(scratch, "ticket-runner.vsix");
      packVsix(vsix);
      installVsix(vsix, extensionsDir, userDataDir);
    });
    sandbox = await startSandbox({ quiet: true });
    const target = await seedRunTarget(sandbox, scratch, { lanes: 1 });
    const [ticket] = await openTickets(target, [simpleTicket("gamma", ["slow:8000"])]);
    if (ticket === undefined) throw new Error("no ticket opened");
    const server = await step("code-server starts with the sandbox's URL and a token", () =>
      ui.startServer({
        extensionsDir,
        userDataDir,
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
    const ticketRow = sidebarRow(new RegExp(`^#${ticket} Add the`));
    const status = statusItem(p);
    const openBoard = async (): Promise<void> => {
      await p.locator(".monaco-workbench").waitFor({ timeout: UI_TIMEOUT_MS });
      const item = activityItem(p);
      await item.waitFor({ timeout: UI_TIMEOUT_MS });
      // After a reload the workbench restores the open container by itself, and a click on an open
      // container closes it: click only while the item is not checked, and see the row come.
      await until("the board to show the ticket", async () => {
        if (await ticketRow.isVisible()) return true;
        const open = await p.locator(".part.activitybar .action-item.checked", { has: p.locator('[aria-label^="Ticket Runner"]') }).count();
        if (open === 0) await item.click();
        return ticketRow.waitFor({ timeout: 5_000 }).then(
          () => true,
          () => false,
        );
      });
    };
    const start = async (): Promise<void> => {
      await palette(p, "Ticket Runner: Start");
      // The first Start asks; the consent is kept in the workspace state, so a later one may not.
      const dialog = p.locator(".monaco-dialog-box");
      const asked = await Promise.race([
        dialog.waitFor({ timeout: 15_000 }).then(
          () => true,
          () => false,
        ),
        status
          .filter({ hasText: `#${ticket}` })
          .waitFor({ timeout: 15_000 })
          .then(
            () => false,
            () => false,
          ),
      ]);
      if (!asked) return;
      await dialog.getByRole("button", { name: "Start", exact: true }).click();
      await dialog.waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
    };

    await step(`1. Start from the Command Palette: #${ticket} is Running here in its implement Stage`, async () => {
      await openWorkbench(p, `${server.url}/?workspace=${encodeURIComponent(target.workspaceFile)}`, server.password);
      await openBoard();
      await start();
      await sidebarRow(/^Running here\s*1/).waitFor({ timeout: UI_TIMEOUT_MS });
      await ticketRow.locator(".codicon-modifier-spin").waitFor({ timeout: UI_TIMEOUT_MS });
      await status.filter({ hasText: `#${ticket} implement` }).waitFor({ timeout: UI_TIMEOUT_MS });
      const agents = await until("the implement Stage's demo agent process", () => {
        const a = demoAgents(extensionsDir);
        return a.size > 0 ? a : undefined;
      });
      for (const [pid, cmd] of agents) agentsSeen.set(pid, cmd);
      await shot(p, "reload-1-running.png");
    });

    const before = await issueView(target, ticket);
    await step('2. "Developer: Reload Window" kills the Run: the claim stays, nothing is written, the Stage dies', async () => {
      // A mark on the old page: gone once the reload has really replaced it, so nothing below reads the old board.
      await p.evaluate(() => Object.assign(globalThis, { trBeforeReload: true }));
      await palette(p, "Developer: Reload Window");
      await p.waitForFunction(() => !("trBeforeReload" in globalThis), undefined, { timeout: UI_TIMEOUT_MS, polling: 100 });
      // The reloaded workbench draws the board afresh, with nothing running in this window.
      await openBoard();
      await sidebarRow(/^Running here\s*1/).waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
      const after = await issueView(target, ticket);
      const labels = after.labels.slice().sort().join(",");
      if (after.state !== "open" || labels !== "in-progress") throw new Error(`#${ticket} lost its claim: ${after.state} [${labels}]`);
      if (after.assignees.join() !== RUN_USER) throw new Error(`#${ticket} is assigned to [${after.assignees.join()}], not ${RUN_USER}`);
      if (after.comments.length !== before.comments.length) {
        throw new Error(
          `a comment was written at the kill: ${before.comments.length} before, ${after.comments.length} after:\n${after.comments.map((c) => c.body.slice(0, 200)).join("\n---\n")}`,
        );
      }
      const states = leaseStates(target, ticket, after);
      if (states.length !== 1 || !["claimed", "running"].includes(states[0] ?? ""))
        throw new Error(`#${ticket}'s lease is not live after the kill: [${states.join()}]`);
      // The killed Stage's agent runs in its own process group; the dying host SIGKILLs the group.
      const survivors = await until(
        "the killed Stage's demo agent to end",
        () => {
          const live = [...agentsSeen.keys()].filter((pid) => demoAgents(extensionsDir).has(pid));
          return live.length === 0 ? [] : undefined;
        },
        { timeoutMs: 30_000 },
      ).catch(() => [...agentsSeen.keys()].filter((pid) => demoAgents(extensionsDir).has(pid)));
      if (survivors.length > 0) throw new Error(`the killed Stage's demo agent outlived the extension host: pid ${survivors.join(", ")}`);
      console.log(`    the killed Stage's demo agent (pid ${[...agentsSeen.keys()].join(", ")}) ended with the extension host`);
      await shot(p, "reload-2-after-reload.png");
    });

    await step(`3. Start again: #${ticket} is swept as Stranded, resumed under the taken-over lock, and merged once`, async () => {
      await start();
      await status.filter({ hasText: `#${ticket}` }).waitFor({ timeout: UI_TIMEOUT_MS });
      const admin = sandboxOctokit(target.apiUrl, target.adminToken);
      // The issue closes, the lease gets its finished record and the label comes off in separate
      // writes: wait for all three, then count.
      const done = await until(
        `#${ticket} to close with a finished lease and no in-progress label`,
        async () => {
          for (const [pid, cmd] of demoAgents(extensionsDir)) agentsSeen.set(pid, cmd);
          const v = await issueView(target, ticket);
          const ended = v.state === "closed" && !v.labels.includes("in-progress") && leaseStates(target, ticket, v).includes("finished");
          return ended ? v : undefined;
        },
        { timeoutMs: 180_000 },
      );
      const finished = leaseStates(target, ticket, done).filter((s) => s === "finished").length;
      if (finished !== 1) throw new Error(`#${ticket} has ${finished} finished leases, expected exactly one`);
      const pulls = await admin.paginate(admin.rest.pulls.list, { owner: target.owner, repo: target.repo, state: "all", per_page: 100 });
      if (pulls.length !== 1) throw new Error(`expected one PR, found ${pulls.length}: ${pulls.map((pr) => `#${pr.number} ${pr.title}`).join("; ")}`);
      const pr = (await admin.rest.pulls.get({ owner: target.owner, repo: target.repo, pull_number: pulls[0]!.number })).data;
      if (!pr.merged) throw new Error(`PR #${pr.number} is ${pr.state}, not merged`);
      // The Run's own account: the new host took the dead host's lock over, adopted the Stranded
      // ticket (its claim, not a new one) and merged it; no host merged it twice.
      const resumed = await until("the resuming host's log", () => {
        const all = hostLogs(userDataDir);
        const last = all.find((l) => l.includes("took the Run lock over"));
        return last?.includes(`#${ticket}: merged`) ? { all, last } : undefined;
      });
      if (!/took the Run lock over from run \S+ \(pid \d+\), whose process on this Host is gone/.test(resumed.last))
        throw new Error(`no abandoned-lock take-over in the log:\n${resumed.last}`);
      if (!resumed.last.includes(`adopted ticket=${ticket} `)) throw new Error(`#${ticket} was not adopted (resumed) by the sweep:\n${resumed.last}`);
      const claims = resumed.all.join("").split(`claimed ticket=${ticket} `).length - 1;
      const merges = resumed.all.join("").split(`#${ticket}: merged`).length - 1;
      if (claims !== 1 || merges !== 1)
        throw new Error(`#${ticket} claimed ${claims} time(s) and merged ${merges} time(s) across the hosts, expected once each`);
      await status.waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
      // The Run's end toast, once it has finished fading in, so the screenshot shows it.
      // (the workbench marks a toast `notification-fade-in-done` when its animation is over).
      await p
        .locator(".notifications-toasts .notification-fade-in-done", { hasText: `#${ticket} merged` })
        .first()
        .waitFor({ timeout: UI_TIMEOUT_MS });
      await shot(p, "reload-3-merged.png");
    });
    console.log(`reload: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (e) {
    console.error(await ui.failure("reload", "reload-failure.png", e));
    process.exitCode = 1;
  } finally {
    await ui.close();
    // Whatever demo agent is left (seen earlier or not), end it by pid: nothing outlives the test.
    for (const pid of new Set([...agentsSeen.keys(), ...demoAgents(extensionsDir).keys()])) {
      try {
        process.kill(pid, "SIGKILL");
        console.error(`reload: ended a leftover demo agent, pid ${pid}`);
      } catch {
        // already gone
      }
    }
    await sandbox?.stop();
    if (process.env["TICKET_RUNNER_KEEP_TEMP"] !== "1") rmSync(scratch, { recursive: true, force: true });
  }
}

void runLauncher("ui-reload-resume", main);
