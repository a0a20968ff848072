import { z } from "zod";
import { hostIdentitySchema } from "./host";

/** `lock.json` at the tip of `ticket-runner/lock`: who may run on a Target (docs/workspace.md). */
const heldLockSchema = z.object({
  held: z.literal(true),
  format: z.literal(1).optional(),
  host: hostIdentitySchema,
  pid: z.number().int().positive(),
  command: z.string().max(500),
  runId: z.string().min(1),
  startedAt: z.string().datetime(),
  processStartTime: z.string().nullable(),
  version: z.string().optional(),
});

export const lockFileSchema = z.discriminatedUnion("held", [z.object({ held: z.literal(false) }), heldLockSchema]);
export type LockFile = z.infer<typeof lockFileSchema>;
