/**
 * zod schemas for every GitHub response the Tracker adapter reads. Only the fields we use are
 * declared (extra fields pass through untouched); a response that lacks one is an error naming the
 * request, never a silent guess.
 */
import { z } from "zod";
import { Failure } from "../../core/errors";
import { githubIdSchema, type GithubId } from "../../core/schemas/github-id";

const iso = z.string().datetime({ offset: true });
const login = z.object({ login: z.string().min(1) });

// ---- REST ----

export const restUser = z.object({ login: z.string().min(1), node_id: z.string().optional() });
/** The merge flags are optional: GitHub may leave them out for a token that cannot administer the repository. */
export const restRepo = z.object({
  default_branch: z.string().min(1),
  allow_merge_commit: z.boolean().optional(),
  allow_squash_merge: z.boolean().optional(),
  allow_rebase_merge: z.boolean().optional(),
});
/** GET /repos/{owner}/{repo}'s `permissions`: the caller's own access (absent for some tokens). */
export const restRepoAccess = z.object({
  permissions: z
    .object({ admin: z.boolean(), maintain: z.boolean().optional(), push: z.boolean(), triage: z.boolean().optional(), pull: z.boolean() })
    .optional(),
});
export const restPermission = z.object({
  permission: z.enum(["admin", "write", "read", "none", "maintain", "triage"]),
  role_name: z.string().optional(),
});

export const restIssue = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullable().optional(),
  state: z.enum(["open", "closed"]),
  html_url: z.string(),
  node_id: z.string().optional(),
  labels: z.array(z.union([z.string(), z.object({ name: z.string() })])),
  assignees: z.array(login).nullable().optional(),
  pull_request: z.unknown().optional(),
});

export const restComment = z.object({
  id: githubIdSchema,
  node_id: z.string().optional(),
  body: z.string().nullable().optional(),
  html_url: z.string(),
  user: login.nullable(),
  created_at: iso,
  updated_at: iso,
});

export const restLabel = z.object({ name: z.string(), node_id: z.string().optional() });

export const restEvent = z.object({
  event: z.string(),
  actor: login.nullable().optional(),
  label: z.object({ name: z.string() }).nullable().optional(),
});

export const restPull = z.object({
  number: z.number().int().positive(),
  html_url: z.string(),
  node_id: z.string().optional(),
  state: z.enum(["open", "closed"]),
  merged: z.boolean().optional(),
  merged_at: z.string().nullable().optional(),
  draft: z.boolean().optional(),
  head: z.object({ ref: z.string(), sha: z.string() }),
  base: z.object({ ref: z.string() }),
  title: z.string(),
  body: z.string().nullable().optional(),
  mergeable: z.boolean().nullable().optional(),
});

export const restMerge = z.object({ merged: z.boolean(), sha: z.string().nullable().optional(), message: z.string().optional() });

export const restCheckRuns = z.object({
  total_count: z.number().int().min(0),
  check_runs: z.array(z.object({ name: z.string(), status: z.string(), conclusion: z.string().nullable().optional() })),
});

export const restCombinedStatus = z.object({
  state: z.string(),
  total_count: z.number().int().min(0),
  statuses: z.array(z.object({ context: z.string(), state: z.string() })),
});

// ---- GraphQL ----

/**
 * The comment fields every claim read and write selects. `fullDatabaseId` (a BigInt string), never
 * `databaseId`: that is a 32-bit `Int`, and github.com's comment ids are past 2^31 (ADR 0130).
 */
export const GQL_COMMENT_FIELDS = "id fullDatabaseId url body createdAt updatedAt author { login }";

export const gqlComment = z.object({
  id: z.string().min(1),
  fullDatabaseId: githubIdSchema,
  url: z.string().min(1),
  body: z.string(),
  createdAt: iso,
  updatedAt: iso,
  author: login.nullable(),
});
export type GqlComment = z.infer<typeof gqlComment>;

const pageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });
const idName = z.object({ id: z.string().min(1), name: z.string() });

const userContentEdits = z
  .object({ nodes: z.array(z.object({ editedAt: z.string(), editor: z.object({ login: z.string() }).nullable() }).nullable()) })
  .nullable();

/** The issue's own fields, as both the thread read and the claim write's read-back select them. */
export const gqlIssueCore = z.object({
  id: z.string().min(1),
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string(),
  state: z.enum(["OPEN", "CLOSED"]),
  url: z.string().min(1),
  labels: z.object({ nodes: z.array(idName.nullable()) }).nullable(),
  assignees: z.object({ nodes: z.array(z.object({ id: z.string(), login: z.string() }).nullable()) }),
});
export type GqlIssueCore = z.infer<typeof gqlIssueCore>;

export const gqlThread = z.object({
  viewer: z.object({ login: z.string().min(1), id: z.string().min(1) }),
  repository: z
    .object({
      viewerPermission: z.enum(["ADMIN", "MAINTAIN", "WRITE", "TRIAGE", "READ"]).nullable().optional(),
      labels: z
        .object({ nodes: z.array(idName.nullable()) })
        .nullable()
        .optional(),
      issue: gqlIssueCore
        .extend({
          comments: z.object({ pageInfo, nodes: z.array(gqlComment.nullable()) }),
          timelineItems: z
            .object({
              nodes: z.array(
                z.object({ createdAt: z.string().optional(), actor: login.nullable().optional(), label: z.object({ name: z.string() }).optional() }).nullable(),
              ),
            })
            .optional(),
          userContentEdits: userContentEdits.optional(),
        })
        .nullable(),
    })
    .nullable(),
});

export const gqlCommentsPage = z.object({
  repository: z.object({ issue: z.object({ comments: z.object({ pageInfo, nodes: z.array(gqlComment.nullable()) }) }).nullable() }).nullable(),
});

export const gqlIssueId = z.object({ repository: z.object({ issue: z.object({ id: z.string().min(1) }).nullable() }).nullable() });
export const gqlLabelIds = z.object({ repository: z.record(z.string(), idName.nullable()).nullable() });
export const gqlUserId = z.object({ user: z.object({ id: z.string().min(1), login: z.string() }).nullable() });
export const gqlBlockers = z.object({
  repository: z
    .object({ issue: z.object({ blockedBy: z.object({ nodes: z.array(z.object({ number: z.number().int(), state: z.string() }).nullable()) }) }).nullable() })
    .nullable(),
});

export const gqlBodyHistory = z.object({
  repository: z
    .object({
      issue: z
        .object({
          userContentEdits,
          timelineItems: z.object({
            nodes: z.array(z.object({ createdAt: z.string().optional(), label: z.object({ name: z.string() }).optional() }).nullable()),
          }),
        })
        .nullable(),
    })
    .nullable(),
});

/** Parses `value` with `schema`, or fails naming what was being read. */
export function check<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new Failure("github", `Unexpected response from GitHub for ${what}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
}

/**
 * A REST path parameter from an id. Octokit's types say `number`, but the URL is the same digits;
 * passing the string keeps an id past 2^53 exact instead of rounding it (ADR 0130).
 */
export function restPathId(id: GithubId): number {
  return id as unknown as number;
}
