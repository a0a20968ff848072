import { z } from "zod";
import { githubIdSchema } from "./github-id";
import { hostIdentitySchema } from "./host";

/** The lease JSON carried by the marker comment on an issue (docs/claims.md, "The lease comment"). */
export const LEASE_VERSION = 1;

const leaseStateSchema = z.enum([
  "claimed", // live, work not started or in progress
  "running", // a Stage is running; `stage` says which
  "race-yielded", // lost the read-after-write race; not a claim
  "released", // put back (rate limit or by hand); not a claim
  "handed-off", // given to a person; not a claim
  "finished", // merged or otherwise done; a record, not a claim
  "superseded", // displaced by a take-over; not a claim
]);
export const leaseSchema = z.object({
  version: z.number().int().positive(),
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/),
  issue: z.number().int().positive(),
  host: hostIdentitySchema,
  session: z.string().min(1).max(200),
  run: z.string().min(1).max(200),
  holder: z.enum(["person", "machine"]),
  user: z.string().min(1).max(100),
  claimedAt: z.string().datetime(),
  expiresAt: z.string().datetime().nullable(),
  nonce: z.string().min(8).max(64),
  state: leaseStateSchema,
  stage: z.string().max(40).optional(),
  stageStartedAt: z.string().datetime().optional(),
  /** Set when this claim displaced other leases: `from` is the displaced lease's nonce (and `also` any further ones). */
  takeover: z
    .object({
      from: z.string().min(1).max(64),
      kind: z.enum(["takeover-stale", "take-over"]),
      at: z.string().datetime(),
      fromComment: githubIdSchema.optional(),
      also: z.array(z.string().min(1).max(64)).max(20).optional(),
    })
    .optional(),
  /** Last heartbeat (machine leases). */
  renewedAt: z.string().datetime().optional(),
  /** race-yielded: the nonce of the lease that won. */
  yieldedTo: z.string().min(1).max(64).optional(),
  /** superseded: the nonce of the lease that displaced this one. */
  supersededBy: z.string().min(1).max(64).optional(),
  /** released by a rate limit: when the limit resets, as the agent said (the board shows it). */
  limitResetsAt: z.string().datetime().optional(),
});
export type Lease = z.infer<typeof leaseSchema>;
