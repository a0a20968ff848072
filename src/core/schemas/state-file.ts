import { z } from "zod";

/** `ticket-<n>.json` in the ticket's State record: how far a Ticket got (docs/workspace.md). */
export const STATE_FORMAT = 1;

/** Where a ticket's State record lives on the Target's remote: its own ref, outside refs/heads (ADR 0180). */
export function stateRecordRef(ticket: number): string {
  return `refs/ticket-runner/state/${ticket}`;
}

/** Stage -> the agent session a Stage was interrupted in (ADR-0142): in the State file and in this Host's local claim. */
export const agentSessionsSchema = z.record(z.enum(["implement", "verify", "fix", "conflict"]), z.string().min(1).max(200));

export const stateFileSchema = z.object({
  format: z.literal(STATE_FORMAT).optional(),
  ticket: z.number().int().positive(),
  branch: z.string().min(1).max(255),
  state: z.enum(["claimed", "implemented"]),
  fixUsed: z.boolean(),
  pullRequest: z.number().int().positive().nullable(),
  title: z.string().max(300).nullable(),
  /** Stage -> the agent session a Stage was interrupted in (ADR-0142). Absent in older files. */
  sessions: agentSessionsSchema.optional(),
  /** The Host whose disk holds those sessions: another Host starts those Stages afresh (ADR 0250). Absent in older files. */
  sessionsOn: z.object({ id: z.string().min(1).max(200), name: z.string().max(200) }).optional(),
  runId: z.string().min(1),
  version: z.string().min(1),
  updatedAt: z.string().datetime(),
});
export type StateFile = z.infer<typeof stateFileSchema>;
