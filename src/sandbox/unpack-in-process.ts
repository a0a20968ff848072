/**
 * A small pushed pack's objects written by this process as loose objects (ADR 0491), where ADR
 * 0482 started `git index-pack --stdin --fix-thin --check-self-contained-and-connected` for every
 * push: what receive-pack itself does with a pack of fewer than transfer.unpackLimit objects
 * (unpack-objects), with that index-pack's checks made here first:
 * - the pack reads exactly (src/adapters/git/pack-entries.ts: header, entries, deltas, trailer, every id hashed);
 * - every commit and tree is one `git fsck` takes (src/adapters/git/object-links.ts), no tag;
 * - every link of every object (a commit's tree and parents, a tree's entries) is an object of
 *   the pack or of the repository, of the type the link says (index-pack's check_object).
 * Only then is anything written, each object after those it links to, so a repository cut off
 * midway (a killed sandbox) still has only connected objects (objects-connected.ts). Anything
 * not so, or any failure, is false and nothing is taken here: the caller runs index-pack as
 * before, and what git refuses, git refuses.
 */
import { join } from "node:path";
import type { CommitLookups } from "./commit-lookup";
import { writeLooseObjectFileSync } from "../adapters/git/loose-object-file";
import { linkedFirst, objectLinks } from "../adapters/git/object-links";
import type { Link } from "../adapters/git/object-links";
import type { ObjectReaders } from "./object-reader";
import { packObjects } from "../adapters/git/pack-entries";
import type { PackedObject } from "../adapters/git/pack-entries";

export interface UnpackInput {
  gitDir: string;
  pack: Buffer;
  /** The repository's objects by id and type (cat-file --batch-check). */
  commits: CommitLookups;
  /** Whole objects of the repository: a thin pack's delta bases (cat-file --batch). */
  objects: ObjectReaders;
}

/** Whether each link not to an object of the pack is to one the repository has, of that type. */
async function linksPresent(input: UnpackInput, links: Map<string, Link[]>, byId: Map<string, PackedObject>): Promise<boolean> {
  const outside = new Map<string, Link["type"]>();
  for (const list of links.values()) {
    for (const link of list) {
      const inPack = byId.get(link.id);
      if (inPack) {
        if (inPack.type !== link.type) return false;
      } else if ((outside.get(link.id) ?? link.type) !== link.type) {
        return false;
      } else {
        outside.set(link.id, link.type);
      }
    }
  }
  const found = await Promise.all([...outside].map(async ([id]) => (await input.commits.object(input.gitDir, id)) ?? { sha: "", type: "" }));
  return [...outside].every(([id, type], i) => found[i]!.sha === id && found[i]!.type === type);
}

/** Writes the pack's objects when every check holds; false: nothing taken here (index-pack takes the pack). */
export async function unpackInProcess(input: UnpackInput): Promise<boolean> {
  const objects = await packObjects(input.pack, async (id) => {
    const read = await input.objects.read(input.gitDir, id);
    return read === "missing" ? null : read;
  });
  if (!objects) return false;
  const byId = new Map(objects.map((o) => [o.id, o]));
  const links = new Map<string, Link[]>();
  for (const o of objects) {
    const list = objectLinks(o);
    if (!list) return false;
    links.set(o.id, list);
  }
  if (!(await linksPresent(input, links, byId))) return false;
  try {
    // A small pack's few objects, their calls made in place: as many thread-pool trips (and fs/promises'
    // CPU for each) as calls otherwise, in the burst where every Lane pushes (ADR 0507).
    for (const o of linkedFirst(objects, links, byId)) writeLooseObjectFileSync(join(input.gitDir, "objects"), "sha1", o.type, o.data);
  } catch {
    // Those written so far link only to objects present: the repository is still connected.
    return false;
  }
  return true;
}
