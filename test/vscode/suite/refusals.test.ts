import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { Refusal, Failure } from "../../../src/core/errors";
import { runCommand, type CommandServices } from "../../../src/vscode/run-command";
import { Notifier, type MessageApi } from "../../../src/vscode/notifier";
import type { Log, LogFields } from "../../../src/ports/log";
import { activeApi } from "../support/extension";
import { waitFor } from "../../support/wait-for";

// The command wrapper, with real VS Code notifications. The services it does not touch are left out.
function wrapperServices(): { services: CommandServices; notifier: Notifier; lines: string[] } {
  const lines: string[] = [];
  const record = (level: string) => (message: string, fields?: LogFields) => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const log: Log = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  const notifier = new Notifier(log);
  const services = { log, notifier, logChannel: { show: () => undefined } } as unknown as CommandServices;
  return { services, notifier, lines };
}

describe("the command wrapper", () => {
  it("shows a claim Refusal as a warning whose buttons are the next actions", async () => {
    const { services, notifier, lines } = wrapperServices();
    const refusal = new Refusal(
      "claimed-elsewhere",
      "#7 is claimed by laptop-2 (ana) since 10:02: https://example.test/c/1. To take it: ticket-runner start 7 --take-over",
      {
        link: "https://example.test/c/1",
        next: "ticket-runner start 7 --take-over",
      },
    );
    const run = runCommand(services, { id: "ticketRunner.claim", handler: () => Promise.reject(refusal) });
    assert.equal(await run({ ticket: 7 }), undefined, "a refused command resolves; the message is the report");
    const notice = notifier.recent.at(-1);
    assert.equal(notice?.level, "warning");
    assert.equal(notice?.message, refusal.message);
    assert.deepEqual(notice?.actions, ["Open the Claiming Comment", "Take Over…", "Copy Command"]);
    assert.ok(
      lines.some((l) => l.startsWith("warn refused:") && l.includes('"reason":"claimed-elsewhere"')),
      lines.join("\n"),
    );
  });

  it("shows a Failure as an error with a button to the log, and redacts tokens", async () => {
    const { services, notifier } = wrapperServices();
    const token = "ghp_" + "a".repeat(36);
    const run = runCommand(services, {
      id: "ticketRunner.refresh",
      handler: () => {
        throw new Failure("network", `GitHub did not answer (token ${token})`);
      },
    });
    await run();
    const notice = notifier.recent.at(-1);
    assert.equal(notice?.level, "error");
    assert.deepEqual(notice?.actions, ["Show Log"]);
    assert.ok(!notice?.message.includes(token), notice?.message);
  });

  it("keeps quiet when the person cancelled", async () => {
    const { services, notifier } = wrapperServices();
    await runCommand(services, {
      id: "ticketRunner.start",
      handler: () => {
        throw new vscode.CancellationError();
      },
    })();
    assert.equal(notifier.recent.length, 0);
  });

  it("turns a malformed ticketRunner.apiUrl into a bad-config warning with Open Settings (end to end)", async () => {
    const api = await activeApi();
    const config = vscode.workspace.getConfiguration("ticketRunner");
    await config.update("apiUrl", "not a url", vscode.ConfigurationTarget.Global);
    try {
      const before = api.notices.length;
      await vscode.commands.executeCommand("ticketRunner.signIn");
      const notice = await waitFor(() => api.notices.slice(before).find((n) => n.level === "warning"), { what: "a bad-config warning" });
      assert.match(notice.message, /ticketRunner\.apiUrl. setting is not a URL/);
      assert.equal(notice.actions[0], "Open Settings");
    } finally {
      await config.update("apiUrl", undefined, vscode.ConfigurationTarget.Global);
    }
  });
  it("hands VS Code no live link from text that came from GitHub or the agent: refusals, failures, dialogs (ADR 0231)", async () => {
    // VS Code 1.100's linked text (parseLinkedText): what its notifications and dialogs make a link.
    const linked = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i;
    const hostile = "[Open a terminal](command:workbench.action.terminal.new)";
    const { services, notifier } = wrapperServices();
    const seen: string[] = [];
    const capture: MessageApi = { show: (_level, message, options) => (seen.push(message, options.detail ?? ""), Promise.resolve(undefined)) };
    const restore = notifier.setMessageApi(capture);
    try {
      // A lease's host is whatever its writer put there; a GitHub error message is the server's text.
      const refusal = new Refusal("claimed-elsewhere", `#7 is claimed by ana on ${hostile} since 10:02.`, { link: "https://example.test/c/1" });
      await runCommand(services, { id: "ticketRunner.claim", handler: () => Promise.reject(refusal) })(7);
      await runCommand(services, { id: "ticketRunner.refresh", handler: () => Promise.reject(new Failure("github", `GitHub said: ${hostile}`)) })();
      // An agent's hand-off line, and a dialog's detail.
      notifier.warn(`Ticket Runner: demo/shop#3 was handed off to a person (at verify: ${hostile})`);
      await notifier.confirm(`Take over ${hostile}?`, `Held by ${hostile}`, ["Take Over"]);
      await waitFor(() => seen.length >= 8, { what: "four messages at VS Code's message API" });
    } finally {
      restore();
    }
    for (const text of seen) assert.ok(!linked.test(text), `a live link reached VS Code: ${text}`);
    assert.ok(seen.filter((t) => t.replaceAll("\u200B", "").includes(hostile)).length >= 5, "the text still reads as it was written");
  });
});
