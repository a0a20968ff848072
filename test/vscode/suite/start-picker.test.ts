// Start on Ticket's picker inside the extension host, against the run suite's sandbox (its --setup
// is test/vscode/support/run-setup.ts; this file registers nothing otherwise). Runs after
// run.test.ts (files run in name order) and closes every issue it opens.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { SandboxAdmin } from "../../../src/sandbox/admin-client";
import type { TicketRunnerApi } from "../../../src/vscode/api";
import type { MessageApi } from "../../../src/vscode/notifier";
import type { PickApi } from "../../../src/vscode/quick-picks";
import { SKIPPED_HEADING, STARTABLE_HEADING, type StartItem } from "../../../src/vscode/run/start-picker";
import { sandboxOctokit } from "../../support/board-seed";
import { demoTicketBody, openTickets, simpleTicket } from "../../support/run-seed";
import { waitFor } from "../../support/wait-for";
import { activeApi } from "../support/extension";
import { recordFigure } from "../support/figures";
import type { RunSeedInfo } from "../support/run-setup";

const raw = process.env["TICKET_RUNNER_RUN_SEED"];

interface Shown {
  title: string | undefined;
  items: StartItem[];
}

/** Plays the person at the QuickPick: records what is shown, then chooses the row for `ticket`. */
function choose(ticket: () => number, shown: Shown[], before?: () => Promise<void>): PickApi {
  return {
    async pick(items, options) {
      shown.push({ title: options.title, items: items.map((i) => i as StartItem) });
      await before?.();
      return items.find((i) => (i as StartItem).ticket === ticket());
    },
  };
}

if (raw) {
  const seed = JSON.parse(raw) as RunSeedInfo;
  const admin = sandboxOctokit(seed.apiUrl, seed.adminToken);
  const sandbox = new SandboxAdmin(seed.apiUrl, seed.adminToken);
  const repo = { owner: seed.owner, repo: seed.repo };
  const full = `${seed.owner}/${seed.repo}`;

  describe("the Run in the extension host: Start on Ticket… offers startable tickets first", function () {
    this.timeout(120_000);
    let api: TicketRunnerApi;
    let restore: (() => void)[] = [];
    const opened: number[] = [];

    before(async () => {
      api = await activeApi();
    });

    afterEach(() => {
      for (const r of restore.reverse()) r();
      restore = [];
    });

    after(async () => {
      for (const n of opened) await admin.rest.issues.update({ ...repo, issue_number: n, state: "closed" });
    });

    it("lists tickets a Run would skip after the startable ones, with why; choosing a blocked one starts nothing and says what to do", async () => {
      // A blocker (no label), a ticket it blocks, one labelled by eve (who has lost write access),
      // one without acceptance criteria, and one a Run would take.
      const blocker = (await admin.rest.issues.create({ ...repo, title: "Decide the schema", body: "Which fields?" })).data;
      const [blocked] = await openTickets(seed, [simpleTicket("iota")]);
      assert.ok(blocked);
      await admin.request("POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by", { ...repo, issue_number: blocked, issue_id: blocker.id });
      const eve = await sandbox.addUser({ login: "eve", repos: { [full]: "write" } });
      const untrusted = (
        await sandboxOctokit(seed.apiUrl, eve.token).rest.issues.create({
          ...repo,
          title: "Add the kappa helper",
          body: demoTicketBody(simpleTicket("kappa")),
          labels: ["ready-for-agent"],
        })
      ).data.number;
      await sandbox.setRole("eve", full, "read");
      const vague = (
        await admin.rest.issues.create({ ...repo, title: "Make the shop nicer", body: "Make it nicer.\n\n- [x] already done", labels: ["ready-for-agent"] })
      ).data.number;
      const [startable] = await openTickets(seed, [simpleTicket("lambda")]);
      assert.ok(startable);
      opened.push(blocker.number, blocked, untrusted, vague, startable);

      const shown: Shown[] = [];
      let reads: { method: string; path: string; query: string }[] = [];
      await sandbox.clearRequestLog();
      restore.push(
        api.picker.setPickApi(
          choose(
            () => blocked,
            shown,
            async () => {
              reads = (await sandbox.requestLog()).filter((r) => r.user === "ana");
            },
          ),
        ),
      );
      const before = api.notices.length;
      await vscode.commands.executeCommand("ticketRunner.startOnTicket");

      // What the person saw: startable first, then the ones a Run would skip, each with its reason.
      assert.equal(shown.length, 1);
      const items = shown[0]!.items;
      assert.equal(shown[0]!.title, `Start on a ticket of ${full}`);
      const at = (n: number) => items.findIndex((i) => i.ticket === n);
      const heading = (label: string) => items.findIndex((i) => i.kind === vscode.QuickPickItemKind.Separator && i.label === label);
      assert.equal(heading(STARTABLE_HEADING), 0, items.map((i) => i.label).join(" | "));
      assert.ok(heading(STARTABLE_HEADING) < at(startable) && at(startable) < heading(SKIPPED_HEADING), items.map((i) => i.label).join(" | "));
      assert.ok(heading(SKIPPED_HEADING) < at(blocked) && at(blocked) < at(untrusted) && at(untrusted) < at(vague), "skipped ones lowest number first");
      for (const i of items.slice(0, heading(SKIPPED_HEADING))) assert.equal(i.refusal, undefined, `${i.label} is startable`);
      const row = (n: number) => items[at(n)]!;
      assert.equal(row(startable).label, `$(play) #${startable}`);
      assert.equal(row(startable).description, "Add the lambda helper");
      assert.deepEqual([row(blocked).label, row(blocked).detail], [`$(lock) #${blocked}`, `blocked by #${blocker.number} (open)`]);
      assert.deepEqual(
        [row(untrusted).label, row(untrusted).detail],
        [`$(circle-slash) #${untrusted}`, "ready-for-agent applied by eve, who has no write access"],
      );
      assert.deepEqual([row(vague).label, row(vague).detail], [`$(circle-slash) #${vague}`, "no unticked acceptance criteria"]);
      assert.equal(at(blocker.number), -1, "an issue without the ready label is not listed");

      // Choosing the blocked one: a warning that says what happened, what holds it (linked) and the next step.
      const warning = await waitFor(() => api.notices.slice(before).find((n) => n.level === "warning"), { what: "the warning" });
      const blockerUrl = blocker.html_url;
      assert.equal(
        warning.message,
        `Ticket Runner: ${full}#${blocked} was not started, as a narrowed Run would skip it: blocked by #${blocker.number} (open). See ${blockerUrl}. ` +
          `Next: close #${blocker.number} first (or remove it from #${blocked}'s blocked-by list), then Start on Ticket again.`,
      );
      assert.deepEqual(warning.actions, ["Open Link"]);
      assert.ok(!api.runs.windowRun.isActive(), "no Run was started");
      assert.ok(!api.notices.slice(before).some((n) => n.message.startsWith("Start a Run on")), "not even asked");

      // Read only: no comment (the Run's no-criteria comment is the Run's), no label, no claim.
      for (const n of [blocked, untrusted, vague, startable]) {
        const issue = (await admin.rest.issues.get({ ...repo, issue_number: n })).data;
        assert.equal(issue.comments, 0, `#${n} has no comment`);
        assert.deepEqual(
          issue.labels.map((l) => (typeof l === "string" ? l : l.name)),
          ["ready-for-agent"],
          `#${n} keeps its labels`,
        );
        assert.equal(issue.assignees?.length ?? 0, 0);
      }
      assert.deepEqual(
        reads.filter((r) => r.method !== "GET" && r.path !== "/graphql"),
        [],
        "no REST write while reading",
      );

      // The requests (ana's, while reading): one listing, then per checked ticket its events, a
      // permission read per labeller, and a blockers query. The board's own polls are GraphQL too,
      // so GraphQL is bounded, not counted exactly.
      const listed = items.filter((i) => i.ticket !== undefined).length;
      const rest = (re: RegExp) => reads.filter((r) => r.method === "GET" && re.test(r.path)).length;
      const issues = `/repos/${seed.owner}/${seed.repo}/issues`;
      assert.equal(rest(new RegExp(`^${issues}$`)), 1, "one listing page");
      const events = rest(new RegExp(`^${issues}/\\d+/events$`));
      assert.ok(events >= 4 && events <= listed, `at most one events page per ticket (${events} for ${listed})`);
      // Permissions are read once per person (labellers, and editors of a body after its label), never per ticket.
      const permissionReads = reads
        .filter((r) => r.method === "GET" && /\/collaborators\/[^/]+\/permission$/.test(r.path))
        .map((r) => r.path.split("/").at(-2));
      assert.deepEqual(permissionReads, [...new Set(permissionReads)], `one permission read per person (${permissionReads.join(", ")})`);
      assert.ok(reads.length <= 1 + 3 * listed, `${reads.length} requests for ${listed} tickets`);
      recordFigure("Start on Ticket picker: requests to read", reads.length, `requests for ${listed} tickets`);
    });

    it("choosing a startable ticket goes on to start a narrowed Run on it (the question names it)", async () => {
      const startable = opened[opened.length - 1]!;
      // A lane count this workspace has not agreed to, so Start asks; the person dismisses it.
      await vscode.workspace.getConfiguration("ticketRunner").update("lanes", 3, vscode.ConfigurationTarget.Global);
      restore.push(() => void vscode.workspace.getConfiguration("ticketRunner").update("lanes", undefined, vscode.ConfigurationTarget.Global));
      const asked: { message: string; detail?: string }[] = [];
      const dismiss: MessageApi = {
        show(_level, message, options) {
          asked.push({ message, ...(options.detail ? { detail: options.detail } : {}) });
          return Promise.resolve(undefined);
        },
      };
      restore.push(api.notifier.setMessageApi(dismiss));
      const shown: Shown[] = [];
      restore.push(api.picker.setPickApi(choose(() => startable, shown)));
      await vscode.commands.executeCommand("ticketRunner.startOnTicket");
      assert.equal(shown.length, 1);
      const question = asked.find((q) => q.message.startsWith("Start a Run on"));
      assert.equal(question?.message, `Start a Run on ${full} with 3 lanes and the demo agent?`);
      assert.match(question?.detail ?? "", new RegExp(`It claims ticket #${startable} as you`));
      assert.ok(!api.runs.windowRun.isActive(), "dismissed: no Run");
    });
  });
}
