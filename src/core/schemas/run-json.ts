import { z } from "zod";
import { githubIdSchema } from "./github-id";
import { hostIdentitySchema } from "./host";

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
});
export type RunJson = z.infer<typeof runJsonSchema>;
