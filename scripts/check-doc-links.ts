/**
 * Checks that every relative link in README.md, CHANGELOG.md and docs/ (ADRs included) points at
 * a file or folder that exists. Web links (http:, https:, mailto:) and links inside code are not
 * checked: the first need the network, the second are examples.
 *
 *   npx tsx scripts/check-doc-links.ts      (part of `npm run test:static`)
 *
 * CONTRIBUTING.md's links are checked too. Prints each broken link as file:line and exits 1 when
 * there is one. (That every ADR has a row in docs/adr/README.md is test/unit/docs/adr-index.test.ts.)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...markdownFiles(full));
    else if (name.endsWith(".md")) out.push(full);
  }
  return out;
}

/** Removes fenced blocks and inline code, keeping line breaks so line numbers stay right. */
function withoutCode(text: string): string {
  const blanked = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, " "));
  return blanked.replace(/`[^`\n]*`/g, (span) => " ".repeat(span.length));
}

/** Inline links and images `[text](target)` and reference definitions `[id]: target`. */
function linkTargets(text: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  const lines = withoutCode(text).split("\n");
  lines.forEach((line, i) => {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ target: m[1]!, line: i + 1 });
    const ref = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (ref) found.push({ target: ref[1]!, line: i + 1 });
  });
  return found;
}

function broken(file: string, target: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return false;
  const path = decodeURIComponent(target.replace(/[?#].*$/, ""));
  if (!path) return false;
  return !existsSync(path.startsWith("/") ? join(root, path) : resolve(dirname(file), path));
}

const files = [join(root, "README.md"), join(root, "CHANGELOG.md"), join(root, "CONTRIBUTING.md"), ...markdownFiles(join(root, "docs"))].filter((f) =>
  existsSync(f),
);
let bad = 0;
for (const file of files) {
  for (const { target, line } of linkTargets(readFileSync(file, "utf8"))) {
    if (!broken(file, target)) continue;
    bad++;
    console.error(`${relative(root, file)}:${line}: broken link ${target}`);
  }
}
if (bad) {
  console.error(`${bad} broken link(s) in the docs. Fix the path, or drop the link.`);
  process.exit(1);
}
console.log(`Doc links: ${files.length} files checked, every relative link resolves.`);
