/**
 * The sandbox's own ref writes (a merge's compare-and-swap of the base, `refs/pull/N/head`, a merged
 * head's deletion, the REST refs API) made in this process with git's lock files and leases
 * (loose-ref-transaction.ts, ADR 0482) instead of a `git update-ref` each (ADR 0492), only where the
 * outcome is git's for certain:
 * - no `reference-transaction` hook could run: none in the repository's hooks folder, no
 *   `core.hooksPath` in its config. A hook sees every update git makes (the chaos world's does, to
 *   record every commit ever pushed), so with one the write stays git's;
 * - a config receive-setup.ts models (no reflogs for every ref, no lock timeout, no shared
 *   repository, no `extensions.*` such as another ref storage), and no `logs/` folder (a reflog
 *   git would write, HEAD's included when the branch it names moves);
 * - a ref under `refs/` that check-ref-format allows, full object ids, and a new value that is a
 *   commit the repository has (git's files backend refuses a missing object, or a non-commit on a
 *   branch).
 * Whatever the transaction does not model ("unmodelled": a lock held, a lease that does not hold, a
 * packed ref deleted, a D/F conflict, a reflog) changes nothing, and `git update-ref` then answers
 * as before, its refusals included.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import type { CommitLookups } from "./commit-lookup";
import type { ConfigListings } from "./config-state";
import { casRef as casRefByGit, deleteRef as deleteRefByGit, isSafeRefName, keepPullHead as keepPullHeadByGit } from "./git";
import { applyRefChanges, refValue } from "./loose-ref-transaction";
import type { RefChange } from "./loose-ref-transaction";
import { receiveSetupOf } from "./receive-setup";

const OID = /^[0-9a-f]{40}$/;

export class RefUpdates {
  private count = 0;

  constructor(
    private readonly commits: CommitLookups,
    private readonly listings: ConfigListings,
  ) {}

  /** Ref transactions written in this process so far (the tests read it). */
  get taken(): number {
    return this.count;
  }

  /** Compare-and-swap: moves `ref` to `next` only if it still points at `expected` ("": must not exist). */
  async cas(gitDir: string, ref: string, next: string, expected: string): Promise<boolean> {
    if (OID.test(next) && (expected === "" || OID.test(expected))) {
      if (await this.apply(gitDir, { ref, old: expected === "" ? null : expected, new: next })) return true;
    }
    return casRefByGit(gitDir, ref, next, expected);
  }

  /** `refs/pull/N/head` at `sha`, whatever it pointed at (GitHub keeps every pull request's head there). */
  async keepPullHead(gitDir: string, pull: number, sha: string): Promise<void> {
    const ref = `refs/pull/${pull}/head`;
    const now = OID.test(sha) ? await refValue(gitDir, ref) : undefined;
    // Written under a lease on the value just read: one moved meanwhile is git's to write.
    if (now !== undefined && (await this.apply(gitDir, { ref, old: now, new: sha }))) return;
    await keepPullHeadByGit(gitDir, pull, sha);
  }

  /** Deletes `ref` if it points at `expected`. */
  async delete(gitDir: string, ref: string, expected: string): Promise<boolean> {
    if (OID.test(expected) && (await this.apply(gitDir, { ref, old: expected, new: null }))) return true;
    return deleteRefByGit(gitDir, ref, expected);
  }

  /** true: written here; false: nothing changed, git must answer. */
  private async apply(gitDir: string, change: RefChange): Promise<boolean> {
    if (!change.ref.startsWith("refs/") || !isSafeRefName(change.ref)) return false;
    if (!(await this.noHookNorConfig(gitDir))) return false;
    if (change.new !== null) {
      const found = await this.commits.object(gitDir, change.new);
      if (found?.type !== "commit" || found.sha !== change.new) return false;
    }
    if ((await applyRefChanges(gitDir, [change])) !== "done") return false;
    this.count += 1;
    return true;
  }

  /** No hook that could run, no config git would act on, no reflog (git writes HEAD's too when its branch moves). */
  private async noHookNorConfig(gitDir: string): Promise<boolean> {
    const listing = await this.listings.listing(gitDir);
    if (listing === null || receiveSetupOf(listing) === null || /(^|\0)core\.hookspath\n/.test(listing)) return false;
    const absent = (file: string): Promise<boolean> =>
      fsp.lstat(path.join(gitDir, file)).then(
        () => false,
        (e: NodeJS.ErrnoException) => e.code === "ENOENT",
      );
    return (await absent(path.join("hooks", "reference-transaction"))) && (await absent("logs"));
  }
}
