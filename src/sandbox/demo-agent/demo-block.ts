/**
 * The ```ticket-runner-demo block in an issue body tells the demo agent what to do (docs/agents.md).
 * The issue reaches the agent inside the prompt, between a line `<<<ISSUE` and a line `ISSUE>>>`:
 * its title on the first line, then the body verbatim.
 *
 * Everything here is data from an issue author: it is validated with zod, file paths must stay
 * inside the worktree, and nothing in it is ever passed to a shell.
 */
import { z } from "zod";

export const STAGES = ["implement", "verify", "fix", "conflict"] as const;
export type DemoStage = (typeof STAGES)[number];

const stageSuffix = `(?::(?:${STAGES.join("|")}))?`;
const BEHAVIOUR = new RegExp(`^(?:fail-checks-once|unmet-criteria|conflict|rate-limit-once${stageSuffix}|crash${stageSuffix}|slow:\\d{1,7}|burst:\\d{1,7})$`);

const BEHAVIOUR_HELP = 'one of "fail-checks-once", "unmet-criteria", "conflict", "rate-limit-once[:<stage>]", "crash[:<stage>]", "slow:<ms>", "burst:<events>"';

/** A relative path inside the worktree: no absolute paths, no `..`, nothing under `.git`. */
const safeRelativePath = z
  .string()
  .min(1)
  .max(300)
  .refine((p) => !p.startsWith("/") && !p.includes("\\") && !p.includes("\0"), { message: "must be a relative path with forward slashes" })
  .refine((p) => p.split("/").every((seg) => seg !== ".." && seg !== "" && seg !== "."), { message: "must not contain '..', '.' or empty segments" })
  .refine((p) => p.split("/")[0] !== ".git", { message: "must not point into .git" });

const fileMap = z.record(z.string(), z.string()).superRefine((files, ctx) => {
  for (const p of Object.keys(files)) {
    const r = safeRelativePath.safeParse(p);
    if (!r.success)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [p], message: `path ${JSON.stringify(p)} ${r.error.issues[0]?.message ?? "is invalid"}` });
  }
});

const demoBlockSchema = z
  .object({
    /** The PR title the code Stages answer with. Default: the issue's title. */
    title: z.string().min(1).max(200).optional(),
    summary: z.string().max(2000).optional(),
    /** Written and committed by implement. */
    files: fileMap.refine((f) => Object.keys(f).length > 0, { message: "needs at least one file" }),
    /** Written and committed by fix; default `files` again. */
    fixFiles: fileMap.optional(),
    /** What the "teammate" pushes to the base branch under the `conflict` behaviour. Default: a one-line rewrite of each of `files`. */
    teammateFiles: fileMap.optional(),
    /** How verify grades the i-th unticked `- [ ]` criterion of the issue. */
    criteria: z.array(z.object({ file: safeRelativePath, contains: z.string().min(1) }).strict()).default([]),
    behaviours: z.array(z.string().regex(BEHAVIOUR, { message: `unknown behaviour: ${BEHAVIOUR_HELP}` })).default([]),
  })
  .strict()
  .superRefine((block, ctx) => {
    if (block.behaviours.includes("fail-checks-once") && !block.fixFiles) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["fixFiles"],
        message: '"fail-checks-once" needs fixFiles: `files` is the first (failing) attempt, fixFiles the fix',
      });
    }
    if (block.behaviours.includes("unmet-criteria")) {
      const final = { ...block.files, ...block.fixFiles };
      const allMet = block.criteria.length > 0 && block.criteria.every((c) => (final[c.file] ?? "").includes(c.contains));
      if (allMet) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["criteria"], message: '"unmet-criteria" but the files already meet every criterion' });
    }
  });

export type DemoBlock = z.infer<typeof demoBlockSchema>;

export interface IssueText {
  title: string;
  body: string;
}

export class DemoInputError extends Error {}

/** The issue between `<<<ISSUE` and `ISSUE>>>` lines. */
export function extractIssue(prompt: string): IssueText {
  const lines = prompt.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === "<<<ISSUE");
  const end = start === -1 ? -1 : lines.findIndex((l, i) => i > start && l.trim() === "ISSUE>>>");
  if (start === -1 || end === -1) throw new DemoInputError("the prompt has no issue between a `<<<ISSUE` line and an `ISSUE>>>` line");
  const inner = lines.slice(start + 1, end);
  return { title: (inner[0] ?? "").trim(), body: inner.slice(1).join("\n") };
}

/** Parses and validates the first ```ticket-runner-demo block of the body. */
export function parseDemoBlock(body: string): DemoBlock {
  const match = /^[ \t]*```ticket-runner-demo[^\n]*\n([\s\S]*?)\n[ \t]*```/m.exec(body);
  if (!match) throw new DemoInputError("the issue has no ```ticket-runner-demo block, so the demo agent does not know what to write. Add one (docs/agents.md)");
  let json: unknown;
  try {
    json = JSON.parse(match[1]!);
  } catch (e) {
    throw new DemoInputError(`the ticket-runner-demo block is not valid JSON (${e instanceof Error ? e.message : String(e)}). Fix the block in the issue`);
  }
  const parsed = demoBlockSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(block)"}: ${i.message}`);
    throw new DemoInputError(`the ticket-runner-demo block is invalid: ${issues.join("; ")}. Fix the block in the issue`);
  }
  return parsed.data;
}

/** The unticked `- [ ]` items of the body, in order, outside fenced code. */
export function uncheckedCriteria(body: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const m = /^\s*[-*+] \[ \] (.+)$/.exec(line);
    if (m) out.push(m[1]!.trim());
  }
  return out;
}

export interface Behaviours {
  failChecksOnce: boolean;
  unmetCriteria: boolean;
  conflict: boolean;
  /** "any" = the first session of the ticket, whatever its stage. */
  rateLimitOnce: DemoStage | "any" | null;
  crash: DemoStage | "any" | null;
  slowMs: number;
  burst: number;
}

export function behavioursOf(block: DemoBlock): Behaviours {
  const b: Behaviours = { failChecksOnce: false, unmetCriteria: false, conflict: false, rateLimitOnce: null, crash: null, slowMs: 0, burst: 0 };
  for (const raw of block.behaviours) {
    const [name, arg] = raw.split(":") as [string, string | undefined];
    if (name === "fail-checks-once") b.failChecksOnce = true;
    else if (name === "unmet-criteria") b.unmetCriteria = true;
    else if (name === "conflict") b.conflict = true;
    else if (name === "rate-limit-once") b.rateLimitOnce = (arg as DemoStage | undefined) ?? "any";
    else if (name === "crash") b.crash = (arg as DemoStage | undefined) ?? "any";
    else if (name === "slow") b.slowMs = Number(arg);
    else if (name === "burst") b.burst = Number(arg);
  }
  return b;
}
