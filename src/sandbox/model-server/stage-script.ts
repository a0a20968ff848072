/**
 * The scripted model's plan for a Ticket Runner Stage, whatever API it is spoken over: which tool
 * actions the next assistant turn takes, or the answer. It reads the issue's `ticket-runner-demo`
 * block (the demo agent's, docs/agents.md) from the prompt. Stateless: the step is how many of its
 * own tool-calling turns the conversation already holds, so a resumed session carries on where it
 * stopped, as a real model would.
 *
 * implement / fix: write each file -> `git add` + `git commit` -> the answer.
 * verify: read each criterion's file -> the grades, from what the reads returned.
 * conflict: take the ticket's side, `git add`, `git rebase --continue` -> the answer.
 */
import { shellQuote } from "../../adapters/agent/stage-logs";
import { ANSWER_FENCE } from "../../core/run/fenced-answer";
import { extractIssue, parseDemoBlock, uncheckedCriteria } from "../demo-agent/demo-block";
import type { DemoBlock, DemoStage } from "../demo-agent/demo-block";

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

/** The Stage and ticket of the first text that is a Ticket Runner prompt; null for any other conversation. */
export function stagePromptIn(texts: readonly string[]): StagePrompt | null {
  for (const text of texts) {
    if (!text.includes("<<<ISSUE")) continue;
    for (const [re, stage] of STAGE_OPENINGS) {
      const m = re.exec(text);
      if (m) return { stage, ticket: Number(m[1]), prompt: text };
    }
  }
  return null;
}

export type ScriptedAction =
  /** `path` is relative to the session's working directory. */
  { kind: "write"; path: string; content: string } | { kind: "shell"; command: string; description: string } | { kind: "read"; path: string };

export type ScriptedTurn =
  { kind: "act"; text: string; actions: ScriptedAction[] } | { kind: "answer"; text: string; value: unknown } | { kind: "refuse"; text: string };

interface Grade {
  criterion: string;
  verdict: "met" | "unmet" | "unverifiable";
  evidence: string;
}

/**
 * Grades a criterion from what reading its file returned: `cat -n` style numbered lines when the
 * tool numbers them (a shell), else the raw content (a read-file tool), line i = index + 1.
 */
function gradeFrom(criterion: string, rule: { file: string; contains: string } | undefined, read: { text: string; isError: boolean } | undefined): Grade {
  if (!rule) return { criterion, verdict: "unverifiable", evidence: "No rule in the ticket-runner-demo block for this criterion." };
  if (!read || read.isError) return { criterion, verdict: "unmet", evidence: `${rule.file} could not be read${read ? `: ${read.text.split("\n")[0]}` : ""}` };
  const lines = read.text.split("\n");
  const numbered = lines.map((l) => /^\s*(\d+)\t(.*)$/.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  const candidates = numbered.length > 0 ? numbered.map((m) => ({ no: Number(m[1]), body: m[2]! })) : lines.map((body, i) => ({ no: i + 1, body }));
  const hit = candidates.find((c) => c.body.includes(rule.contains));
  if (hit) return { criterion, verdict: "met", evidence: `${rule.file}:${hit.no} contains ${JSON.stringify(rule.contains)}` };
  return { criterion, verdict: "unmet", evidence: `${rule.file} does not contain ${JSON.stringify(rule.contains)}` };
}

function codeTurn(sp: StagePrompt, block: DemoBlock, title: string, step: number): ScriptedTurn {
  const files = sp.stage === "fix" ? (block.fixFiles ?? block.files) : block.files;
  const paths = Object.keys(files);
  const message = sp.stage === "fix" ? `Fix: ${title}` : title;
  if (step === 0) {
    const verb = sp.stage === "fix" ? "fix" : "implement";
    return {
      kind: "act",
      text: `I'll ${verb} #${sp.ticket} by writing ${paths.length} file(s).`,
      actions: paths.map((p) => ({ kind: "write", path: p, content: files[p]! })),
    };
  }
  if (step === 1) {
    const command = `git add -- ${paths.map(shellQuote).join(" ")} && git commit ${sp.stage === "fix" ? "--allow-empty " : ""}-m ${shellQuote(message)}`;
    return { kind: "act", text: "Committing the change.", actions: [{ kind: "shell", command, description: "Stage and commit the change" }] };
  }
  return { kind: "answer", text: `Committed: ${message}.`, value: { title, summary: block.summary ?? `Wrote ${paths.join(", ")}.` } };
}

function verifyTurn(block: DemoBlock, criteria: string[], step: number, reads: readonly { text: string; isError: boolean }[]): ScriptedTurn {
  const rules = block.criteria;
  const files = criteria.map((_, i) => rules[i]).filter((r): r is { file: string; contains: string } => r !== undefined);
  if (step === 0 && files.length > 0) {
    return { kind: "act", text: `I'll read the files the ${criteria.length} criteria name.`, actions: files.map((r) => ({ kind: "read", path: r.file })) };
  }
  let next = 0;
  const grades = criteria.map((c, i) => {
    const rule = rules[i];
    return gradeFrom(c, rule, rule ? reads[next++] : undefined);
  });
  return { kind: "answer", text: `Graded ${grades.length} criteria.`, value: { criteria: grades } };
}

function conflictTurn(sp: StagePrompt, title: string, step: number): ScriptedTurn {
  const files = [...sp.prompt.matchAll(/^- (.+)$/gm)].map((m) => m[1]!.trim()).filter((f) => !f.includes(" "));
  if (step === 0) {
    const list = files.map(shellQuote).join(" ");
    // GIT_EDITOR=true comes from the runner's env: a command prefixed with it would not match a Gemini policy prefix.
    const command = `git checkout --theirs -- ${list} && git add -- ${list} && git rebase --continue`;
    return {
      kind: "act",
      text: "I'll keep the ticket's side of each conflict.",
      actions: [{ kind: "shell", command, description: "Take the ticket's side and finish the rebase" }],
    };
  }
  return { kind: "answer", text: "The rebase is complete.", value: { title, summary: "Resolved the conflicts in favour of the ticket's files." } };
}

/**
 * The next turn of a Stage session. `step` counts the session's own earlier tool-calling turns;
 * `firstReads` is what step 0's reads returned, in order (verify grades from them).
 */
export function planTurn(sp: StagePrompt, step: number, firstReads: readonly { text: string; isError: boolean }[] = []): ScriptedTurn {
  let block: DemoBlock;
  let title: string;
  let body: string;
  try {
    const issue = extractIssue(sp.prompt);
    body = issue.body;
    block = parseDemoBlock(issue.body);
    title = block.title ?? (issue.title.replace(/^#\d+\s*/, "") || `Ticket #${sp.ticket}`);
  } catch (error) {
    return { kind: "refuse", text: `I cannot work on this: ${error instanceof Error ? error.message : String(error)}` };
  }
  switch (sp.stage) {
    case "implement":
    case "fix":
      return codeTurn(sp, block, title, step);
    case "verify":
      return verifyTurn(block, uncheckedCriteria(body), step, firstReads);
    case "conflict":
      return conflictTurn(sp, title, step);
  }
}

/** How the answer is written when the API gave no schema: in the fenced block the prompt asked for, else bare JSON. */
export function answerText(sp: StagePrompt, turn: { text: string; value: unknown }): string {
  if (sp.prompt.includes("```" + ANSWER_FENCE)) return `${turn.text}\n\n\`\`\`${ANSWER_FENCE}\n${JSON.stringify(turn.value, null, 2)}\n\`\`\``;
  return JSON.stringify(turn.value);
}
