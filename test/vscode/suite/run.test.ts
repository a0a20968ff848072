// The orchestrator inside the extension host, against the sandbox with the demo agent. Runs when
// the launcher was given --setup test/vscode/support/run-setup.ts (part of npm run test:vscode);
// registers nothing otherwise. The window is a multi-root workspace (a .code-workspace naming the
// clone), where worktree folders can be added without restarting the extension host.
import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as vscode from "vscode";
import { FsRunRoot } from "../../../src/adapters/fs-run-root";
import { createOctokit } from "../../../src/adapters/github/client";
import { OctokitTracker } from "../../../src/adapters/github/octokit-tracker";
import { createClaimGate } from "../../../src/core/claims/claim-protocol";
import { configSchema } from "../../../src/core/schemas/config";
import { PRODUCT_VERSION } from "../../../src/core/version";
import { actionsWorkflow, WORKFLOW_PATH } from "../../../src/app/actions-workflow";
import { readBundle } from "../../../src/app/init-actions";
import { CLI_BUNDLE_FILE } from "../../../src/app/cli-bundle-file";
import { SandboxAdmin } from "../../../src/sandbox/admin-client";
import type { TicketRunnerApi } from "../../../src/vscode/api";
import type { BoardController } from "../../../src/vscode/board/controller";
import type { MessageApi, Notice } from "../../../src/vscode/notifier";
import { sandboxOctokit } from "../../support/board-seed";
import { openTickets, simpleTicket } from "../../support/run-seed";
import { waitFor } from "../../support/wait-for";
import { activeApi, extension } from "../support/extension";
import { recordFigure } from "../support/figures";
import { watchHostStalls } from "../support/host-stalls";
import { keepRoundTrips, type TimedRoundTrip } from "../support/round-trip-log";
import type { RunSeedInfo } from "../support/run-setup";

const raw = process.env["TICKET_RUNNER_RUN_SEED"];
const execFileP = promisify(execFile);
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** Answers questions and presses buttons in place of a person: the first rule whose pattern matches. */
function person(rules: { when: RegExp; press?: string }[], asked: { message: string; items: readonly string[]; detail?: string }[]): MessageApi {
  return {
    show(_level, message, options, items) {
      asked.push({ message, items, ...(options.detail ? { detail: options.detail } : {}) });
      const rule = rules.find((r) => r.when.test(message));
      return Promise.resolve(rule?.press);
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;
}

if (raw) {
  const seed = JSON.parse(raw) as RunSeedInfo;
  const admin = sandboxOctokit(seed.apiUrl, seed.adminToken);
  const repo = { owner: seed.owner, repo: seed.repo };
  const issue = async (n: number) => (await admin.rest.issues.get({ ...repo, issue_number: n })).data;
  const labelsOf = async (n: number) => (await issue(n)).labels.map((l) => (typeof l === "string" ? l : l.name));

  describe("the Run in the extension host (sandbox, demo agent)", function () {
    this.timeout(120_000);
    let api: TicketRunnerApi;
    let board: BoardController;
    let restore: (() => void)[] = [];

    before(async () => {
      api = await activeApi();
      board = api.board as unknown as BoardController;
      await vscode.commands.executeCommand("ticketRunner.board.focus");
      await waitFor(() => board.snapshot().repo === `${seed.owner}/${seed.repo}`, { what: "the board to find the Target", timeoutMs: 30_000 });
    });

    afterEach(() => {
      for (const r of restore.reverse()) r();
      restore = [];
    });

    it("Start asks once (repository, lanes, agent), then runs the tickets to merge: board, transcripts, worktree folders, status bar", async () => {
      const [a, b] = await openTickets(seed, [simpleTicket("alpha", ["slow:1500"]), simpleTicket("beta", ["slow:1500"])]);
      assert.ok(a && b);
      const asked: { message: string; items: readonly string[]; detail?: string }[] = [];
      restore.push(api.notifier.setMessageApi(person([{ when: /^Start a Run on/, press: "Start" }], asked)));
      // Folders at Start are opt-in (ADR 0265): this workspace asks for them, as a person would.
      const settings = vscode.workspace.getConfiguration("ticketRunner");
      await settings.update("worktreeFolders", "add-and-remove", vscode.ConfigurationTarget.Workspace);

      // Watch what a person would see while the Run goes: the status bar and the board's rows.
      const statusTexts = new Set<string>();
      const spinning = new Set<number>();
      const folderEvents: string[] = [];
      const sub = vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const f of e.added) folderEvents.push(`+${f.name}`);
        for (const f of e.removed) folderEvents.push(`-${f.name}`);
      });
      const watch = setInterval(() => {
        statusTexts.add(api.statusBar().text);
        for (const s of board.snapshot().model?.sections ?? []) {
          if (s.id === "running-here") for (const r of s.rows) if (r.spinning) spinning.add(r.number);
        }
      }, 50);
      try {
        await vscode.commands.executeCommand("ticketRunner.start");
        assert.ok(api.runs.windowRun.isActive(), "the Run goes on after the command returns");
        assert.equal(api.contextKey("ticketRunner.running"), true);
        await waitFor(() => !api.runs.windowRun.isActive(), { what: "the Run to end", timeoutMs: 100_000, intervalMs: 200 });
        // A folder goes after its ticket's merge, one change at a time (VS Code applies them in turn), so the
        // last may go after the Run has ended: watched until both have gone.
        await waitFor(
          () => {
            if (![a, b].every((n) => folderEvents.some((e) => e.startsWith(`-#${n} `)))) throw new Error(`folder changes seen: ${folderEvents.join(", ")}`);
            return true;
          },
          { what: "both worktree folders to be removed", timeoutMs: 20_000 },
        );
      } finally {
        clearInterval(watch);
        sub.dispose();
        await settings.update("worktreeFolders", undefined, vscode.ConfigurationTarget.Workspace);
      }

      const question = asked.find((q) => q.message.startsWith("Start a Run on"));
      assert.equal(question?.message, `Start a Run on ${seed.owner}/${seed.repo} with 2 lanes and the demo agent?`);
      assert.deepEqual(question?.items, ["Start"]);
      const view = api.runs.windowRun.view();
      assert.deepEqual(
        view?.ended.map((e) => `#${e.ticket} ${e.ending}`).sort(),
        [`#${a} merged`, `#${b} merged`],
        view?.ended.map((e) => `#${e.ticket} ${e.ending}: ${e.line}`).join("\n"),
      );
      for (const n of [a, b]) assert.equal((await issue(n)).state, "closed", `#${n} is closed by the merge`);

      // The status bar was the stop button while it ran, and went away after.
      assert.ok(
        [...statusTexts].some((t) => /^\$\(sync~spin\) Ticket Runner · 2 lanes · #\d+ \w+ · #\d+ \w+$/.test(t)),
        [...statusTexts].join("\n"),
      );
      assert.equal(api.statusBar().visible, false);
      assert.equal(api.contextKey("ticketRunner.running"), false);

      // The board showed each ticket spinning under "Running here", and shows neither now.
      assert.deepEqual([...spinning].sort(), [a, b].sort(), "both tickets spun under Running here");
      await waitFor(() => !board.snapshot().model?.sections.some((s) => s.rows.some((r) => r.number === a || r.number === b)), {
        what: "the merged tickets to leave the board",
        timeoutMs: 20_000,
      });

      // One output channel per ticket, readable.
      for (const n of [a, b]) {
        const stats = api.runs.transcripts.stats(n);
        assert.ok(stats, `#${n} has an output channel`);
        assert.match(stats.tail, new RegExp(`── #${n} implement ─`));
        assert.match(stats.tail, /▸ \w+ /, "tool calls, one line each");
        assert.match(stats.tail, /── checks: ✅/);
        assert.match(stats.tail, /── merge: ✅ merged/);
        assert.match(stats.tail, /■ merged: PR #\d+/);
        assert.ok(!stats.tail.includes(seed.userToken), "no token in the transcript");
      }

      // Each worktree was a folder of this window while its lane ran, and went after the merge.
      for (const n of [a, b]) {
        const name = `#${n} Add the ${n === a ? "alpha" : "beta"} helper`;
        assert.ok(folderEvents.includes(`+${name}`), `${name} was added: ${folderEvents.join(", ")}`);
        assert.ok(folderEvents.indexOf(`-${name}`) > folderEvents.indexOf(`+${name}`), `${name} was removed after: ${folderEvents.join(", ")}`);
      }
      assert.deepEqual(
        vscode.workspace.workspaceFolders?.map((f) => f.uri.fsPath),
        [seed.clone],
        "only the clone is left",
      );

      // The summary, once, as a notification (merges themselves stay quiet by default).
      const summary = await waitFor(() => api.notices.find((n) => n.message.startsWith("Ticket Runner: Done:")));
      assert.match(summary.message, /Done: 2 merged\./);
      assert.ok(!api.notices.some((n) => /merged \(PR/.test(n.message)), "no notification per merge");
    });

    it("a second Start in the window is refused with a button to stop the first; Stop finishes busy lanes and claims nothing more", async () => {
      await vscode.workspace.getConfiguration("ticketRunner").update("lanes", 1, vscode.ConfigurationTarget.Global);
      restore.push(() => void vscode.workspace.getConfiguration("ticketRunner").update("lanes", undefined, vscode.ConfigurationTarget.Global));
      const [slow, next] = await openTickets(seed, [simpleTicket("gamma", ["slow:6000"]), simpleTicket("delta")]);
      assert.ok(slow && next);
      const asked: { message: string; items: readonly string[]; detail?: string }[] = [];
      restore.push(api.notifier.setMessageApi(person([{ when: /^Start a Run on/, press: "Start" }], asked)));

      await vscode.commands.executeCommand("ticketRunner.start");
      assert.equal(
        asked.filter((q) => q.message.startsWith("Start a Run on")).at(-1)?.message,
        `Start a Run on ${seed.owner}/${seed.repo} with 1 lane and the demo agent?`,
        "a new lane count asks again",
      );
      await waitFor(() => api.runs.windowRun.view()?.busy.some((l) => l.ticket === slow && l.stage === "implement"), {
        what: `#${slow} in its implement Stage`,
        timeoutMs: 30_000,
      });

      const before = api.notices.length;
      await vscode.commands.executeCommand("ticketRunner.start");
      const refused = await waitFor(() => api.notices.slice(before).find((n) => n.level === "warning"));
      assert.match(refused.message, /already active in this window \(working on #\d+\)/);
      assert.deepEqual(refused.actions, ["Stop the Run"]);

      await vscode.commands.executeCommand("ticketRunner.stop");
      assert.equal(api.statusBar().text, `$(loading~spin) Ticket Runner · stopping: finishing #${slow}`);
      await waitFor(() => !api.runs.windowRun.isActive(), { what: "the stopped Run to end", timeoutMs: 100_000, intervalMs: 200 });

      assert.equal((await issue(slow)).state, "closed", "the busy lane finished its ticket");
      const untouched = await issue(next);
      assert.equal(untouched.state, "open");
      assert.deepEqual(await labelsOf(next), ["ready-for-agent"], "the next ticket was never claimed");
      assert.equal(untouched.assignees?.length ?? 0, 0);
      assert.equal(untouched.comments, 0, "no lease on it");
      const summary = await waitFor(() => api.notices.slice(before).find((n) => n.message.includes("Stopped at")));
      assert.match(summary.message, new RegExp(`Stopped at \\d\\d:\\d\\d · finishing #${slow}\\.`));
    });

    it("a refused Claim offers the claiming comment and Take Over…, and Take Over names what it displaces", async () => {
      const [held] = await openTickets(seed, [simpleTicket("epsilon")]);
      assert.ok(held);
      // bob, a person on another Host, holds it: the same claims code the CLI and the Run use.
      const bob = await new SandboxAdmin(seed.apiUrl, seed.adminToken).addUser({ login: "bob", repos: { [`${seed.owner}/${seed.repo}`]: "write" } });
      const tracker = new OctokitTracker(createOctokit({ apiUrl: seed.apiUrl, token: bob.token, log: quiet }), repo);
      const config = configSchema.parse({ lease: { settleMs: 0 } });
      const bobs = createClaimGate({
        tracker,
        runRoot: new FsRunRoot(mkdtempSync(join(tmpdir(), "tr-bob-"))),
        host: { id: "ws-laptop-2", name: "laptop-2", kind: "workstation" },
        clock: { now: () => new Date(), sleep: async () => undefined },
        log: quiet,
        labels: config.labels,
        lease: config.lease,
        holder: "person",
        runId: "bob-run",
        pid: 1,
      });
      const won = await bobs.take(held);

      const opened: string[] = [];
      restore.push(api.links.setOpener(async (uri) => (opened.push(uri.toString(true)), true)));
      const asked: { message: string; items: readonly string[]; detail?: string }[] = [];
      restore.push(api.notifier.setMessageApi(person([{ when: /is claimed by @bob/, press: "Open the Claiming Comment" }], asked)));
      const before = api.notices.length;
      await vscode.commands.executeCommand("ticketRunner.claim", held);
      const refusal = await waitFor(() => api.notices.slice(before).find((n: Notice) => n.level === "warning"));
      assert.match(refusal.message, new RegExp(`${seed.owner}/${seed.repo}#${held} is claimed by @bob on host "laptop-2"`));
      assert.deepEqual(refusal.actions, ["Open the Claiming Comment", "Take Over…", "Copy Command"]);
      await waitFor(() => opened.length > 0, { what: "the claiming comment to open" });
      assert.deepEqual(opened, [won.claim.commentUrl]);

      // The same warning's other button: Take Over…, which asks first and names what it displaces.
      restore.push(
        api.notifier.setMessageApi(
          person(
            [
              { when: /is claimed by @bob/, press: "Take Over…" },
              { when: /^Take over /, press: "Take Over" },
            ],
            asked,
          ),
        ),
      );
      await vscode.commands.executeCommand("ticketRunner.claim", held);
      await waitFor(async () => (await issue(held)).assignees?.some((u) => u.login === "ana"), { what: "ana to hold the ticket", timeoutMs: 30_000 });
      const confirm = asked.find((q) => q.message.startsWith("Take over "));
      assert.equal(confirm?.message, `Take over ${seed.owner}/${seed.repo}#${held}?`);
      assert.ok(confirm?.detail?.includes(won.claim.commentUrl), confirm?.detail);
      assert.match(confirm?.detail ?? "", /marked superseded/);
      assert.match(confirm?.detail ?? "", /Nothing is deleted/);
      const comments = (await admin.rest.issues.listComments({ ...repo, issue_number: held })).data;
      assert.ok(
        comments.find((c) => c.html_url === won.claim.commentUrl || String(c.id) === won.claim.commentId)?.body?.includes('"superseded"'),
        "bob's lease is marked superseded",
      );

      // Release puts it back on the Frontier for the next test's Run.
      await vscode.commands.executeCommand("ticketRunner.release", held);
      await waitFor(async () => (await labelsOf(held)).includes("ready-for-agent"), { what: "the release", timeoutMs: 30_000 });
      await vscode.commands.executeCommand("ticketRunner.filterAll");
    });

    it("Release of a ticket started from the CLI says what it kept in the CLI's words, and Copy Command copies the cleanup command", async () => {
      const [n] = await openTickets(seed, [simpleTicket("theta")]);
      assert.ok(n);
      // A person's `ticket-runner start` in this window's clone, on this Host: it claims and cuts the worktree.
      const cli = join(extension().extensionPath, "dist", "cli.js");
      const started = await execFileP(process.execPath, [cli, "start", String(n)], { cwd: seed.clone, env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" } });
      const worktree = join(seed.clone, ".worktrees", `ticket-${n}`);
      const branch = new RegExp(`Worktree: .* \\(branch (agent/${n}-\\S+)\\)`).exec(started.stdout)?.[1];
      assert.ok(branch, started.stdout);

      const asked: { message: string; items: readonly string[]; detail?: string }[] = [];
      restore.push(api.notifier.setMessageApi(person([{ when: /^Ticket Runner: Released/, press: "Copy Command" }], asked)));
      await vscode.env.clipboard.writeText("");
      const before = api.notices.length;
      await vscode.commands.executeCommand("ticketRunner.release", n);
      const notice = await waitFor(() => api.notices.slice(before).find((x) => x.message.startsWith("Ticket Runner: Released")), {
        what: "the release's message",
        timeoutMs: 30_000,
      });
      const drop = `git -C ${seed.clone} worktree remove ${worktree} && git -C ${seed.clone} branch -D ${branch}`;
      assert.equal(notice.level, "info");
      assert.ok(
        notice.message.includes(
          `Kept the worktree ${worktree} and the branch ${branch} (release deletes nothing). They hold nothing beyond the base, so a Run in this clone starts on them. To remove them anyway: \`${drop}\`.`,
        ),
        notice.message,
      );
      assert.deepEqual(notice.actions, ["Copy Command"]);
      const copied = await waitFor(async () => ((await vscode.env.clipboard.readText()) === drop ? drop : undefined), {
        what: "the command on the clipboard",
        timeoutMs: 10_000,
      });
      assert.equal(copied, drop);

      // Tidy up as the note says, and take the ticket off the Frontier for the tests after this one.
      await execFileP("sh", ["-c", drop], { env: { ...process.env, LC_ALL: "C" } });
      await admin.rest.issues.update({ ...repo, issue_number: n, state: "closed" });
    });

    it("stays responsive while a demo agent emits 20,000 events in 10 s (command round trips measured)", async () => {
      const [burst] = await openTickets(seed, [{ ...simpleTicket("zeta", ["burst:20000", "slow:10000"]) }]);
      assert.ok(burst);
      restore.push(api.notifier.setMessageApi(person([{ when: /^Start a Run on/, press: "Start" }], [])));
      const timeline: TimedRoundTrip[] = [];
      const roundTrip = async (): Promise<number> => {
        const at = Date.now();
        const t0 = performance.now();
        await vscode.commands.executeCommand("setContext", "ticketRunner.probe", t0);
        const ms = performance.now() - t0;
        timeline.push({ at, ms });
        return ms;
      };
      // VS Code's own start-up work, done before the measured stretches instead of inside the burst
      // (ADR 0460): about 5 s after a window's task configuration settles, VS Code asks every task
      // provider for its tasks; the built-in npm extension opens each package.json to read its
      // scripts, which starts the built-in JSON language extension in this host (a 240 ms module
      // load). A person's window has done this long before a Run; this one opened seconds ago.
      const startupStalls = watchHostStalls("startup");
      const tasks = await vscode.tasks.fetchTasks();
      const json = vscode.extensions.getExtension("vscode.json-language-features");
      if (json && tasks.some((t) => t.definition.type === "npm")) {
        await waitFor(() => json.isActive, { what: "VS Code's JSON language extension, started by the npm task detection", timeoutMs: 30_000 });
      }
      const startup = await startupStalls.stop();
      const baseline: number[] = [];
      const idleStalls = watchHostStalls("idle");
      for (let i = 0; i < 200; i++) baseline.push(await roundTrip());
      const idle = await idleStalls.stop();

      // By default (ADR 0265) the Run adds no worktree folder: that change stalled this host 330-495 ms.
      const folderEvents: string[] = [];
      const folderSub = vscode.workspace.onDidChangeWorkspaceFolders((e) =>
        folderEvents.push(...e.added.map((f) => `+${f.name}`), ...e.removed.map((f) => `-${f.name}`)),
      );
      restore.push(() => folderSub.dispose());
      await vscode.commands.executeCommand("ticketRunner.startOnTicket", burst);
      await waitFor(() => api.runs.windowRun.view()?.busy.some((l) => l.ticket === burst && l.stage === "implement"), {
        what: "the burst's implement Stage",
        timeoutMs: 30_000,
      });
      const during: number[] = [];
      const burstStalls = watchHostStalls("burst");
      const burstFrom = Date.now();
      while (api.runs.windowRun.view()?.busy.some((l) => l.ticket === burst && l.stage === "implement")) during.push(await roundTrip());
      const stalls = await burstStalls.stop();
      keepRoundTrips("burst", timeline, { burstFrom, burstTo: Date.now() });
      assert.deepEqual(folderEvents, [], "the Run itself added no worktree folder");
      // On request (the board's and the status bar's Open Worktree), the folder appears while the Run goes on.
      await vscode.commands.executeCommand("ticketRunner.openWorktree", burst);
      const name = `#${burst} Add the zeta helper`;
      assert.deepEqual(folderEvents, [`+${name}`], "Open Worktree added the folder");
      const shown = vscode.workspace.workspaceFolders?.findIndex((f) => f.name === name) ?? -1;
      assert.ok(shown > 0, "appended after the clone");
      await new Promise<void>((resolve) => {
        const done = vscode.workspace.onDidChangeWorkspaceFolders(() => (done.dispose(), resolve()));
        vscode.workspace.updateWorkspaceFolders(shown, 1);
      });
      await waitFor(() => !api.runs.windowRun.isActive(), { what: "the burst Run to end", timeoutMs: 100_000, intervalMs: 200 });

      const stats = api.runs.transcripts.stats(burst);
      assert.ok(stats && stats.lines >= 20_000, `all burst events reached the channel (${stats?.lines} lines)`);
      assert.equal(stats.appendedLines, stats.lines, "every line pushed was appended");
      assert.ok(stats.tail.includes("burst/19998.txt"), "the burst's last event is in the channel");
      assert.ok(during.length > 0);
      const b = [...baseline].sort((x, y) => x - y);
      const d = [...during].sort((x, y) => x - y);
      recordFigure("round trip idle p50", Number(percentile(b, 0.5).toFixed(1)), "ms");
      recordFigure("round trip during 20k-event burst p50", Number(percentile(d, 0.5).toFixed(1)), "ms");
      recordFigure("round trip during 20k-event burst p95", Number(percentile(d, 0.95).toFixed(1)), "ms");
      recordFigure("round trip during 20k-event burst max", Number((d.at(-1) ?? 0).toFixed(1)), "ms");
      recordFigure("round trips during the burst", during.length, "samples");
      recordFigure("extension host stall in VS Code's task detection before the burst", Number(startup.maxMs.toFixed(1)), "ms");
      recordFigure("extension host stall idle max", Number(idle.maxMs.toFixed(1)), "ms");
      recordFigure("extension host stall during 20k-event burst max", Number(stalls.maxMs.toFixed(1)), "ms");
      recordFigure("extension host stall during 20k-event burst p99", Number(stalls.p99Ms.toFixed(1)), "ms");
      recordFigure("burst p95 / idle p50", Number((percentile(d, 0.95) / Math.max(0.1, percentile(b, 0.5))).toFixed(1)), "x");
      recordFigure(
        "output channel appends for the burst ticket",
        stats.appends,
        `appends for ${stats.lines} lines, ${(stats.appendedChars / 1024).toFixed(0)} KB`,
      );
      assert.equal((await issue(burst)).state, "closed");
    });

    it("Prepare Repository (the walkthrough's init step) on a prepared Target says so and changes nothing", async () => {
      const before = api.notices.length;
      const offered: string[] = [];
      restore.push(api.picker.setPickApi({ pick: async (items) => (offered.push(...items.map((i) => i.label)), items[0]) }));
      await vscode.commands.executeCommand("ticketRunner.init");
      const notice = await waitFor(() => api.notices.slice(before).find((n) => n.message.includes("prepared")), { what: "the init report", timeoutMs: 30_000 });
      assert.deepEqual(offered, ["Prepare Repository", "Prepare Repository with the GitHub Actions workflow"]);
      assert.equal(notice.message, `Ticket Runner: ${seed.owner}/${seed.repo} is already prepared. Nothing was changed.`);
      assert.deepEqual(notice.actions, ["Open ticket-runner.json", "Show Log"]);
      assert.equal(existsSync(join(seed.clone, WORKFLOW_PATH)), false, "no workflow without the Actions choice");
    });

    it("Prepare Repository with the Actions workflow writes what `init --actions` writes, from ticket-runner.json", async () => {
      const configFile = join(seed.clone, "ticket-runner.json");
      const original = readFileSync(configFile, "utf8");
      const hadGithubDir = existsSync(join(seed.clone, ".github"));
      try {
        // The workflow installs a real agent: the Target names one (the suite's Runs use the demo agent).
        const config = { ...(JSON.parse(original) as Record<string, unknown>), agent: { kind: "codex" }, lockScope: "host", lanes: 3 };
        writeFileSync(configFile, JSON.stringify(config, null, 2));
        const before = api.notices.length;
        restore.push(api.picker.setPickApi({ pick: async (items) => items.find((i) => i.label.includes("GitHub Actions")) }));
        await vscode.commands.executeCommand("ticketRunner.init");
        const notice = await waitFor(() => api.notices.slice(before).find((n) => n.message.includes("prepared")), {
          what: "the init report",
          timeoutMs: 30_000,
        });
        assert.match(
          notice.message,
          /Commit ticket-runner\.json, \.gitignore, \.github\/workflows\/ticket-runner\.yml and \.github\/ticket-runner\/ before Start/,
        );
        assert.deepEqual(notice.actions, ["Open ticket-runner.json", "Open the workflow", "Show Log"]);
        // The CLI copy beside it is the extension's own CLI bundle, pinned by its checksum.
        const cli = readBundle(join(extension().extensionPath, "dist", CLI_BUNDLE_FILE));
        assert.ok(existsSync(join(seed.clone, cli.target)), `${cli.target} was written`);
        const expected = actionsWorkflow({
          lanes: 3,
          agent: "codex",
          readyLabel: configSchema.parse(config).labels.ready,
          cliVersion: PRODUCT_VERSION,
          cliFile: cli.target,
          cliSha256: cli.sha256,
        });
        assert.equal(readFileSync(join(seed.clone, WORKFLOW_PATH), "utf8"), expected);
      } finally {
        writeFileSync(configFile, original);
        rmSync(join(seed.clone, hadGithubDir ? WORKFLOW_PATH : ".github"), { recursive: true, force: true });
      }
    });

    it("Start asks again when ticket-runner.json changes the agent's command line, shows it, and runs nothing until answered (ADR 0230)", async () => {
      const file = join(seed.clone, "ticket-runner.json");
      const original = readFileSync(file, "utf8");
      const config = JSON.parse(original) as { agent?: Record<string, unknown> };
      writeFileSync(file, JSON.stringify({ ...config, agent: { ...config.agent, model: "pushed-by-someone", permissionMode: "bypassPermissions" } }, null, 2));
      restore.push(() => writeFileSync(file, original));
      const asked: { message: string; items: readonly string[]; detail?: string }[] = [];
      restore.push(api.notifier.setMessageApi(person([], asked)));
      await vscode.commands.executeCommand("ticketRunner.start");
      const question = asked.find((q) => q.message.startsWith("Start a Run on"));
      assert.ok(question, "the same repository, lanes and agent name, another command line: asked again");
      assert.match(
        question.detail ?? "",
        /The agent runs: the scripted demo agent \(from the PATH\); permission mode bypassPermissions, model pushed-by-someone, without your GitHub token\./,
      );
      assert.equal(api.runs.windowRun.isActive(), false, "dismissed: no Run");
    });

    it("a kill (window reload or close) writes nothing to the board: the claim stays for the next Run", async () => {
      const [victim] = await openTickets(seed, [simpleTicket("eta", ["slow:20000"])]);
      assert.ok(victim);
      restore.push(api.notifier.setMessageApi(person([{ when: /^Start a Run on/, press: "Start" }], [])));
      await vscode.commands.executeCommand("ticketRunner.startOnTicket", victim);
      await waitFor(() => api.runs.windowRun.view()?.busy.some((l) => l.ticket === victim && l.stage === "implement"), {
        what: "the implement Stage",
        timeoutMs: 30_000,
      });
      // Well into the Stage (the agent has spoken), so the Stage's own start-up writes have landed.
      await waitFor(() => api.runs.transcripts.stats(victim)?.tail.includes("Still working on the implement Stage (1/5)"), {
        what: "the agent to be working",
        timeoutMs: 30_000,
      });
      const sandbox = new SandboxAdmin(seed.apiUrl, seed.adminToken);
      await sandbox.clearRequestLog();
      // What deactivate() does when the window goes away.
      api.runs.windowRun.kill();
      await waitFor(() => !api.runs.windowRun.isActive(), { what: "the killed Run to end", timeoutMs: 30_000 });
      await issue(victim); // one round trip after the end, so anything still in flight has landed in the log
      // REST writes would be comments, labels, pushes of State; GraphQL is the board's reads (and claim writes, checked below).
      const writes = (await sandbox.requestLog()).filter((r) => r.user === "ana" && r.method !== "GET" && r.path !== "/graphql");
      assert.deepEqual(writes, [], "nothing written after the kill");
      const lease = (await admin.rest.issues.listComments({ ...repo, issue_number: victim })).data.map((c) => c.body ?? "").find((b) => b.includes('"nonce"'));
      assert.ok(lease, "the lease is still on the issue");
      assert.doesNotMatch(lease, /"state":\s*"(released|handed-off|finished)"/, "the lease was not ended");
      assert.deepEqual((await labelsOf(victim)).sort(), ["in-progress"], "the claim stays on the board");
      assert.equal(api.statusBar().visible, false);
      assert.equal(api.runs.windowRun.view()?.ended.length, 0, "no ending was recorded for the killed ticket");
    });
  });
}
