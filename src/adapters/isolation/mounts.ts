/**
 * What the sandbox shows of the Host's file system (ADR 0290, ADR 0341), as bwrap's mount flags in
 * order: later ones cover earlier ones. Everything read-only; the temp folders and the runtime dir
 * private and empty (the Host's sockets live there: VS Code's IPC, an ssh-agent, the session bus);
 * the home folder read-only but for the agents' own state and the caches; the Lane, its git dir and
 * the clone's common git dir writable but for the files the Run's git reads.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";

/** What the sandbox needs to know of the Target, learnt once before anything runs in it. */
export interface SandboxLayout {
  /** The clone's top level: read-only inside (the main checkout, `.worktrees/`, the run root). */
  root: string;
  /** The clone's common git dir: writable (objects, refs, logs) but for its control files. */
  commonDir: string;
  /** Every config file git reads in the clone (system, global, the repository's, included ones). */
  configFiles: readonly string[];
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function isDir(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

const under = (path: string, dir: string): boolean => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

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

/**
 * The folders the sandbox replaces with an empty tmpfs of its own: the temp folders and the
 * session's runtime dir, where the Host's sockets are. Outermost only (one inside another is gone
 * with it); each as its real path.
 */
export function privateDirs(envs: readonly NodeJS.ProcessEnv[], uid: number | undefined = process.getuid?.()): string[] {
  const named = ["/tmp", "/var/tmp", tmpdir(), ...(uid === undefined ? [] : [`/run/user/${uid}`])];
  for (const env of envs) named.push(...[env.TMPDIR, env.TMP, env.TEMP, env.XDG_RUNTIME_DIR].filter((p): p is string => !!p));
  const dirs = [...new Set(named.filter((p) => isAbsolute(p)).map((p) => real(p)))].filter((p): p is string => !!p && p !== "/" && isDir(p));
  return dirs.filter((d) => !dirs.some((o) => o !== d && under(d, o))).sort();
}

/**
 * What an agent keeps in the home folder and may write (ADR 0341): Claude Code's `~/.claude` and
 * `~/.claude.json` (or `$CLAUDE_CONFIG_DIR`), Codex's `~/.codex` (`$CODEX_HOME`), Gemini CLI's
 * `~/.gemini` (under `$GEMINI_CLI_HOME`), and the caches (`~/.cache` or `$XDG_CACHE_HOME`,
 * `~/.npm`). Folders are made when missing, so they can be bound; a missing `~/.claude.json` is
 * made as `{}`, Claude Code's empty config. `dirs` and `files` are the agents' own (their settings,
 * sessions and logins); `caches` are shared with the Checks.
 */
export function agentStatePaths(env: NodeJS.ProcessEnv): { dirs: string[]; files: string[]; caches: string[] } {
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : null;
  const abs = (p: string | undefined): string | null => (p && isAbsolute(p) ? p : null);
  const dirs = [
    abs(env.CLAUDE_CONFIG_DIR) ?? (home && join(home, ".claude")),
    abs(env.CODEX_HOME) ?? (home && join(home, ".codex")),
    abs(env.GEMINI_CLI_HOME) ? join(env.GEMINI_CLI_HOME!, ".gemini") : home && join(home, ".gemini"),
  ].filter((p): p is string => !!p);
  const caches = [abs(env.XDG_CACHE_HOME) ?? (home && join(home, ".cache")), home && join(home, ".npm")].filter((p): p is string => !!p);
  const files = [abs(env.CLAUDE_CONFIG_DIR) ? join(env.CLAUDE_CONFIG_DIR!, ".claude.json") : home && join(home, ".claude.json")].filter(
    (p): p is string => !!p,
  );
  return { dirs, files, caches };
}

/** Makes the state folders and files that are missing, so that they can be bound; false when one cannot be made. */
function ensureState(path: string, kind: "dir" | "file"): boolean {
  try {
    if (kind === "dir") mkdirSync(path, { recursive: true, mode: 0o700 });
    else if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, "{}\n", { mode: 0o600, flag: "wx" });
    }
    return true;
  } catch {
    return existsSync(path);
  }
}

/** An empty folder of the sandbox's own over `dir` (its real path). */
function hide(out: string[], dir: string): void {
  const p = real(dir);
  if (p && p !== "/") out.push("--tmpfs", p);
}

/** `/dev/null` over `file` (its real path): on bwrap's nodev mount it can be neither read nor written. */
function hideFile(out: string[], file: string): void {
  const p = real(file);
  if (p) out.push("--ro-bind", "/dev/null", p);
}

export interface MountInput {
  layout: SandboxLayout;
  /** The Lane (or wherever the process runs). */
  cwd: string;
  /** The sandboxed process's environment: its home, its agent state, its temp folders. */
  env: NodeJS.ProcessEnv;
  /** The Run's environment: its temp folders and runtime dir are private too. */
  runEnv?: NodeJS.ProcessEnv;
  /** The command line: a program or script it names inside a private folder is shown read-only. */
  argv?: readonly string[];
  uid?: number;
  /**
   * Whose process: an agent writes its own state; a Check (the code the agent wrote, run by the
   * Checks) sees none of it, neither the agents' logins nor settings a next session would obey.
   */
  who?: "agent" | "check";
}

/** The mounts, in order: later ones cover earlier ones. */
export function mounts(input: MountInput): string[] {
  const { layout, env } = input;
  const out: string[] = ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"];
  const bind = (flag: "--bind" | "--ro-bind", path: string | null | undefined): void => {
    const p = path ? real(path) : null;
    if (p && p !== "/") out.push(flag, p, p);
  };
  const hidden = privateDirs([env, input.runEnv ?? {}], input.uid);
  for (const dir of hidden) out.push("--tmpfs", dir);
  const isHidden = (p: string): boolean => hidden.some((d) => under(p, d));
  // The files the command line names (the agent's script, a Check's program) stay readable; a socket it names does not.
  for (const arg of input.argv ?? []) {
    const p = isAbsolute(arg) ? real(arg) : null;
    if (p && isHidden(p) && isFile(p)) bind("--ro-bind", p);
  }
  // The home folder read-only (shown again when it lies in a private folder); the agents' state writable.
  const home = env.HOME && isAbsolute(env.HOME) ? real(env.HOME) : null;
  if (home && isHidden(home)) bind("--ro-bind", home);
  const state = agentStatePaths(env);
  for (const dir of state.caches) if (ensureState(dir, "dir")) bind("--bind", dir);
  if (input.who === "check") {
    // Nothing made for a Check: a folder that is not there stays absent (the home folder is read-only).
    for (const dir of state.dirs) if (isDir(dir)) hide(out, dir);
    for (const file of state.files) if (isFile(file)) hideFile(out, file);
  } else {
    for (const dir of state.dirs) if (ensureState(dir, "dir")) bind("--bind", dir);
    for (const file of state.files) if (ensureState(file, "file")) bind("--bind", file);
    // The demo agent's memory, where the demo (or a test) put it.
    if (env.TICKET_RUNNER_DEMO_STATE && isAbsolute(env.TICKET_RUNNER_DEMO_STATE) && ensureState(env.TICKET_RUNNER_DEMO_STATE, "dir"))
      bind("--bind", env.TICKET_RUNNER_DEMO_STATE);
  }
  // Programs the Host installed in its cache (the pinned agents) and the CLI's code cache (ADR 0481) are not the
  // sandbox's to change. Made when missing: else an agent could make it in the writable ~/.cache and plant code there.
  const hostCache = home && join(home, ".cache", "ticket-runner");
  if (hostCache && ensureState(hostCache, "dir")) bind("--ro-bind", hostCache);
  // The clone read-only (main checkout, other lanes, run root) even when it lies in a writable place.
  bind("--ro-bind", layout.root);
  const common = layout.commonDir;
  bind("--bind", common);
  for (const control of ["config", "hooks", "info", "modules", "worktrees", "commondir"]) bind("--ro-bind", join(common, control));
  const lane = real(input.cwd);
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
