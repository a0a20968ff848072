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
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { Refusal } from "../../core/errors";

export type IsolationMode = "sandbox" | "none";

/** What the sandbox needs to know of the Target, learnt once before anything runs in it. */
export interface SandboxLayout {
  /** The clone's top level: read-only inside (the main checkout, `.worktrees/`, the run root). */
  root: string;
  /** The clone's common git dir: writable (objects, refs, logs) but for its control files. */
  commonDir: string;
  /** Every config file git reads in the clone (system, global, the repository's, included ones). */
  configFiles: readonly string[];
}

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

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The lane's git dir from the `gitdir:` line of its `.git` file; null for a checkout with a `.git` folder. */
function laneGitDir(lane: string): string | null {
  try {
    const text = readFileSync(join(lane, ".git"), "utf8");
    const m = /^gitdir: (.+)$/m.exec(text);
    return m ? resolve(lane, m[1]!.trim()) : null;
  } catch {
    return null;
  }
}

export class Sandbox {
  private layout: SandboxLayout | null = null;
  private bwrapPath: string | null = null;

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
   * Learns the Target's layout and proves the sandbox can start on this Host (once per Run, before
   * the lock). Without bwrap, or where the kernel refuses its namespaces, a refusal with the install
   * command and the opt-out.
   */
  async prepare(layout: SandboxLayout): Promise<void> {
    if (!this.on) return;
    const env = this.opts.env ?? process.env;
    const found = findExecutable(this.opts.bwrap ?? "bwrap", env.PATH, layout.root);
    if (!found) {
      throw new Refusal(
        "no-sandbox",
        `The agent and the Checks run in a bubblewrap sandbox (isolation "sandbox", ADR 0290), and bwrap is not installed on this Host.`,
        {
          next: `${INSTALL}   (or, to let code the agent writes read this Run's token: ${OPT_OUT})`,
        },
      );
    }
    const said = await probe(found, [...this.baseArgs(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"], env);
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
    this.layout = { root: real(layout.root) ?? layout.root, commonDir: real(layout.commonDir) ?? layout.commonDir, configFiles: layout.configFiles };
  }

  /**
   * The argv that runs `argv` in `cwd` inside the sandbox (`argv` itself when isolation is off).
   * `argv[0]` must be a path (findExecutable): inside, a missing program is only bwrap's error.
   */
  wrap(argv: readonly string[], cwd: string): string[] {
    if (!this.on) return [...argv];
    if (!this.layout || !this.bwrapPath) throw new Error("the sandbox was used before the Run's preflight prepared it");
    return [this.bwrapPath, ...this.baseArgs(), ...mounts(this.layout, cwd, this.opts.env ?? process.env), "--chdir", cwd, "--", ...argv];
  }
}

/** The mounts, in order: later ones cover earlier ones. */
export function mounts(layout: SandboxLayout, cwd: string, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"];
  const bind = (flag: "--bind" | "--ro-bind", path: string | null | undefined): void => {
    const p = path ? real(path) : null;
    if (p && p !== "/") out.push(flag, p, p);
  };
  // Where programs keep their caches, logins and scratch files.
  const writable = new Set([env.HOME, env.TMPDIR, tmpdir(), "/tmp", "/var/tmp"].filter((p): p is string => !!p && isAbsolute(p)));
  for (const p of writable) bind("--bind", p);
  // The clone read-only (main checkout, other lanes, run root) even when it lies in a writable place.
  bind("--ro-bind", layout.root);
  const common = layout.commonDir;
  bind("--bind", common);
  for (const control of ["config", "hooks", "info", "modules", "worktrees", "commondir"]) bind("--ro-bind", join(common, control));
  const lane = real(cwd);
  if (lane && lane !== layout.root) {
    bind("--bind", lane);
    const gitDir = laneGitDir(lane);
    // The lane's own git dir (HEAD, index) writable; what points git elsewhere read-only.
    if (gitDir && dirname(real(gitDir) ?? gitDir) === join(common, "worktrees")) {
      bind("--bind", gitDir);
      for (const pointer of ["commondir", "gitdir", "config.worktree"]) bind("--ro-bind", join(gitDir, pointer));
      bind("--ro-bind", join(lane, ".git"));
    }
  }
  for (const file of layout.configFiles) if (!file.startsWith("/dev/") && existsSync(file)) bind("--ro-bind", file);
  return out;
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
