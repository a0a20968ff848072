/**
 * The sandbox as its own process (`node dist/cli.js sandbox --port 0 --json`), with the same handle
 * as startSandbox(). Use it when the caller blocks on synchronous git calls against the sandbox
 * (a clone with spawnSync): an in-process server could not answer them. Needs `npm run build`.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SandboxAdmin } from "../../src/sandbox/admin-client";
import type { SandboxHandle } from "../../src/sandbox/start";
import { waitFor } from "./wait-for";

export const CLI_BUNDLE = resolve(__dirname, "../../dist/cli.js");

export interface SandboxProcess extends SandboxHandle {
  pid: number;
  /** Resolves with the signal that ended it, or null when it exited by itself. */
  exited: Promise<NodeJS.Signals | null>;
}

export async function sandboxProcess(opts: { dataDir?: string } = {}): Promise<SandboxProcess> {
  const args = [CLI_BUNDLE, "sandbox", "--port", "0", "--json", ...(opts.dataDir ? ["--data", opts.dataDir] : [])];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } });
  let text = "";
  child.stdout!.on("data", (c: Buffer) => (text += c.toString("utf8")));
  // Read stderr as it comes (a full pipe would block the sandbox) and keep its tail for the error below.
  let errTail = "";
  child.stderr!.on("data", (c: Buffer) => (errTail = (errTail + c.toString("utf8")).slice(-2000)));
  const exited = new Promise<NodeJS.Signals | null>((res) => child.on("close", (_code, signal) => res(signal)));
  let closed = false;
  void exited.then(() => (closed = true));
  // A sandbox that cannot start says why at once, rather than after the address wait runs out.
  const got = await waitFor(() => (text.includes("\n") ? { first: text.split("\n")[0] ?? "" } : closed ? { first: null } : null), {
    timeoutMs: 20_000,
    what: "the sandbox to print its address",
  });
  if (got.first === null) {
    const missing = existsSync(CLI_BUNDLE) ? "" : `; ${CLI_BUNDLE} is missing: run npm run build`;
    throw new Error(
      `the sandbox process ended (${child.signalCode ?? `exit ${child.exitCode}`}) before printing its address: ${errTail.trim() || "no output"}${missing}`,
    );
  }
  const first = got.first;
  const { apiUrl, token, seedsDir } = JSON.parse(first) as { apiUrl: string; token: string; seedsDir: string };
  if (child.pid === undefined) throw new Error("the sandbox process did not start");
  return {
    pid: child.pid,
    exited,
    apiUrl,
    adminToken: token,
    seedsDir,
    gitUrl: (owner, repo) => `${apiUrl}/${owner}/${repo}.git`,
    admin: new SandboxAdmin(apiUrl, token),
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
