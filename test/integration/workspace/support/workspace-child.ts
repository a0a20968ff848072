/**
 * A separate process playing a Run (or a Host) against the real GitWorkspace. Usage:
 *   node --require tsx/cjs workspace-child.ts <root>
 * Reads JSON commands from stdin, answers one JSON line each. Host identity comes from the env
 * (TICKET_RUNNER_HOST_SESSION etc.), as for a real Run.
 */
import { createInterface } from "node:readline";
import { isRefusal } from "../../../../src/core/errors";
import { NodeHost } from "../../../../src/adapters/node-host";
import { stateFor, workspaceOn } from "./workspace-fixture";

const root = process.argv[2];
if (!root) throw new Error("usage: workspace-child.ts <root>");
const host = new NodeHost();
const ws = workspaceOn(root, { host, lockScope: process.env.TEST_LOCK_SCOPE === "host" ? "host" : "target" });

async function handle(cmd: { op: string; ticket?: number; runId?: string }): Promise<unknown> {
  switch (cmd.op) {
    case "ping":
      return process.pid;
    case "writeState":
      return ws.writeState(cmd.ticket!, () => stateFor(cmd.ticket!, { runId: cmd.runId ?? "child" }));
    case "acquire": {
      const res = await ws.acquireLock({
        host: host.identity(),
        pid: process.pid,
        command: "ticket-runner run",
        runId: cmd.runId!,
        startedAt: new Date().toISOString(),
        processStartTime: await host.processStartTime(process.pid),
      });
      return res.ok ? { won: true } : { won: false, standing: res.standing, holder: res.holder.runId };
    }
    case "release":
      return ws.releaseLock(cmd.runId!);
    default:
      throw new Error(`unknown op ${cmd.op}`);
  }
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  handle(JSON.parse(line) as { op: string })
    .then((value) => process.stdout.write(`${JSON.stringify({ ok: true, value })}\n`))
    .catch((e: unknown) =>
      process.stdout.write(
        `${JSON.stringify({ ok: false, error: String(e instanceof Error ? e.message : e), reason: isRefusal(e) ? e.reason : undefined })}\n`,
      ),
    );
});
lines.on("close", () => process.exit(0));
