/**
 * A Lane's HEAD read from git's own files, without a `git rev-parse HEAD` process (ADR 0477). A
 * Lane is a worktree git made: its `.git` file names its record under the clone's
 * `worktrees/`, whose HEAD names the branch, whose loose ref file holds the commit
 * (gitrepository-layout(5)). Read fresh every time, never kept: an agent or a Check may commit in
 * the Lane at any moment. Anything else (a packed ref, a detached or half-made HEAD, a record
 * elsewhere, another ref store) answers null, and the caller asks git as before.
 */
import { readdir, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { RepoContext } from "./repo-context";
import type { WorktreeEntry } from "./worktree-entry";
import { cloneStore } from "./clone-store";
import { refFileValue } from "./fetch-http";
import { gitPathExists, readGitText } from "./git-dir-files";

const GITFILE = /^gitdir: (.+?)\s*$/;
const SYMREF = /^ref: (refs\/heads\/[^\s\\]+?)\s*$/;

function read(path: string): Promise<string | null> {
  return Promise.resolve(readGitText(path));
}

/** A ref name that stays inside the directory it is joined to. */
export function plainRef(ref: string): boolean {
  return ref.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/** The branch ref (`refs/heads/...`) a HEAD file's text names, when it is that plain shape; else null. */
export function branchOfHeadFile(text: string): string | null {
  const ref = SYMREF.exec(text)?.[1];
  return ref && plainRef(ref) ? ref : null;
}

interface LaneRecord {
  /** The worktree's record, `<common>/worktrees/<id>`. */
  admin: string;
  commonDir: string;
  sha: RegExp;
}

/** The record a Lane's `.git` file names, when it is one git keeps for this clone and points back at the clone's common directory. */
async function laneRecord(ctx: RepoContext, lanePath: string): Promise<LaneRecord | null> {
  const { commonDir, algorithm } = await cloneStore(ctx.git, ctx.root);
  const gitfile = GITFILE.exec((await read(join(lanePath, ".git"))) ?? "");
  if (!gitfile) return null;
  const admin = resolve(lanePath, gitfile[1]!);
  if (dirname(admin) !== join(commonDir, "worktrees")) return null;
  const common = (await read(join(admin, "commondir")))?.trim();
  if (!common || resolve(admin, common) !== commonDir) return null;
  return { admin, commonDir, sha: algorithm === "sha256" ? /^([0-9a-f]{64})\s*$/ : /^([0-9a-f]{40})\s*$/ };
}

/** The commit a Lane's HEAD names, read from files; null when the files are not the plain shape, for git to answer. */
export async function laneHeadFromFiles(ctx: RepoContext, lanePath: string): Promise<string | null> {
  return (await laneHeadRefFromFiles(ctx, lanePath))?.tip ?? null;
}

/** The branch a Lane's HEAD is on and its commit, read from files; null as laneHeadFromFiles. */
export async function laneHeadRefFromFiles(ctx: RepoContext, lanePath: string): Promise<{ ref: string; tip: string } | null> {
  const record = await laneRecord(ctx, lanePath);
  if (!record) return null;
  const ref = branchOfHeadFile((await read(join(record.admin, "HEAD"))) ?? "");
  if (!ref) return null;
  const tip = record.sha.exec((await read(join(record.commonDir, ref))) ?? "")?.[1];
  // The null id is a `worktree add` half-way (half-made-worktree.ts): git's own answer, not ours.
  if (!tip || /^0+$/.test(tip)) return null;
  return { ref, tip };
}

/**
 * True when git certainly lists the Lane as a worktree of the clone: its `.git` file names a record
 * whose `gitdir` names that `.git` file back (what `git worktree list` reads). False means "ask git".
 */
export async function laneRegistered(ctx: RepoContext, lanePath: string): Promise<boolean> {
  return (await laneRecordNamingBack(ctx, lanePath)) !== null;
}

/** The Lane's record (`<common>/worktrees/<id>`) when laneRegistered holds; null means "ask git". */
export async function laneRecordNamingBack(ctx: RepoContext, lanePath: string): Promise<{ admin: string; commonDir: string } | null> {
  const record = await laneRecord(ctx, lanePath);
  if (!record) return null;
  const back = (await read(join(record.admin, "gitdir")))?.trim();
  return back && resolve(record.admin, back) === resolve(lanePath, ".git") ? { admin: record.admin, commonDir: record.commonDir } : null;
}

const DETACHED = /^([0-9a-f]{40})\s*$/;

/** A worktree's HEAD file read as `worktree list` shows it; null when git must say (an unborn branch, the null id, anything else). */
async function headOf(ctx: RepoContext, headFile: string): Promise<{ head: string; branch: string | null } | null> {
  const text = (await read(headFile)) ?? "";
  const detached = DETACHED.exec(text)?.[1];
  if (detached) return /^0+$/.test(detached) ? null : { head: detached, branch: null };
  const symref = SYMREF.exec(text);
  if (!symref || !plainRef(symref[1]!)) return null;
  const tip = await refFileValue(ctx, symref[1]!);
  return tip && !/^0+$/.test(tip) ? { head: tip, branch: symref[1]!.slice("refs/heads/".length) } : null;
}

/**
 * `git worktree list --porcelain` read from the clone's files (ADR 0488): the main checkout (git
 * names it by the real path of its `.git`), then each record under `worktrees/` by path, as git
 * sorts them. Only when every record is certain: a `gitdir` file naming an absolute `<path>/.git`
 * that exists (so git would not call it prunable) and a HEAD on a branch with a value, or
 * detached; the main `.git` a directory of the checkout; a SHA-1 clone. Null otherwise: git lists.
 */
export async function worktreesFromFiles(ctx: RepoContext): Promise<WorktreeEntry[] | null> {
  const { commonDir, algorithm } = await cloneStore(ctx.git, ctx.root);
  if (algorithm !== "sha1") return null;
  const realCommon = await realpath(commonDir).catch(() => null);
  if (!realCommon || basename(realCommon) !== ".git" || (await realpath(ctx.root).catch(() => null)) !== dirname(realCommon)) return null;
  const main = await headOf(ctx, join(commonDir, "HEAD"));
  if (!main) return null;
  const ids = await readdir(join(commonDir, "worktrees")).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? [] : null));
  if (!ids) return null;
  const linked: WorktreeEntry[] = [];
  for (const id of ids) {
    const admin = join(commonDir, "worktrees", id);
    const gitdir = (await read(join(admin, "gitdir")))?.replace(/\s+$/, "");
    if (!gitdir || !isAbsolute(gitdir) || basename(gitdir) !== ".git" || !(await exists(gitdir))) return null;
    const head = await headOf(ctx, join(admin, "HEAD"));
    if (!head) return null;
    linked.push({ path: dirname(gitdir), ...head, prunable: false });
  }
  // git compares the paths' bytes (strcmp).
  linked.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  return [{ path: dirname(realCommon), ...main, prunable: false }, ...linked];
}

function exists(path: string): Promise<boolean> {
  return Promise.resolve(gitPathExists(path));
}
