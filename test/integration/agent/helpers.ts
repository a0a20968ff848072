/**
 * Shared by the agent integration tests: a temp dir with the fake `claude` on PATH, a worktree
 * stand-in and a log dir; and a process liveness check that does not count zombies as alive.
 */
import { readFileSync } from "node:fs";
import { copyFile, chmod, mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { makeTempDir } from "../../support/git-fixtures";

export const REPO_ROOT = resolve(__dirname, "../../..");
export const FIXTURES = join(REPO_ROOT, "test/fixtures/claude-streams");
const FAKE_CLAUDE = join(REPO_ROOT, "test/fixtures/fake-claude/claude");

export interface FakeClaudeSandbox {
  root: string;
  bin: string;
  cwd: string;
  logDir: string;
  record: string;
  /** An env whose PATH finds the fake `claude` first, replaying `fixture`. */
  env(fixture: string, extra?: Record<string, string>): NodeJS.ProcessEnv;
  readRecord(): { argv: string[]; cwd: string; env: Record<string, string>; pid: number; stdin: string; grandchildPid: number | null };
  cleanup(): Promise<void>;
}

export async function fakeClaudeSandbox(): Promise<FakeClaudeSandbox> {
  const root = await makeTempDir("tr-agent-");
  const bin = join(root, "bin");
  const cwd = join(root, "worktree");
  const logDir = join(root, "logs");
  await mkdir(bin);
  await mkdir(cwd);
  await copyFile(FAKE_CLAUDE, join(bin, "claude"));
  await chmod(join(bin, "claude"), 0o755);
  const record = join(root, "record.json");
  return {
    root,
    bin,
    cwd,
    logDir,
    record,
    env(fixture, extra = {}) {
      return {
        ...process.env,
        PATH: `${bin}:${process.env.PATH ?? ""}`,
        FAKE_CLAUDE_FIXTURE: join(FIXTURES, `${fixture}.jsonl`),
        FAKE_CLAUDE_RECORD: record,
        ...extra,
      };
    },
    readRecord() {
      return JSON.parse(readFileSync(record, "utf8"));
    },
    async cleanup() {
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** True while `pid` runs. A zombie (exited, not yet reaped by its parent or init) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/**
 * Bundles src/sandbox/demo-agent-main.ts into a temp dir, exactly as esbuild.mjs does for
 * dist/demo-agent.js, so the tests always run the current source as a real node process.
 * Returns the directory holding demo-agent.js.
 */
export async function buildDemoAgent(): Promise<string> {
  const { build, stop } = await import("esbuild");
  const dir = await makeTempDir("tr-demo-dist-");
  try {
    await build({
      entryPoints: [join(REPO_ROOT, "src/sandbox/demo-agent-main.ts")],
      outfile: join(dir, "demo-agent.js"),
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      logLevel: "silent",
    });
  } finally {
    // esbuild keeps a service process for later builds; a suite must leave no process running.
    await stop();
  }
  return dir;
}
