import { z } from "zod";

/** `ticket-<n>.json` on the `ticket-runner/state` branch: how far a Ticket got (seed 002). */
export const STATE_FORMAT = 1;

export const stateFileSchema = z.object({
  format: z.literal(STATE_FORMAT).optional(),
  ticket: z.number().int().positive(),
  branch: z.string().min(1).max(255),
  state: z.enum(["claimed", "implemented"]),
  fixUsed: z.boolean(),
  pullRequest: z.number().int().positive().nullable(),
  title: z.string().max(300).nullable(),
  runId: z.string().min(1),
  version: z.string().min(1),
  updatedAt: z.string().datetime(),
});
export type StateFile = z.infer<typeof stateFileSchema>;
