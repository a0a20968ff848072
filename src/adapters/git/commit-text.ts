/**
 * A commit object's bytes as `git commit-tree` writes them (commit.c `commit_tree_extended`):
 * `tree`, `parent` lines, `author` and `committer` lines, a blank line, the message as given.
 * Shared by the sandbox's merge commits (ADR 0479) and the Lane's replayed rebase (ADR 0483), so
 * the rules for what git would write otherwise are kept in one place.
 */

export interface Ident {
  name: string;
  email: string;
}

/** Names and emails git writes as given: no crud (ident.c `crud`) at either end, nothing it strips or refuses inside. */
export function plainIdent(text: string): boolean {
  return /^[A-Za-z0-9_+-](?:[A-Za-z0-9 _+.@-]*[A-Za-z0-9_+-])?$/.test(text);
}

/** git's `+hhmm`/`-hhmm` of this process's time zone at `when` (date.c `local_tzoffset`). */
export function tzOffset(when: number): string {
  const minutes = -new Date(when * 1000).getTimezoneOffset();
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
}

/** `<name> <<email>> <seconds> <±hhmm>` at `when` in this process's zone; null: an ident or a time git would write otherwise. */
export function identLine(ident: Ident, when: number): string | null {
  if (!plainIdent(ident.name) || !plainIdent(ident.email)) return null;
  if (!Number.isSafeInteger(when) || when < 0) return null;
  return `${ident.name} <${ident.email}> ${when} ${tzOffset(when)}`;
}

/** A message commit-tree keeps byte for byte: no NUL, and UTF-8 (git's check would rewrite anything else). */
export function verbatimMessage(message: Buffer): boolean {
  return !message.includes(0) && Buffer.from(message.toString("utf8"), "utf8").equals(message);
}

const SHA1 = /^[0-9a-f]{40}$/;

export interface CommitParts {
  tree: string;
  parents: readonly string[];
  /** The whole `author` line after `author `, as written (its own date and zone). */
  author: string;
  committer: string;
  message: Buffer;
}

/** The commit's body; null when an input is not what commit-tree writes as given. */
export function commitBytes(parts: CommitParts): Buffer | null {
  if (!SHA1.test(parts.tree) || !parts.parents.every((p) => SHA1.test(p))) return null;
  if (/[\n\0]/.test(parts.author) || /[\n\0]/.test(parts.committer) || !verbatimMessage(parts.message)) return null;
  const head = [`tree ${parts.tree}`, ...parts.parents.map((p) => `parent ${p}`), `author ${parts.author}`, `committer ${parts.committer}`];
  return Buffer.concat([Buffer.from(`${head.join("\n")}\n\n`, "utf8"), parts.message]);
}
