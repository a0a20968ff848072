/**
 * A change to a record branch as a compare-and-swap: read the tip, apply the edit, push with a lease
 * on that tip; on a lost race read again and reapply. Within one process, changes to one branch of
 * one clone take turns, so two Lanes never push snapshots that each miss the other's change.
 */
import { Failure } from "../../core/errors";
import type { RepoContext } from "./repo-context";
import type { TreeFiles } from "./snapshot";
import { buildTree, commitTree, listFiles, pushWithLease, readTip } from "./snapshot";
import { takeTurn } from "./turns";

/** The first lost race waits up to this long; each next one up to twice the last, never over the ceiling. */
const BACKOFF_FIRST_MS = 40;
const BACKOFF_CEILING_MS = 1000;

export interface EditOutcome<T> {
  /** false: nothing to write, and nothing is pushed. */
  changed: boolean;
  message: string;
  value: T;
}

export interface TxnOptions {
  /** Retries after the first try when another writer wins the race. */
  retries: number;
  /** The lock keeps its history (each change a child of the tip); the State branch is one parentless snapshot. */
  keepHistory: boolean;
  /**
   * The branch as this process last wrote it (or just read it; tip null: no such branch), tried
   * first instead of a fetch: the push's lease refuses it if the remote moved since, and the next
   * try reads (ADR 0400).
   */
  guess?: { tip: string | null; files: TreeFiles };
  /** Told what was pushed, for a later change's guess. */
  pushed?: (tip: string, files: TreeFiles) => void;
}

export function transact<T>(
  ctx: RepoContext,
  branch: string,
  opts: TxnOptions,
  edit: (files: TreeFiles, tip: string | null) => Promise<EditOutcome<T>>,
): Promise<T> {
  return takeTurn(`${ctx.root}\0${ctx.remote}\0${branch}`, async () => {
    for (let attempt = 0; attempt <= opts.retries; attempt++) {
      const guess = attempt === 0 ? opts.guess : undefined;
      const tip = guess ? guess.tip : await readTip(ctx, branch);
      const files = guess ? new Map(guess.files) : await listFiles(ctx, tip);
      const out = await edit(files, tip);
      // "Nothing to write" is no push, so no lease checks it: a guess is read for real first.
      if (!out.changed && guess) continue;
      if (!out.changed) return out.value;
      const tree = await buildTree(ctx, files);
      const parents = opts.keepHistory && tip ? [tip] : [];
      const commit = await commitTree(ctx, tree, parents, out.message);
      if ((await pushWithLease(ctx, branch, commit, tip)) === "pushed") {
        opts.pushed?.(commit, files);
        return out.value;
      }
      // Lost the race: back off, the ceiling doubling each time and the wait anywhere under it, so
      // many losers spread out instead of colliding again in step.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(BACKOFF_CEILING_MS, BACKOFF_FIRST_MS * 2 ** attempt)));
    }
    throw new Failure("git", `Other writers kept moving ${branch} on the remote; gave up after ${opts.retries + 1} tries. Nothing was overwritten.`);
  });
}
