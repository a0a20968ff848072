/**
 * The scripted model's mind: for a Ticket Runner Stage prompt carrying a `ticket-runner-demo`
 * block (the demo agent's, docs/agents.md), the next assistant message. Stateless: the step is
 * read from the conversation itself (how many of its own tool calls came before), so a resumed
 * session carries on where it stopped and a fresh one starts over, as a real model would.
 *
 * implement / fix: Write each file -> Bash `git add` -> Bash `git commit` -> the answer.
 * verify: Read each criterion's file -> the grades, from what the reads returned.
 * conflict: Bash `git checkout --theirs` -> `git add` -> `git rebase --continue` -> the answer.
 * The answer is a StructuredOutput tool call when Claude Code offers that tool (--json-schema),
 * else the answer as JSON text.
 */
import { randomBytes } from "node:crypto";
import { extractIssue, parseDemoBlock, uncheckedCriteria } from "../demo-agent/demo-block";
import type { DemoBlock, DemoStage } from "../demo-agent/demo-block";
import type { AnswerBlock, MessagesRequest, ToolOutcome } from "./messages";
import { assistantToolCalls, toolOutcomes, userTexts } from "./messages";

export const TOOL_ID_PREFIX = "toolu_scripted_";

export interface StagePrompt {
  stage: DemoStage;
  ticket: number;
  prompt: string;
}

const STAGE_OPENINGS: [RegExp, DemoStage][] = [
  [/^You are working on GitHub issue #(\d+)/m, "implement"],
  [/^You are verifying the work on GitHub issue #(\d+)/m, "verify"],
  [/^You are fixing the work on GitHub issue #(\d+)/m, "fix"],
  [/^A rebase of branch .*\(GitHub issue #(\d+)\)/m, "conflict"],
];

/** The Stage and ticket of the first user text that is a Ticket Runner prompt; null for any other conversation. */
export function stagePromptOf(request: MessagesRequest): StagePrompt | null {
  for (const text of userTexts(request)) {
    if (!text.includes("<<<ISSUE")) continue;
    for (const [re, stage] of STAGE_OPENINGS) {
      const m = re.exec(text);
      if (m) return { stage, ticket: Number(m[1]), prompt: text };
    }
  }
  return null;
}

/** How many of its own tool-calling messages the conversation already holds. */
export function stepOf(request: MessagesRequest): number {
  return ownCalls(request).length;
}

function ownCalls(request: MessagesRequest): { id: string; name: string }[][] {
  return assistantToolCalls(request).filter((calls) => calls.some((c) => c.id.startsWith(TOOL_ID_PREFIX)));
}

function toolId(): string {
  return `${TOOL_ID_PREFIX}${randomBytes(8).toString("hex")}`;
}

function tool(name: string, input: Record<string, unknown>): AnswerBlock {
  return { type: "tool_use", id: toolId(), name, input };
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface Turn {
  blocks: AnswerBlock[];
  /** True when this message ends the session (no tool call that expects a result). */
  final: boolean;
}

function answer(request: MessagesRequest, value: unknown, lead: string): Turn {
  const offersStructured = (request.tools ?? []).some((t) => t.name === "StructuredOutput");
  if (offersStructured) return { blocks: [{ type: "text", text: lead }, tool("StructuredOutput", value as Record<string, unknown>)], final: false };
  return { blocks: [{ type: "text", text: JSON.stringify(value) }], final: true };
}

function codeTurn(request: MessagesRequest, sp: StagePrompt, block: DemoBlock, title: string, step: number): Turn {
  const files = sp.stage === "fix" ? (block.fixFiles ?? block.files) : block.files;
  const paths = Object.keys(files);
  const cwd = cwdOf(request);
  const message = sp.stage === "fix" ? `Fix: ${title}` : title;
  switch (step) {
    case 0:
      return { blocks: [{ type: "text", text: `I'll ${sp.stage === "fix" ? "fix" : "implement"} #${sp.ticket} by writing ${paths.length} file(s).` }, ...paths.map((p) => tool("Write", { file_path: cwd ? `${cwd}/${p}` : p, content: files[p] }))], final: false };
    case 1:
      return { blocks: [tool("Bash", { command: `git add -- ${paths.map(shellQuote).join(" ")}`, description: "Stage the change" })], final: false };
    case 2:
      return { blocks: [tool("Bash", { command: `git commit ${sp.stage === "fix" ? "--allow-empty " : ""}-m ${shellQuote(message)}`, description: "Commit the change" })], final: false };
    default:
      return answer(request, { title, summary: block.summary ?? `Wrote ${paths.join(", ")}.` }, `Committed: ${message}.`);
  }
}

function gradeFrom(criterion: string, rule: { file: string; contains: string } | undefined, outcome: ToolOutcome | undefined): { criterion: string; verdict: string; evidence: string } {
  if (!rule) return { criterion, verdict: "unverifiable", evidence: "No rule in the ticket-runner-demo block for this criterion." };
  if (!outcome || outcome.isError) return { criterion, verdict: "unmet", evidence: `${rule.file} could not be read${outcome ? `: ${outcome.text.split("\n")[0]}` : ""}` };
  // Read returns `cat -n` style lines: "     3\tcontent".
  for (const line of outcome.text.split("\n")) {
    const m = /^\s*(\d+)\t(.*)$/.exec(line);
    const body = m ? m[2]! : line;
    if (body.includes(rule.contains)) return { criterion, verdict: "met", evidence: `${rule.file}:${m ? m[1] : "?"} contains ${JSON.stringify(rule.contains)}` };
  }
  return { criterion, verdict: "unmet", evidence: `${rule.file} does not contain ${JSON.stringify(rule.contains)}` };
}

function verifyTurn(request: MessagesRequest, block: DemoBlock, criteria: string[], step: number): Turn {
  const cwd = cwdOf(request);
  const rules = block.criteria ?? [];
  if (step === 0) {
    const reads = criteria.map((_, i) => rules[i]).filter((r): r is { file: string; contains: string } => r !== undefined);
    if (reads.length > 0) return { blocks: [{ type: "text", text: `I'll read the files the ${criteria.length} criteria name.` }, ...reads.map((r) => tool("Read", { file_path: cwd ? `${cwd}/${r.file}` : r.file }))], final: false };
  }
  // The reads of step 0, in order, matched to the criteria that have rules.
  const ids = (ownCalls(request)[0] ?? []).filter((c) => c.name === "Read").map((c) => c.id);
  const outcomes = toolOutcomes(request);
  let next = 0;
  const grades = criteria.map((c, i) => {
    const rule = rules[i];
    const outcome = rule ? outcomes.get(ids[next++] ?? "") : undefined;
    return gradeFrom(c, rule, outcome);
  });
  return answer(request, { criteria: grades }, `Graded ${grades.length} criteria.`);
}

function conflictTurn(request: MessagesRequest, sp: StagePrompt, title: string, step: number): Turn {
  const files = [...sp.prompt.matchAll(/^- (.+)$/gm)].map((m) => m[1]!.trim()).filter((f) => !f.includes(" "));
  const list = files.map(shellQuote).join(" ");
  switch (step) {
    case 0:
      return { blocks: [{ type: "text", text: "I'll keep the ticket's side of each conflict." }, tool("Bash", { command: `git checkout --theirs -- ${list}`, description: "Take the ticket's side" })], final: false };
    case 1:
      return { blocks: [tool("Bash", { command: `git add -- ${list}`, description: "Mark resolved" })], final: false };
    case 2:
      return { blocks: [tool("Bash", { command: "git rebase --continue", description: "Finish the rebase" })], final: false };
    default:
      return answer(request, { title, summary: "Resolved the conflicts in favour of the ticket's files." }, "The rebase is complete.");
  }
}

/** The primary working directory Claude Code names in its environment context, for absolute tool paths. */
export function cwdOf(request: MessagesRequest): string | null {
  const all = JSON.stringify(request);
  const m = /Primary working directory: ([^\s\\]+)/.exec(all);
  return m ? m[1]! : null;
}

export function nextTurn(request: MessagesRequest, sp: StagePrompt): Turn {
  let block: DemoBlock;
  let title: string;
  let body: string;
  try {
    const issue = extractIssue(sp.prompt);
    body = issue.body;
    block = parseDemoBlock(issue.body);
    title = block.title ?? (issue.title.replace(/^#\d+\s*/, "") || `Ticket #${sp.ticket}`);
  } catch (error) {
    return { blocks: [{ type: "text", text: `I cannot work on this: ${error instanceof Error ? error.message : String(error)}` }], final: true };
  }
  // The answer was given (StructuredOutput called): the session only needs a last word.
  if (ownCalls(request).some((calls) => calls.some((c) => c.name === "StructuredOutput"))) return { blocks: [{ type: "text", text: "Done." }], final: true };
  const step = stepOf(request);
  switch (sp.stage) {
    case "implement":
    case "fix":
      return codeTurn(request, sp, block, title, step);
    case "verify":
      return verifyTurn(request, block, uncheckedCriteria(body), step);
    case "conflict":
      return conflictTurn(request, sp, title, step);
  }
}

