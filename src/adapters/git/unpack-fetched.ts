/**
 * A small fetched pack written by the Run's process as loose objects (ADR 0501), where the fetch
 * started `git unpack-objects -q` and then `git rev-list --objects --stdin --not --all` to prove
 * the wants connected (fetch-http.ts): two processes a fetch, most of them at K = 4, where other
 * Hosts' merges make every base fetch bring objects. Nothing is written until all of this holds:
 * - the pack reads exactly (pack-entries.ts: header, entries, deltas, trailer, every id hashed);
 *   a thin pack's delta base is read from the clone's objects, loose or packed (loose-read.ts);
 * - every commit and tree is one `git fsck` takes (object-links.ts), no tag;
 * - every link between objects of the pack is to an object of the type the link says;
 * - every commit a link leaves the pack for (a parent) is a commit whose whole history the clone
 *   has: the value of a ref given as `whole` (a ref is set only once its history is whole), or
 *   found by walking commits down from those (a whole commit's parents are whole);
 * - every tree or blob a link leaves the pack for is the entry at the same path of the tree of
 *   one of those outside parents (then it is in a whole commit's history), or, for a blob only,
 *   a blob the clone has (a blob links to nothing);
 * - every want is a commit of the pack or one of those whole commits.
 * An object the clone merely has is not enough: a fetch refused earlier, or killed midway, can
 * leave objects whose history is not all there, and `rev-list ... --not --all` would walk into
 * them and fail where a presence check passes. Objects are then written each after those it links
 * to, so a clone cut off midway still holds only connected objects. Anything not so is false and
 * nothing is written: the caller hands the pack to git as before.
 */
import { cloneStore } from "./clone-store";
import { writeLooseObjectFileSync } from "./loose-object-file";
import { historyAsWritten, readCommit, readObject, readTree, treeEntries } from "./loose-read";
import { linkedFirst, objectLinks } from "./object-links";
import type { Link } from "./object-links";
import { packObjects } from "./pack-entries";
import type { PackedObject } from "./pack-entries";
import type { RepoContext } from "./repo-context";

/** At most this many commits are read looking for an outside parent below the whole tips (a round of merges, as rebase-replay.ts reads). */
const MAX_WALK = 64;

/** A link that leaves the pack for a tree or blob, and a path where a pack tree names it. */
interface OutsideEntry {
  id: string;
  type: "tree" | "blob";
  path: string[];
}

/**
 * The outside parents that are whole commits, or null when one is not shown so: each is a `whole`
 * tip that is a commit, or a commit reached from one through parents within MAX_WALK reads.
 */
async function wholeCommits(ctx: RepoContext, wanted: Set<string>, whole: string[]): Promise<Set<string> | null> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const queue = [...new Set(whole)];
  for (let reads = 0; queue.length > 0 && found.size < wanted.size && reads < MAX_WALK; reads++) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    // A commit that does not read here (a tag's tip, an object too large or not there): neither found nor walked.
    const commit = await readCommit(ctx, id);
    if (!commit) continue;
    if (wanted.has(id)) found.add(id);
    queue.push(...commit.parents);
  }
  return found.size === wanted.size ? found : null;
}

/** The entry at `path` below `tree` in the clone's trees; null when a tree on the way does not read here or has no such entry. */
async function entryAt(ctx: RepoContext, tree: string, path: string[]): Promise<{ mode: string; id: string } | null> {
  let at: { mode: string; id: string } = { mode: "40000", id: tree };
  for (const name of path) {
    if (at.mode !== "40000") return null;
    const entries = await readTree(ctx, at.id);
    const next = entries?.get(name);
    if (!next) return null;
    at = next;
  }
  return at;
}

/**
 * Each tree and blob a pack tree links to outside the pack, with a path where it is named (the
 * pack's trees walked down from its commits' trees); null when a pack tree is reached from no
 * commit of the pack (its outside links would have no path to be found at) or does not read.
 */
function outsideEntries(objects: PackedObject[], byId: Map<string, PackedObject>): OutsideEntry[] | null {
  const out: OutsideEntry[] = [];
  const visited = new Set<string>();
  const visit = (id: string, type: "tree" | "blob", path: string[]): boolean => {
    const inPack = byId.get(id);
    if (!inPack) {
      out.push({ id, type, path });
      return true;
    }
    if (type === "blob" || visited.has(id)) return true;
    visited.add(id);
    const entries = treeEntries(inPack.data);
    if (!entries) return false;
    for (const [name, entry] of entries) {
      // A submodule's commit is no object of this repository: nothing to reach.
      if (entry.mode === "160000") continue;
      if (!visit(entry.id, entry.mode === "40000" ? "tree" : "blob", [...path, name])) return false;
    }
    return true;
  };
  for (const o of objects) {
    if (o.type !== "commit") continue;
    const tree = objectLinks(o)?.[0];
    if (!tree || !visit(tree.id, "tree", [])) return null;
  }
  return objects.every((o) => o.type !== "tree" || visited.has(o.id)) ? out : null;
}

/** Whether `entry` is at its path in the tree of one of the whole commits, or is a blob the clone has. */
async function entryWhole(ctx: RepoContext, entry: OutsideEntry, boundaryTrees: string[]): Promise<boolean> {
  for (const tree of boundaryTrees) {
    const found = await entryAt(ctx, tree, entry.path);
    if (found && found.id === entry.id && (found.mode === "40000") === (entry.type === "tree") && found.mode !== "160000") return true;
  }
  return entry.type === "blob" && (await readObject(ctx, entry.id))?.type === "blob";
}

/**
 * Writes the fetched pack's objects into the clone as loose objects when every rule above holds;
 * false when one does not, or a write fails (nothing, or only connected objects, written): the
 * caller then has git unpack and check the pack as before. `whole`: commits whose whole history
 * the clone has (values of its refs).
 */
export async function unpackFetched(ctx: RepoContext, pack: Buffer, wants: string[], whole: string[]): Promise<boolean> {
  const store = await cloneStore(ctx.git, ctx.root);
  if (store.algorithm !== "sha1" || !(await historyAsWritten(ctx))) return false;
  const objects = await packObjects(pack, async (id) => {
    const base = await readObject(ctx, id);
    return base && { type: base.type, data: base.body };
  });
  if (!objects) return false;
  const byId = new Map(objects.map((o) => [o.id, o]));
  const links = new Map<string, Link[]>();
  const parents = new Set<string>();
  for (const o of objects) {
    const list = objectLinks(o);
    if (!list) return false;
    links.set(o.id, list);
    for (const link of list) {
      const inPack = byId.get(link.id);
      if (inPack && inPack.type !== link.type) return false;
      if (!inPack && link.type === "commit") parents.add(link.id);
    }
  }
  const wantsOutside = wants.filter((w) => byId.get(w)?.type !== "commit");
  if (wantsOutside.some((w) => byId.has(w))) return false;
  const proven = await wholeCommits(ctx, new Set([...parents, ...wantsOutside]), whole);
  if (!proven) return false;
  const outside = outsideEntries(objects, byId);
  if (!outside) return false;
  if (outside.length > 0) {
    const boundaryTrees: string[] = [];
    for (const id of parents) {
      const commit = await readCommit(ctx, id);
      if (commit) boundaryTrees.push(commit.tree);
    }
    const checked = new Set<string>();
    for (const entry of outside) {
      if (checked.has(`${entry.type} ${entry.id}`)) continue;
      if (!(await entryWhole(ctx, entry, boundaryTrees))) return false;
      checked.add(`${entry.type} ${entry.id}`);
    }
  }
  try {
    for (const o of linkedFirst(objects, links, byId)) writeLooseObjectFileSync(store.dir, "sha1", o.type, o.data);
  } catch {
    // Those written so far link only to objects of the pack written before them or whole ones: the clone is still connected.
    return false;
  }
  return true;
}
