/**
 * What a commit or tree of a small pack links to (a push the sandbox takes, ADR 0491; a fetch the
 * Run takes, ADR 0501), read only where the object is one `git fsck`
 * finds nothing wrong with: a commit's `tree`, `parent`s, `author` and `committer` lines in that
 * order, well-formed idents, no NUL in its headers; a tree's entries with git's modes, names that
 * are neither empty nor `.`, `..`, `.git` nor hold a `/`, sorted as git sorts them, none twice.
 * Anything else (a tag included) is null, and the caller leaves the pack to `git index-pack`,
 * which takes or refuses it as before: this is stricter than index-pack, never laxer.
 */
import type { PackedObject } from "./pack-entries";

export interface Link {
  id: string;
  type: "commit" | "tree" | "blob";
}

const ID = "[0-9a-f]{40}";
const TREE = new RegExp(`^tree (${ID})$`);
const PARENT = new RegExp(`^parent (${ID})$`);
/** fsck_ident: a name (not starting with `<`) and a space, `<email>`, a date with no leading zero, a timezone. */
const IDENT = /^(?!<)[^<>\n]* <[^<>\n]*> (?:0|[1-9]\d{0,15}) [+-]\d{4}$/;
const HEADER_LINE = /^[^ \n]+ |^ /;
/** Tree modes git writes (and fsck takes without a word), and what each entry links to. */
const MODES: Record<string, Link["type"] | null> = { "100644": "blob", "100755": "blob", "120000": "blob", "40000": "tree", "160000": null };

function commitLinks(data: Buffer): Link[] | null {
  const end = data.indexOf("\n\n");
  if (end < 0 || data.subarray(0, end).includes(0)) return null;
  const lines = data.toString("latin1", 0, end).split("\n");
  const tree = TREE.exec(lines[0] ?? "");
  if (!tree) return null;
  const links: Link[] = [{ id: tree[1]!, type: "tree" }];
  let at = 1;
  for (let m = PARENT.exec(lines[at] ?? ""); m; m = PARENT.exec(lines[++at] ?? "")) links.push({ id: m[1]!, type: "commit" });
  const author = lines[at] ?? "";
  const committer = lines[at + 1] ?? "";
  if (!author.startsWith("author ") || !IDENT.test(author.slice(7))) return null;
  if (!committer.startsWith("committer ") || !IDENT.test(committer.slice(10))) return null;
  // Other headers (encoding, gpgsig and its continuation lines, mergetag): read by nothing here.
  return lines.slice(at + 2).every((l) => HEADER_LINE.test(l) && !/^(tree|parent|author|committer) /.test(l)) ? links : null;
}

/** git's tree order: bytes, a directory's name as if it ended in `/`. */
function sortKey(name: Buffer, type: Link["type"] | null): Buffer {
  return type === "tree" ? Buffer.concat([name, Buffer.from("/")]) : name;
}

function treeLinks(data: Buffer): Link[] | null {
  const links: Link[] = [];
  const names = new Set<string>();
  let previous: Buffer | null = null;
  for (let at = 0; at < data.length;) {
    const space = data.indexOf(0x20, at);
    const nul = space < 0 ? -1 : data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > data.length) return null;
    const mode = data.toString("latin1", at, space);
    const name = data.subarray(space + 1, nul);
    const text = name.toString("latin1");
    if (!(mode in MODES) || name.length === 0 || name.includes(0x2f) || text === "." || text === ".." || text.toLowerCase() === ".git") return null;
    const type = MODES[mode]!;
    const key = sortKey(name, type);
    if (names.has(text) || (previous && Buffer.compare(previous, key) >= 0)) return null;
    names.add(text);
    previous = key;
    if (type) links.push({ id: data.toString("hex", nul + 1, nul + 21), type });
    at = nul + 21;
  }
  return links;
}

/** The objects `object` links to; null: not an object this reads (index-pack takes the pack). */
export function objectLinks(object: PackedObject): Link[] | null {
  if (object.type === "blob") return [];
  return object.type === "commit" ? commitLinks(object.data) : treeLinks(object.data);
}

/**
 * The pack's objects, each after the objects of the pack it links to: written in this order, a
 * store cut off midway (a killed process) holds only objects whose links it has.
 */
export function linkedFirst(objects: PackedObject[], links: Map<string, Link[]>, byId: Map<string, PackedObject>): PackedObject[] {
  const out: PackedObject[] = [];
  const placed = new Set<string>();
  const place = (root: PackedObject): void => {
    // Iterative depth-first: a long history in one pack does not run out of stack.
    const stack: { object: PackedObject; next: number }[] = [{ object: root, next: 0 }];
    placed.add(root.id);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const link = links.get(top.object.id)![top.next++];
      if (!link) {
        out.push(top.object);
        stack.pop();
        continue;
      }
      const inPack = byId.get(link.id);
      if (inPack && !placed.has(inPack.id)) {
        placed.add(inPack.id);
        stack.push({ object: inPack, next: 0 });
      }
    }
  };
  for (const o of objects) if (!placed.has(o.id)) place(o);
  return out;
}
