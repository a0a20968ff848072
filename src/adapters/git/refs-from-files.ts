/**
 * What resolveRefs asks of `git cat-file --batch-check` (`<name>^{commit}`), answered from the
 * clone's files where the answer is certain, with no process (ADR 0488): a Lane's start and each
 * push read three or four refs, and the fork cost more than the reads.
 *
 * Certain means: a full ref name (`refs/…`) whose loose or packed value names a commit the clone
 * has (loose, or whole in a pack: pack-index.ts); a full ref name that none of git's lookup rules
 * finds (the name itself, then `refs/<name>`, `refs/tags/<name>`, `refs/heads/<name>`,
 * `refs/remotes/<name>`, `refs/remotes/<name>/HEAD`, gitrevisions(7)) in a repository of loose
 * files and packed-refs; a Lane's own `HEAD` read as lane-head.ts reads it, naming such a commit;
 * a full sha of such a commit, or of an object the clone certainly lacks: none. Anything else (a
 * packed delta, an annotated tag, a symbolic ref, a per-worktree ref, replace refs, alternates, a
 * reftable store, the main checkout's HEAD) makes the whole question git's, asked as before.
 */
import { join, resolve } from "node:path";
import { cloneStore } from "./clone-store";
import { refFileExists, refFileValue } from "./fetch-http";
import { gitPathExists } from "./git-dir-files";
import { laneHeadFromFiles } from "./lane-head";
import { objectKind } from "./pack-index";
import { historyAsWritten } from "./loose-read";
import type { RepoContext } from "./repo-context";

const SHA1 = /^[0-9a-f]{40}$/;
/** Refs each worktree keeps for itself (gitrepository-layout(5)): not in the common directory. */
const PER_WORKTREE = /^refs\/(bisect|worktree|rewritten)\//;
const UNSURE = Symbol("unsure");

/** The commit each of `revs` names in `cwd`, or null for a name that names none; null as a whole when any answer is not certain. */
export async function resolveRefsFromFiles(ctx: RepoContext, revs: string[], cwd: string): Promise<(string | null)[] | null> {
  const store = await cloneStore(ctx.git, ctx.root);
  if (store.algorithm !== "sha1" || !(await historyAsWritten(ctx))) return null;
  if (gitPathExists(join(store.commonDir, "reftable"))) return null;
  const inLane = resolve(cwd) !== resolve(ctx.root);
  const answers = await Promise.all(revs.map((rev) => answer(ctx, rev, inLane ? cwd : null)));
  return answers.some((a) => a === UNSURE) ? null : (answers as (string | null)[]);
}

async function answer(ctx: RepoContext, rev: string, lane: string | null): Promise<string | null | typeof UNSURE> {
  if (rev === "HEAD") return lane ? knownCommit(ctx, await laneHeadFromFiles(ctx, lane)) : UNSURE;
  // A tip the clone never fetched (another Host's branch, asked by a push): none, when certain.
  if (SHA1.test(rev)) {
    const kind = await objectKind(ctx, rev);
    return kind === "commit" ? rev : kind === "absent" ? null : UNSURE;
  }
  if (!rev.startsWith("refs/") || PER_WORKTREE.test(rev)) return UNSURE;
  const value = await refFileValue(ctx, rev);
  if (value) return knownCommit(ctx, value);
  // No value: absent only when no file or packed line could give git one under any lookup rule.
  const names = [rev, `refs/${rev}`, `refs/tags/${rev}`, `refs/heads/${rev}`, `refs/remotes/${rev}`, `refs/remotes/${rev}/HEAD`];
  for (const name of names) if (await refFileExists(ctx, name)) return UNSURE;
  return null;
}

/** `sha` when it is a commit the clone has, loose or packed; unsure otherwise (a tag, a delta, not read). */
async function knownCommit(ctx: RepoContext, sha: string | null): Promise<string | typeof UNSURE> {
  if (!sha || !SHA1.test(sha)) return UNSURE;
  return (await objectKind(ctx, sha)) === "commit" ? sha : UNSURE;
}
