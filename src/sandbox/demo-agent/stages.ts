/**
 * What the demo agent does in each Stage. Each returns the answer the Stage owes
 * (CONTRACTS.md): implement / fix / conflict `{ title, summary }`, verify `{ criteria: [...] }`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DemoBlock, IssueText } from "./demo-block";
import { uncheckedCriteria } from "./demo-block";
import { readWorktreeFile, writeWorktreeFile } from "./files";
import { gitIn, gitText } from "./git";
import type { StreamWriter } from "./stream";

export interface StageContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  block: DemoBlock;
  issue: IssueText;
  ticket: string;
  out: StreamWriter;
}

export interface CodeAnswer {
  title: string;
  summary: string;
}

export interface Verdict {
  criterion: string;
  verdict: "met" | "unmet" | "unverifiable";
  evidence: string;
}

function titleOf(ctx: StageContext): string {
  return ctx.block.title ?? (ctx.issue.title || `Ticket #${ctx.ticket}`);
}

/** Writes files as Write tool calls; returns the paths that changed on disk. */
async function writeFiles(ctx: StageContext, files: Record<string, string>): Promise<string[]> {
  const changed: string[] = [];
  for (const [rel, content] of Object.entries(files)) {
    const before = await readWorktreeFile(ctx.cwd, rel);
    await ctx.out.tool("Write", { file_path: join(ctx.cwd, rel), content }, async () => {
      await writeWorktreeFile(ctx.cwd, rel, content);
      return before === null ? `File created successfully at: ${join(ctx.cwd, rel)}` : `The file ${join(ctx.cwd, rel)} has been updated.`;
    });
    if (before !== content) changed.push(rel);
  }
  return changed;
}

/** The abbreviated id in `git commit`'s summary line: `[<branch>[ (root-commit)] <id>] <subject>`. */
const COMMIT_SUMMARY = /^\[[^\]\n]* ([0-9a-f]{4,64})\] /m;

/** `git add` + `git commit`, shown as one Bash call (display only: git runs with argv, never a shell). */
async function commit(ctx: StageContext, paths: string[], message: string, allowEmpty: boolean): Promise<string | null> {
  const staged = paths.length > 0;
  if (!staged && !allowEmpty) return null;
  const shown = `git add -- ${paths.join(" ")} && git commit -m ${JSON.stringify(message)}${staged ? "" : " --allow-empty"}`;
  return ctx.out.tool("Bash", { command: shown, description: "Commit the change" }, async () => {
    if (staged) await gitIn(ctx.cwd, ["add", "--", ...paths]);
    const made = await gitIn(ctx.cwd, ["commit", "-m", message, ...(staged ? [] : ["--allow-empty"])]);
    // The commit's own summary line names it ("[branch 1a2b3c4] message"): no second git for the same commit.
    const sha = COMMIT_SUMMARY.exec(made.stdout)?.[1] ?? (await gitText(ctx.cwd, ["rev-parse", "--short", "HEAD"]));
    return `[${sha}] ${message}`;
  });
}

export async function implementStage(ctx: StageContext): Promise<CodeAnswer> {
  await ctx.out.text(`I'll implement "${ctx.issue.title}" by writing ${Object.keys(ctx.block.files).length} file(s).`);
  const changed = await writeFiles(ctx, ctx.block.files);
  const title = titleOf(ctx);
  const done = await commit(ctx, changed, title, false);
  const summary = ctx.block.summary ?? `Wrote ${Object.keys(ctx.block.files).join(", ")}.`;
  await ctx.out.text(done ? `Committed: ${title}.` : "The files were already as the ticket asks; nothing new to commit.");
  return { title, summary };
}

export async function fixStage(ctx: StageContext): Promise<CodeAnswer> {
  const files = ctx.block.fixFiles ?? ctx.block.files;
  await ctx.out.text("I'll address the failure by rewriting the files.");
  const changed = await writeFiles(ctx, files);
  const title = titleOf(ctx);
  // A fix Stage must add a commit; when nothing changed the honest commit is an empty one saying so.
  await commit(ctx, changed, changed.length > 0 ? `fix: ${title}` : `fix: ${title} (no change could meet the criteria)`, true);
  return { title, summary: changed.length > 0 ? `Rewrote ${changed.join(", ")}.` : "Tried again; the files already were what the demo block asks for." };
}

/** Reads a file as a Read tool call; null when it does not exist. */
async function readShown(ctx: StageContext, rel: string): Promise<string | null> {
  const content = await readWorktreeFile(ctx.cwd, rel);
  await ctx.out.tool("Read", { file_path: join(ctx.cwd, rel) }, async () => content ?? `File does not exist: ${rel}`);
  return content;
}

/** Grades each unticked criterion by reading the worktree: `criteria[i]` says which file must contain what. */
export async function verifyStage(ctx: StageContext): Promise<{ criteria: Verdict[] }> {
  const items = uncheckedCriteria(ctx.issue.body);
  const rules = ctx.block.criteria;
  const names = items.length > 0 ? items : rules.map((r) => `${r.file} contains ${JSON.stringify(r.contains)}`);
  await ctx.out.text(`I'll check ${names.length} criteria against the worktree.`);
  const verdicts: Verdict[] = [];
  for (const [i, criterion] of names.entries()) {
    const rule = rules[i];
    if (!rule) {
      verdicts.push({ criterion, verdict: "unverifiable", evidence: `the demo block has no rule for criterion ${i + 1}` });
      continue;
    }
    const content = await readShown(ctx, rule.file);
    if (content === null) {
      verdicts.push({ criterion, verdict: "unmet", evidence: `${rule.file} does not exist` });
      continue;
    }
    const lineNo = content.split("\n").findIndex((l) => l.includes(rule.contains));
    if (lineNo >= 0) verdicts.push({ criterion, verdict: "met", evidence: `${rule.file}:${lineNo + 1} contains ${JSON.stringify(rule.contains)}` });
    else if (content.includes(rule.contains)) verdicts.push({ criterion, verdict: "met", evidence: `${rule.file} contains ${JSON.stringify(rule.contains)}` });
    else
      verdicts.push({
        criterion,
        verdict: "unmet",
        evidence: `${rule.file} (${content.split("\n").length} lines) does not contain ${JSON.stringify(rule.contains)}`,
      });
  }
  const met = verdicts.filter((v) => v.verdict === "met").length;
  await ctx.out.text(`${met} of ${verdicts.length} criteria met.`);
  return { criteria: verdicts };
}

async function rebaseInProgress(cwd: string): Promise<boolean> {
  const gitDir = await gitText(cwd, ["rev-parse", "--path-format=absolute", "--git-dir"]);
  return existsSync(join(gitDir, "rebase-merge")) || existsSync(join(gitDir, "rebase-apply"));
}

/**
 * Finishes a stopped rebase: at every stop, each conflicted file takes the ticket's side (in a
 * rebase that is `--theirs`: the commit being replayed), or is removed if the ticket deleted it;
 * then `rebase --continue` (or `--skip` when the commit became empty). The teammate's edit of
 * those files is dropped in favour of the ticket's, which is what the criteria grade.
 */
export async function conflictStage(ctx: StageContext): Promise<CodeAnswer> {
  const title = titleOf(ctx);
  if (!(await rebaseInProgress(ctx.cwd))) {
    await ctx.out.text("No rebase is in progress; nothing to resolve.");
    return { title, summary: "No conflict to resolve." };
  }
  const resolved = new Set<string>();
  for (let stop = 0; stop < 100 && (await rebaseInProgress(ctx.cwd)); stop += 1) {
    const conflicted = (await gitText(ctx.cwd, ["diff", "--name-only", "--diff-filter=U", "-z"])).split("\0").filter((p) => p.length > 0);
    await ctx.out.text(conflicted.length > 0 ? `Resolving ${conflicted.join(", ")} in favour of the ticket's version.` : "Continuing the rebase.");
    for (const path of conflicted) {
      await ctx.out.tool("Bash", { command: `git checkout --theirs -- ${path} && git add -- ${path}`, description: "Take the ticket's side" }, async () => {
        const took = await gitIn(ctx.cwd, ["checkout", "--theirs", "--", path], { allowFail: true });
        if (took.code === 0) await gitIn(ctx.cwd, ["add", "--", path]);
        else await gitIn(ctx.cwd, ["rm", "-q", "--", path]);
        resolved.add(path);
        return took.code === 0 ? `took the ticket's ${path}` : `removed ${path}, as the ticket did`;
      });
    }
    // commentChar=auto keeps a message such as "#4 ..." from being stripped as a comment.
    const cont = await gitIn(ctx.cwd, ["-c", "core.commentChar=auto", "rebase", "--continue"], { allowFail: true });
    const nothingStaged = (await gitIn(ctx.cwd, ["diff", "--cached", "--quiet"], { allowFail: true })).code === 0;
    if (cont.code !== 0 && nothingStaged && /nothing to commit|no changes|empty|skip this/i.test(cont.stdout + cont.stderr)) {
      await gitIn(ctx.cwd, ["rebase", "--skip"], { allowFail: true });
    }
  }
  if (await rebaseInProgress(ctx.cwd)) throw new Error("the rebase is still stopped after 100 attempts to continue it");
  return { title, summary: `Rebased onto the new base; kept the ticket's ${[...resolved].join(", ") || "changes"}.` };
}
