/**
 * A Lane's HEAD read from git's own files, without a `git rev-parse HEAD` process (ADR 0477). A
 * Lane is a worktree git made: its `.git` file names its record under the clone's
 * `worktrees/`, whose HEAD names the branch, whose loose ref file holds the commit
 * (gitrepository-layout(5)). Read fresh every time, never kept: an agent or a Check may commit in
 * the Lane at any moment. Anything else (a packed ref, a detached or half-made HEAD, a record
 * elsewhere, another ref store) answers null, and the caller asks git as before.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { RepoContext } from "./repo-context";
import { cloneStore } from "./clone-store";

const GITFILE = /^gitdir: (.+?)\s*$/;
const SYMREF = /^ref: (refs\/heads\/[^\s\\]+?)\s*$/;

function read(path: string): Promise<string | null> {
  return readFile(path, "utf8").catch(() => null);
}

/** A ref name that stays inside the directory it is joined to. */
function plainRef(ref: string): boolean {
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
  const record = await laneRecord(ctx, lanePath);
  if (!record) return false;
  const back = (await read(join(record.admin, "gitdir")))?.trim();
  return !!back && resolve(record.admin, back) === resolve(lanePath, ".git");
}
