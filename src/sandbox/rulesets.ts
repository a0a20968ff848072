/**
 * Repository rulesets and secret scanning push protection: refusals github.com makes that plain git
 * never does (ADR 0241). Modelled from GitHub's documentation and OpenAPI description:
 * - rulesets: `POST /repos/{owner}/{repo}/rulesets` ("Create a repository ruleset"), branch target,
 *   `conditions.ref_name.include/exclude` (`~ALL`, `~DEFAULT_BRANCH`, fnmatch patterns), rules
 *   `non_fast_forward` ("Block force pushes"), `deletion`, `update`, `pull_request`
 *   (`required_approving_review_count`), `required_status_checks` and `merge_queue` ("Require merge
 *   queue": the merge API is refused, "Changes must be made through the merge queue")
 *   (https://docs.github.com/rest/repos/rules#create-a-repository-ruleset,
 *   https://docs.github.com/repositories/configuring-branches-and-merges-in-your-repository/managing-rulesets/available-rules-for-rulesets);
 * - a push that breaks a rule is refused with "GH013: Repository rule violations found for <ref>"
 *   and one line per rule (push-rules.ts runs the check);
 * - a merge that a rule forbids is refused 405 with the protected branch's words (pull-ops.ts);
 * - push protection: `PATCH /repos/{owner}/{repo}` with
 *   `security_and_analysis.secret_scanning_push_protection.status = "enabled"`; a push whose new
 *   commits add a GitHub personal access token is refused ("GH013 … Push cannot contain secrets").
 * Rulesets target branches only: refs outside refs/heads (the State records) are never matched.
 */
import { z } from "zod";
import { requireRepo } from "./auth";
import { HttpError, noContent, notFound, ok, parseBody } from "./http";
import { isoNow } from "./model";
import type { RepoRec, RulesetRec } from "./model";
import type { Router } from "./router";

const ruleSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("non_fast_forward") }).strict(),
  z.object({ type: z.literal("deletion") }).strict(),
  z.object({ type: z.literal("update"), parameters: z.object({ update_allows_fetch_and_merge: z.boolean() }).partial().optional() }).strict(),
  z
    .object({ type: z.literal("pull_request"), parameters: z.object({ required_approving_review_count: z.number().int().min(0).max(10) }).passthrough() })
    .strict(),
  z.object({ type: z.literal("merge_queue"), parameters: z.object({ merge_method: z.enum(["MERGE", "SQUASH", "REBASE"]) }).passthrough() }).strict(),
  z
    .object({
      type: z.literal("required_status_checks"),
      parameters: z
        .object({
          required_status_checks: z.array(z.object({ context: z.string().min(1).max(200), integration_id: z.number().int().optional() }).strict()).min(1),
        })
        .passthrough(),
    })
    .strict(),
]);

const createSchema = z
  .object({
    name: z.string().min(1).max(100),
    target: z.literal("branch").optional(),
    enforcement: z.literal("active"),
    conditions: z
      .object({ ref_name: z.object({ include: z.array(z.string().min(1).max(200)).max(50), exclude: z.array(z.string().min(1).max(200)).max(50) }).strict() })
      .strict(),
    rules: z.array(ruleSchema).min(1).max(20),
  })
  .strict();

/** The ruleset as GitHub's "repository-ruleset" answer shows it. */
function rulesetJson(repo: RepoRec, r: RulesetRec): Record<string, unknown> {
  const rules: Record<string, unknown>[] = [];
  if (r.nonFastForward) rules.push({ type: "non_fast_forward" });
  if (r.deletion) rules.push({ type: "deletion" });
  if (r.update) rules.push({ type: "update" });
  if (r.pullRequest)
    rules.push({
      type: "pull_request",
      parameters: {
        required_approving_review_count: r.pullRequest.approvals,
        dismiss_stale_reviews_on_push: false,
        require_code_owner_review: false,
        require_last_push_approval: false,
        required_review_thread_resolution: false,
      },
    });
  if (r.requiredChecks.length)
    rules.push({
      type: "required_status_checks",
      parameters: { required_status_checks: r.requiredChecks.map((context) => ({ context })), strict_required_status_checks_policy: false },
    });
  if (r.mergeQueue) rules.push({ type: "merge_queue", parameters: r.mergeQueue });
  return {
    id: r.id,
    name: r.name,
    target: "branch",
    source_type: "Repository",
    source: `${repo.owner}/${repo.name}`,
    enforcement: "active",
    bypass_actors: [],
    conditions: { ref_name: { include: r.include, exclude: r.exclude } },
    rules,
    node_id: `RRS_${r.id}`,
    created_at: r.createdAt,
    updated_at: r.createdAt,
  };
}

/** A ruleset's branch pattern as a regex source: `~ALL`, `~DEFAULT_BRANCH`, fnmatch (`*` within a segment, `**` across). */
function patternSource(repo: RepoRec, pattern: string): string {
  if (pattern === "~ALL") return ".*";
  const glob = pattern === "~DEFAULT_BRANCH" ? repo.defaultBranch : pattern.replace(/^refs\/heads\//, "");
  const escaped = glob.replace(/[.+^${}()|[\]\\?]/g, "\\$&");
  if (pattern === "~DEFAULT_BRANCH") return escaped.replace(/\*/g, "\\*");
  return escaped
    .split("**")
    .map((part) => part.replace(/\*/g, "[^/]*"))
    .join(".*");
}

function anyOf(repo: RepoRec, patterns: string[]): string {
  return patterns.length ? patterns.map((p) => `^(${patternSource(repo, p)})$`).join("|") : "^$";
}

function targets(repo: RepoRec, r: RulesetRec, branch: string): boolean {
  return new RegExp(anyOf(repo, r.include)).test(branch) && !(r.exclude.length && new RegExp(anyOf(repo, r.exclude)).test(branch));
}

/** The rulesets that apply to `branch` (a name, not a ref). */
function rulesFor(repo: RepoRec, branch: string): RulesetRec[] {
  return (repo.rulesets ?? []).filter((r) => targets(repo, r, branch));
}

/**
 * Why a merge into `base` is refused, in the protected branch's words, or null. `passed` are the
 * check and status names that succeeded on the head.
 */
export function mergeViolation(repo: RepoRec, base: string, passed: Set<string>): string | null {
  for (const r of rulesFor(repo, base)) {
    // The merge API is closed to a queued base whatever else holds (pascalgn/automerge-action#235 quotes GitHub's words).
    if (r.mergeQueue) return "Changes must be made through the merge queue";
    if (r.pullRequest && r.pullRequest.approvals > 0) {
      const n = r.pullRequest.approvals;
      return `At least ${n} approving review${n === 1 ? " is" : "s are"} required by reviewers with write access.`;
    }
    const missing = r.requiredChecks.find((c) => !passed.has(c));
    if (missing) return `Required status check "${missing}" is expected.`;
  }
  return null;
}

/**
 * What the pre-receive hook checks (push-rules.ts), one line per rule:
 * `<rule>`, `<ruleset name>`, `<branches it targets>`, `<branches it excludes>`, tab-separated, the
 * branches as `grep -E` patterns.
 */
export function hookRules(repo: RepoRec): string {
  const lines: string[] = [];
  for (const r of repo.rulesets ?? []) {
    const where = [r.name.replace(/\s/g, " "), anyOf(repo, r.include), anyOf(repo, r.exclude)].join("\t");
    if (r.nonFastForward) lines.push(`non_fast_forward\t${where}`);
    if (r.deletion) lines.push(`deletion\t${where}`);
    if (r.update) lines.push(`update\t${where}`);
    if (r.pullRequest) lines.push(`pull_request\t${where}`);
  }
  return lines.join("\n");
}

export function registerRulesetRoutes(router: Router): void {
  router.add("GET", "/repos/:owner/:repo/rulesets", (ctx) => {
    const repo = requireRepo(ctx, "admin");
    return ok((repo.rulesets ?? []).map((r) => rulesetJson(repo, r)));
  });

  router.add("POST", "/repos/:owner/:repo/rulesets", (ctx) => {
    const repo = requireRepo(ctx, "admin");
    const body = parseBody(createSchema, ctx.body, "Ruleset");
    if ((repo.rulesets ?? []).some((r) => r.name === body.name)) throw new HttpError(422, "Validation Failed: Name must be unique");
    const rec: RulesetRec = {
      id: ctx.app.store.nextId(),
      name: body.name,
      include: body.conditions.ref_name.include,
      exclude: body.conditions.ref_name.exclude,
      nonFastForward: body.rules.some((r) => r.type === "non_fast_forward"),
      deletion: body.rules.some((r) => r.type === "deletion"),
      update: body.rules.some((r) => r.type === "update"),
      pullRequest: null,
      requiredChecks: [],
      mergeQueue: null,
      createdAt: isoNow(),
    };
    for (const rule of body.rules) {
      if (rule.type === "pull_request") rec.pullRequest = { approvals: rule.parameters.required_approving_review_count };
      if (rule.type === "merge_queue") rec.mergeQueue = { ...rule.parameters };
      if (rule.type === "required_status_checks") rec.requiredChecks = rule.parameters.required_status_checks.map((c) => c.context);
    }
    repo.rulesets = [...(repo.rulesets ?? []), rec];
    return { status: 201, body: rulesetJson(repo, rec) };
  });

  router.add("DELETE", "/repos/:owner/:repo/rulesets/:id", (ctx) => {
    const repo = requireRepo(ctx, "admin");
    const before = repo.rulesets ?? [];
    repo.rulesets = before.filter((r) => String(r.id) !== ctx.params.id);
    if (repo.rulesets.length === before.length) throw notFound();
    return noContent();
  });
}
