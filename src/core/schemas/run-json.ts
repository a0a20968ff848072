import { z } from "zod";
import { githubIdSchema } from "./github-id";
import { hostIdentitySchema } from "./host";
import { agentSessionsSchema } from "./state-file";

/**
 * The agent sessions of this claim's Stages as this Host last knew them, and when (ADR 0452): they
 * live on this Host's disk, so their first record does too; the State file gets them with its next write.
 */
export const notedSessionsSchema = z.object({ stages: agentSessionsSchema, at: z.string().datetime() });
export type NotedSessions = z.infer<typeof notedSessionsSchema>;

/** `run.json`, the local claim, created with an exclusive create in the ticket's run directory. */
export const runJsonSchema = z.object({
  version: z.number().int().positive(),
  repo: z.string().min(3),
  issue: z.number().int().positive(),
  host: hostIdentitySchema,
  session: z.string().min(1),
  run: z.string().min(1),
  pid: z.number().int().positive(),
  startedAt: z.string().datetime(),
  holder: z.enum(["person", "machine"]),
  commentId: githubIdSchema.nullable(),
  worktree: z.string().nullable(),
  branch: z.string().nullable(),
  offline: z.boolean(),
  /** Absent until a Stage's agent names its session; carried over when a new session on this Host adopts the claim. */
  sessions: notedSessionsSchema.optional(),
});
export type RunJson = z.infer<typeof runJsonSchema>;
