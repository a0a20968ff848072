/**
 * The sandbox runs as its own process (`ticket-runner sandbox --seed demo --data <dir>/sandbox`),
 * so the Run, code-server and the sandbox never share one event loop, and a Ctrl+C that kills the
 * Run still lets the sandbox flush its data on the SIGTERM the demo sends it.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { DemoChild, DemoChildren } from "./children";
import type { DemoPaths } from "./folder";

const announceSchema = z.object({ apiUrl: z.string().url(), gitUrl: z.string().url(), token: z.string().min(1), seedsDir: z.string().min(1) }).strict();

export interface DemoSandbox {
  child: DemoChild;
  apiUrl: string;
  adminToken: string;
  port: number;
  gitUrl(owner: string, repo: string): string;
}

export interface StartSandboxChildInput {
  children: DemoChildren;
  paths: DemoPaths;
  cliJs: string;
  env: NodeJS.ProcessEnv;
  /** The port the last demo used (so links in comments stay valid); any free one when it is taken. */
  preferredPort: number | null;
  timeoutMs?: number;
}

export async function startSandboxChild(input: StartSandboxChildInput): Promise<DemoSandbox> {
  const ports = input.preferredPort ? [input.preferredPort, 0] : [0];
  let lastError: Error | null = null;
  for (const port of ports) {
    try {
      return await startOnce(input, port);
    } catch (error) {
      lastError = error as Error;
    }
  }
  throw lastError ?? new Error("the sandbox did not start");
}

async function startOnce(input: StartSandboxChildInput, port: number): Promise<DemoSandbox> {
  mkdirSync(input.paths.logs, { recursive: true });
  const logFile = join(input.paths.logs, "sandbox.log");
  const log = openSync(logFile, "a");
  const args = [input.cliJs, "sandbox", "--port", String(port), "--data", input.paths.sandboxData, "--seed", "demo", "--json"];
  let child: DemoChild;
  try {
    child = await input.children.spawn("sandbox", process.execPath, args, {
      cwd: input.paths.root,
      env: input.env,
      stdio: ["ignore", "pipe", log],
      group: true,
    });
  } finally {
    closeSync(log);
  }
  const stdout = child.process.stdout;
  if (!stdout) throw new Error("the sandbox has no stdout pipe");
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(
      () => reject(new Error(`the sandbox did not announce itself within ${input.timeoutMs ?? 30_000} ms (see ${logFile})`)),
      input.timeoutMs ?? 30_000,
    );
    stdout.setEncoding("utf8");
    stdout.on("data", (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      resolve(buffer.slice(0, nl));
    });
    void child.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited with code ${code} before it was ready${port ? ` (port ${port} may be taken)` : ""}; see ${logFile}`));
    });
  });
  // Keep reading so a later write can never block the sandbox on a full pipe.
  stdout.resume();
  let parsed: z.infer<typeof announceSchema>;
  try {
    parsed = announceSchema.parse(JSON.parse(line));
  } catch (error) {
    await input.children.stop(child, "SIGTERM", 5_000);
    throw new Error(`the sandbox announced something unexpected (${(error as Error).message}); see ${logFile}`);
  }
  const apiUrl = parsed.apiUrl.replace(/\/+$/, "");
  return { child, apiUrl, adminToken: parsed.token, port: Number(new URL(apiUrl).port), gitUrl: (owner, repo) => `${apiUrl}/${owner}/${repo}.git` };
}
