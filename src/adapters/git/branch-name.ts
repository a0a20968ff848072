/**
 * Whether git takes a name as a branch's own, decided here instead of by a `git check-ref-format
 * --branch` process (ADR 0477). The rules are git's (git-check-ref-format(1); refs.c
 * `check_refname_format` on `refs/heads/<name>`, and `strbuf_check_branch_ref`), and a test holds
 * them to the installed git over hundreds of names. A name that `--branch` would expand (`@{-1}`,
 * `main@{upstream}`) is refused, as the old check refused any name git printed back changed.
 */

/** Characters refused anywhere besides controls, DEL and space: `~ ^ : ? [ \` and `*` (no pattern here). */
const BAD_CHAR = /[~^:?[\\*]/;

function hasControlOrSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** One `/`-separated component as refs.c `check_refname_component` takes it. */
function componentOk(part: string): boolean {
  if (part === "") return false;
  if (part.startsWith(".")) return false;
  if (part.endsWith(".lock")) return false;
  return !part.includes("..") && !part.includes("@{");
}

/** True when `git check-ref-format --branch <name>` would accept `name` and print it back unchanged. */
export function isBranchNameGitTakes(name: string): boolean {
  // git sees the name's UTF-8 bytes: a lone surrogate would reach it as another name.
  if (Buffer.from(name, "utf8").toString("utf8") !== name) return false;
  // The old check compared git's output trimmed: a name with outer whitespace of any kind (U+00A0 too) never matched.
  if (name.trim() !== name) return false;
  // strbuf_check_branch_ref: never a leading dash (an option), never HEAD.
  if (name === "" || name.startsWith("-") || name === "HEAD") return false;
  const ref = `refs/heads/${name}`;
  if (BAD_CHAR.test(ref) || hasControlOrSpace(ref)) return false;
  if (ref.endsWith(".")) return false;
  return ref.split("/").every(componentOk);
}
