/**
 * `git ls-remote <url> <patterns>`'s choice of refs (builtin/ls-remote.c, git 2.39): a ref is shown
 * when the pattern, with `*` and a slash before it, wildmatches the ref with a slash before it,
 * without WM_PATHNAME (so `*` crosses `/`): a pattern matches a ref's tail, whole path components
 * at a time. No pattern: every ref.
 */
import { UseGit } from "./smart-http-client";

/** wildmatch's `*`, `?`, `[...]` and `\` escapes as a RegExp source; a `[:class:]` is left to git. */
function globSource(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "\\" && i + 1 < pattern.length) out += escape(pattern[++i]!);
    else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      const inner = close < 0 ? null : pattern.slice(i + 1, close);
      if (inner === null || inner.includes("[:") || inner.includes("\\")) throw new UseGit(`a pattern git reads its own way: ${pattern}`);
      const negated = inner.startsWith("!") || inner.startsWith("^");
      const set = (negated ? inner.slice(1) : inner).replace(/[\]^]/g, "\\$&");
      out += `[${negated ? "^" : ""}${set}]`;
      i = close;
    } else out += escape(c);
  }
  return out;
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** A test of refs by `patterns` as `git ls-remote` applies them. */
export function refMatcher(patterns: string[]): (ref: string) => boolean {
  if (patterns.length === 0) return () => true;
  const tests = patterns.map((p) => new RegExp(`^.*/${globSource(p)}$`, "s"));
  return (ref) => tests.some((t) => t.test(`/${ref}`));
}
