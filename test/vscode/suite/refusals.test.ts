import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { Refusal, Failure } from "../../../src/core/errors";
import { runCommand, type CommandServices } from "../../../src/vscode/run-command";
import { Notifier } from "../../../src/vscode/notifier";
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
    const refusal = new Refusal("claimed-elsewhere", "#7 is claimed by laptop-2 (ana) since 10:02: https://example.test/c/1. To take it: ticket-runner start 7 --take-over", {
      link: "https://example.test/c/1",
      next: "ticket-runner start 7 --take-over",
    });
    const run = runCommand(services, { id: "ticketRunner.claim", handler: () => Promise.reject(refusal) });
    assert.equal(await run({ ticket: 7 }), undefined, "a refused command resolves; the message is the report");
    const notice = notifier.recent.at(-1);
    assert.equal(notice?.level, "warning");
    assert.equal(notice?.message, refusal.message);
    assert.deepEqual(notice?.actions, ["Open the Claiming Comment", "Take Over…", "Copy Command"]);
    assert.ok(lines.some((l) => l.startsWith("warn refused:") && l.includes('"reason":"claimed-elsewhere"')), lines.join("\n"));
  });

  it("shows a Failure as an error with a button to the log, and redacts tokens", async () => {
    const { services, notifier } = wrapperServices();
    const token = "ghp_" + "a".repeat(36);
    const run = runCommand(services, { id: "ticketRunner.refresh", handler: () => { throw new Failure("network", `GitHub did not answer (token ${token})`); } });
    await run();
    const notice = notifier.recent.at(-1);
    assert.equal(notice?.level, "error");
    assert.deepEqual(notice?.actions, ["Show Log"]);
    assert.ok(!notice?.message.includes(token), notice?.message);
  });

  it("keeps quiet when the person cancelled", async () => {
    const { services, notifier } = wrapperServices();
    await runCommand(services, { id: "ticketRunner.start", handler: () => { throw new vscode.CancellationError(); } })();
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
});
