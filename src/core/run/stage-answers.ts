/**
 * The structured answers Stages give (CONTRACTS.md "Stage answers"). The zod schema checks what
 * came back; the JSON schema is what the agent is told (Claude Code's `--json-schema`).
 */
import { z } from "zod";
import type { StageName } from "../../ports/agent-runner";

export const codeAnswerSchema = z.object({
  title: z.string().trim().min(1).max(300),
  summary: z.string().max(20_000),
});
export type CodeAnswer = z.infer<typeof codeAnswerSchema>;

const verdictSchema = z.enum(["met", "unmet", "unverifiable"]);
export type Verdict = z.infer<typeof verdictSchema>;

export const verifyAnswerSchema = z.object({
  criteria: z
    .array(
      z.object({
        criterion: z.string().max(2_000),
        verdict: verdictSchema,
        evidence: z.string().max(20_000),
      }),
    )
    .max(200),
});

const codeAnswerJsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["title", "summary"],
  properties: {
    title: { type: "string", minLength: 1, maxLength: 300, description: "Pull request title for the whole branch" },
    summary: { type: "string", description: "What was changed and why, for the pull request body" },
  },
} as const;

const verifyAnswerJsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["criteria"],
  properties: {
    criteria: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["criterion", "verdict", "evidence"],
        properties: {
          criterion: { type: "string" },
          verdict: { type: "string", enum: ["met", "unmet", "unverifiable"] },
          evidence: { type: "string" },
        },
      },
    },
  },
} as const;

export function jsonSchemaFor(stage: StageName): object {
  return stage === "verify" ? verifyAnswerJsonSchema : codeAnswerJsonSchema;
}

/** Checks an answer; the error names the field that was wrong, for the hand-off evidence. */
export function parseAnswer<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; why: string } {
  if (value === undefined || value === null) return { ok: false, why: "the session gave no structured answer" };
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const first = parsed.error.issues[0];
  const where = first?.path.length ? first.path.join(".") : "(answer)";
  return { ok: false, why: `the structured answer is invalid at ${where}: ${first?.message ?? "unknown problem"}` };
}
