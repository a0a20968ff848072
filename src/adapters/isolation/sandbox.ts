/**
 * The OS boundary around code the agent writes (ADR 0290): the agent's process and every Check run
 * inside a bubblewrap sandbox. Its own pid namespace and a fresh /proc (the Run and the Run's git,
 * where the token is, are not there to read), no capabilities (so that /proc cannot be unmounted to
 * show the host's), the whole file system read-only but the places work happens, and the clone's git
 * control files (config, hooks, the worktree pointers, every config file git reads) read-only even
 * there, so nothing running inside can plant what the Run's git would read. When the sandbox's first
 * process exits or is killed, the kernel ends every process in it: nothing the agent started outlives
 * its Stage or its Check to race the Run's git (ADR 0223).
 */
import { spawn } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { Refusal } from "../../core/errors";
import { warmSpawner } from "../spawner/spawner";
import { mounts, type SandboxLayout } from "./mounts";

export type IsolationMode = "sandbox" | "none";

export interface SandboxOptions {
  mode: IsolationMode;
  /** The bwrap executable. Default `bwrap` on the PATH of `env`. */
  bwrap?: string;
  env?: NodeJS.ProcessEnv;
  /** This process's uid (tests); default process.getuid(). */
  uid?: number;
}

/** Under root, the sandbox's processes are this uid (mapped to root outside): agents refuse some settings as root. */
export const SANDBOX_UID_UNDER_ROOT = 1000;

const INSTALL = "sudo apt-get install -y bubblewrap";
const OPT_OUT = '"isolation": "none" in ticket-runner.json';

/** Where `name` would be executed from, on `path`; null when nowhere. */
export function findExecutable(name: string, path: string | undefined, cwd: string): string | null {
  const executable = (file: string): boolean => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (name.includes("/")) {
    const full = isAbsolute(name) ? name : resolve(cwd, name);
    return executable(full) ? full : null;
  }
  for (const dir of (path ?? "").split(delimiter)) {
    if (!dir) continue;
    const full = join(isAbsolute(dir) ? dir : resolve(cwd, dir), name);
    if (executable(full)) return full;
  }
  return null;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export class Sandbox {
  private layout: SandboxLayout | null = null;
  private bwrapPath: string | null = null;
  /** The proof startProbe() started, for prepare() to wait for. */
  private probing: { root: string; outcome: Promise<{ found: string | null; said: string | null }> } | null = null;

  constructor(private readonly opts: SandboxOptions) {}

  get on(): boolean {
    return this.opts.mode === "sandbox";
  }

  /** bwrap's own flags, before any mount: namespaces, no capabilities, dies with the Run. */
  private baseArgs(): string[] {
    const uid = this.opts.uid ?? process.getuid?.() ?? 0;
    const ids = uid === 0 ? ["--uid", String(SANDBOX_UID_UNDER_ROOT), "--gid", String(SANDBOX_UID_UNDER_ROOT)] : [];
    return ["--unshare-user", "--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", ...ids];
  }

  /**
   * Starts prepare()'s proof that bwrap can make a sandbox for the Target at `root`, beside the
   * preflight's git checks, which it does not depend on (ADR 0495); prepare() then waits for it.
   */
  startProbe(root: string): void {
    if (!this.on || this.probing?.root === root) return;
    this.probing = { root, outcome: this.probeAt(root) };
  }

  /** Where bwrap is (null: nowhere on the PATH), and the first line it said when it could not make a sandbox (null: it could). */
  private async probeAt(root: string): Promise<{ found: string | null; said: string | null }> {
    const env = this.opts.env ?? process.env;
    const found = findExecutable(this.opts.bwrap ?? "bwrap", env.PATH, root);
    if (!found) return { found, said: null };
    return { found, said: await probe(found, [...this.baseArgs(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"], env) };
  }

  /**
   * Learns the Target's layout and proves the sandbox can start on this Host (once per Run, before
   * the lock). Without bwrap, or where the kernel refuses its namespaces, a refusal with the install
   * command and the opt-out.
   */
  async prepare(layout: SandboxLayout): Promise<void> {
    if (!this.on) return;
    const probing = this.probing?.root === layout.root ? this.probing.outcome : this.probeAt(layout.root);
    this.probing = null;
    const { found, said } = await probing;
    if (!found) {
      throw new Refusal(
        "no-sandbox",
        `The agent and the Checks run in a bubblewrap sandbox (isolation "sandbox", ADR 0290), and bwrap is not installed on this Host.`,
        {
          next: `${INSTALL}   (or, to let code the agent writes read this Run's token: ${OPT_OUT})`,
        },
      );
    }
    if (said !== null) {
      throw new Refusal(
        "no-sandbox",
        `The agent and the Checks run in a bubblewrap sandbox (isolation "sandbox", ADR 0290), and bwrap could not make one here: ${said}`,
        {
          next: `allow unprivileged user namespaces (Ubuntu 24.04: sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0)   (or, to let code the agent writes read this Run's token: ${OPT_OUT})`,
        },
      );
    }
    this.bwrapPath = found;
    this.layout = { root: real(layout.root), commonDir: real(layout.commonDir), configFiles: layout.configFiles };
    // Every Stage and Check in the sandbox starts through the spawner: its own start goes beside the Run's start, not in the first Stage's (ADR 0484).
    warmSpawner();
  }

  /**
   * The argv that runs `argv` in `cwd` inside the sandbox (`argv` itself when isolation is off), for
   * a process whose environment is `env` (its home and agent state are what an agent may write;
   * a Check, `who: "check"`, sees none of the agents' state, only the caches).
   * `argv[0]` must be a path (findExecutable): inside, a missing program is only bwrap's error.
   */
  wrap(argv: readonly string[], cwd: string, env?: NodeJS.ProcessEnv, who: "agent" | "check" = "agent"): string[] {
    if (!this.on) return [...argv];
    if (!this.layout || !this.bwrapPath) throw new Error("the sandbox was used before the Run's preflight prepared it");
    const runEnv = this.opts.env ?? process.env;
    const binds = mounts({ layout: this.layout, cwd, env: env ?? runEnv, runEnv, argv, who });
    return [this.bwrapPath, ...this.baseArgs(), ...binds, "--chdir", cwd, "--", ...argv];
  }
}

/** Runs bwrap once; null when it worked, else the first line it said. */
function probe(bwrap: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((done) => {
    const child = spawn(bwrap, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
    child.on("error", (e) => done(e.message));
    child.on("close", (code) => done(code === 0 ? null : err.trim().split("\n")[0] || `bwrap exited ${code}`));
  });
}
