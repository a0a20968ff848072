/**
 * Drives tests/integration/workspace/support/workspace-child.ts in a separate node process: one
 * JSON command per line on stdin, one JSON reply per line on stdout.
 */
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

const SCRIPT = join(__dirname, "workspace-child.ts");

export type ChildReply = { ok: true; value?: unknown } | { ok: false; error: string; reason?: string };

export interface WorkspaceChild {
  pid: number;
  send(command: Record<string, unknown>): Promise<ChildReply>;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<number | string | null>;
  kill(signal: NodeJS.Signals): void;
  close(): Promise<void>;
}

export async function startChild(root: string, env: Record<string, string> = {}): Promise<WorkspaceChild> {
  const proc: ChildProcessWithoutNullStreams = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), SCRIPT, root], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
    // Debugging aid: TEST_CHILD_STDERR=1 shows what the children say.
    if (process.env.TEST_CHILD_STDERR) process.stderr.write(d);
  });
  const exited = new Promise<number | string | null>((resolve) => proc.on("exit", (code, signal) => resolve(code ?? signal)));
  const waiting: ((reply: ChildReply) => void)[] = [];
  const lines = createInterface({ input: proc.stdout });
  lines.on("line", (line) => waiting.shift()?.(JSON.parse(line) as ChildReply));
  void exited.then(() => {
    for (const w of waiting.splice(0)) w({ ok: false, error: `child exited: ${stderr.slice(-2000)}` });
  });
  const child: WorkspaceChild = {
    pid: proc.pid!,
    send(command) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        proc.stdin.write(`${JSON.stringify(command)}\n`);
      });
    },
    exited,
    kill(signal) {
      proc.kill(signal);
    },
    async close() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.stdin.end();
        await exited;
      }
    },
  };
  const ready = await child.send({ op: "ping" });
  if (!ready.ok) throw new Error(`workspace child did not start: ${ready.error}`);
  return child;
}
