/**
 * Check runs and commit statuses.
 * https://docs.github.com/rest/checks/runs#create-a-check-run  (GitHub requires a GitHub App; the sandbox accepts any writer's token)
 * https://docs.github.com/rest/checks/runs#update-a-check-run
 * https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference  (latest run per name by default)
 * https://docs.github.com/rest/commits/statuses#create-a-commit-status
 * https://docs.github.com/rest/commits/statuses#get-the-combined-status-for-a-specific-reference  (`pending`, total_count 0 when none)
 */
import { z } from "zod";
import type { App } from "../app";
import { requireRepo, requireUser } from "../auth";
import { HttpError, notFound, ok, parseBody, validationFailed } from "../http";
import { isoNow, queuedCheckRun } from "../model";
import type { CheckRunRec, RepoRec, SandboxState, StatusRec } from "../model";
import { paginate } from "../paginate";
import type { Ctx, Router } from "../router";
import { repoApi, repoJson, userJson } from "../serialize";

const conclusion = z.enum(["action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"]);
const output = z
  .object({ title: z.string().nullable().optional(), summary: z.string().nullable().optional(), text: z.string().nullable().optional() })
  .passthrough();
const createRun = z
  .object({
    name: z.string().min(1),
    head_sha: z.string().regex(/^[0-9a-f]{40}$/),
    details_url: z.string().optional(),
    external_id: z.string().optional(),
    status: z.enum(["queued", "in_progress", "completed"]).optional(),
    started_at: z.string().optional(),
    conclusion: conclusion.optional(),
    completed_at: z.string().optional(),
    output: output.optional(),
  })
  .strict();
const updateRun = createRun.omit({ head_sha: true }).partial().strict();
const createStatus = z
  .object({
    state: z.enum(["error", "failure", "pending", "success"]),
    target_url: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    context: z.string().optional(),
  })
  .strict();

/**
 * The App that wrote a check run, as GitHub's `integration` schema has it (every required field). The
 * sandbox's own CI and a `[bot]` user play Apps; the repository's owner stands for the App's owner.
 */
function appJson(app: App, repo: RepoRec, slug: string): Record<string, unknown> {
  const name = slug.replace(/\[bot\]$/, "");
  return {
    id: 1,
    slug: name,
    node_id: `A_${Buffer.from(`sbx:A:${name}`).toString("base64url")}`,
    owner: userJson(app.store.state, app.urls, repo.owner),
    name,
    description: null,
    external_url: `${app.urls.api}/apps/${name}`,
    html_url: `${app.urls.api}/apps/${name}`,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    permissions: { checks: "write", metadata: "read" },
    events: [],
  };
}

function checkRunJson(app: App, repo: RepoRec, r: CheckRunRec): Record<string, unknown> {
  const url = `${repoApi(app.urls, repo)}/check-runs/${r.id}`;
  return {
    id: r.id,
    node_id: `CR_${Buffer.from(`sbx:CR:${r.id}`).toString("base64url")}`,
    head_sha: r.headSha,
    external_id: r.externalId,
    url,
    html_url: `${app.urls.api}/${repo.owner}/${repo.name}/runs/${r.id}`,
    details_url: r.detailsUrl,
    status: r.status,
    conclusion: r.conclusion,
    started_at: r.startedAt,
    completed_at: r.completedAt,
    output: { ...r.output, annotations_count: 0, annotations_url: `${url}/annotations` },
    name: r.name,
    check_suite: { id: r.id },
    app: appJson(app, repo, r.app),
    pull_requests: [],
  };
}

/** A sha, branch or tag -> commit sha, or 404 / 422 as GitHub answers. */
export async function resolveRef(app: App, repo: RepoRec, ref: string): Promise<string> {
  const gitDir = app.gitDir(repo);
  if (/^[0-9a-f]{40}$/.test(ref)) {
    if (await app.commits.commit(gitDir, ref)) return ref;
    throw validationFailed([{ resource: "Commit", field: "sha", code: "invalid" }], `No commit found for SHA: ${ref}`);
  }
  const clean = ref.replace(/^refs\//, "");
  for (const candidate of [`refs/${clean}`, `refs/heads/${clean}`, `refs/tags/${clean}`]) {
    const sha = await app.commits.commit(gitDir, candidate);
    if (sha) return sha;
  }
  throw validationFailed([{ resource: "Commit", field: "ref", code: "invalid" }], `No commit found for SHA: ${ref}`);
}

function applyRunFields(r: CheckRunRec, body: z.infer<typeof updateRun>): void {
  if (body.name !== undefined) r.name = body.name;
  if (body.details_url !== undefined) r.detailsUrl = body.details_url;
  if (body.external_id !== undefined) r.externalId = body.external_id;
  if (body.output)
    r.output = { title: body.output.title ?? r.output.title, summary: body.output.summary ?? r.output.summary, text: body.output.text ?? r.output.text };
  if (body.started_at !== undefined) r.startedAt = body.started_at;
  if (body.status !== undefined) r.status = body.status;
  // Giving a conclusion completes the run, as on GitHub.
  if (body.conclusion !== undefined) {
    r.conclusion = body.conclusion;
    r.status = "completed";
    r.completedAt = body.completed_at ?? isoNow();
  }
  if (r.status === "in_progress" && !r.startedAt) r.startedAt = isoNow();
}

function latestStatuses(repo: RepoRec, sha: string): StatusRec[] {
  const latest = new Map<string, StatusRec>();
  for (const s of repo.statuses) if (s.sha === sha) latest.set(s.context, s);
  return [...latest.values()].sort((a, b) => b.id - a.id);
}

function statusJson(state: SandboxState, app: App, s: StatusRec): Record<string, unknown> {
  return {
    id: s.id,
    node_id: `SC_${s.id}`,
    url: "",
    state: s.state,
    description: s.description,
    target_url: s.targetUrl,
    context: s.context,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    creator: userJson(state, app.urls, s.creator),
  };
}

function runById(ctx: Ctx, repo: RepoRec): CheckRunRec {
  const r = repo.checkRuns.find((x) => x.id === Number(ctx.params.id));
  if (!r) throw notFound();
  return r;
}

/**
 * https://docs.github.com/rest/checks/runs#create-a-check-run: only a GitHub App writes check runs;
 * a person's token gets 403. Here an App is a user whose login ends in "[bot]".
 */
function requireApp(ctx: Ctx): void {
  if (!requireUser(ctx).login.endsWith("[bot]")) throw new HttpError(403, "You must authenticate via a GitHub App.");
}

export function registerCheckRoutes(router: Router): void {
  router.add("POST", "/repos/:owner/:repo/check-runs", async (ctx) => {
    const repo = requireRepo(ctx, "write");
    requireApp(ctx);
    const body = parseBody(createRun, ctx.body, "CheckRun");
    await resolveRef(ctx.app, repo, body.head_sha);
    if (body.status === "completed" && !body.conclusion) throw validationFailed([{ resource: "CheckRun", field: "conclusion", code: "missing_field" }]);
    const r = queuedCheckRun(ctx.app.store.nextId(), body.name, body.head_sha, requireUser(ctx).login);
    applyRunFields(r, body);
    repo.checkRuns.push(r);
    return ok(checkRunJson(ctx.app, repo, r), 201);
  });

  router.add("PATCH", "/repos/:owner/:repo/check-runs/:id", (ctx) => {
    const repo = requireRepo(ctx, "write");
    requireApp(ctx);
    const r = runById(ctx, repo);
    const body = parseBody(updateRun, ctx.body, "CheckRun");
    if (body.status === "completed" && !body.conclusion && !r.conclusion)
      throw validationFailed([{ resource: "CheckRun", field: "conclusion", code: "missing_field" }]);
    applyRunFields(r, body);
    return ok(checkRunJson(ctx.app, repo, r));
  });

  router.add("GET", "/repos/:owner/:repo/check-runs/:id", (ctx) => {
    const repo = requireRepo(ctx);
    return ok(checkRunJson(ctx.app, repo, runById(ctx, repo)));
  });

  router.add("GET", "/repos/:owner/:repo/commits/*ref/check-runs", async (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const sha = await resolveRef(ctx.app, repo, ctx.params.ref ?? "");
    const name = ctx.query.get("check_name");
    const wantStatus = ctx.query.get("status");
    let runs = repo.checkRuns.filter((r) => r.headSha === sha && (!name || r.name === name) && (!wantStatus || r.status === wantStatus));
    if (ctx.query.get("filter") !== "all") {
      const latest = new Map<string, CheckRunRec>();
      for (const r of runs) latest.set(r.name, r);
      runs = [...latest.values()];
    }
    runs.sort((a, b) => b.id - a.id);
    const { page, headers } = paginate(ctx, runs);
    return ok({ total_count: runs.length, check_runs: page.map((r) => checkRunJson(ctx.app, repo, r)) }, 200, headers);
  });

  router.add("POST", "/repos/:owner/:repo/statuses/:sha", async (ctx) => {
    const repo = requireRepo(ctx, "write");
    const body = parseBody(createStatus, ctx.body, "Status");
    const sha = await resolveRef(ctx.app, repo, ctx.params.sha ?? "");
    const now = isoNow();
    const s: StatusRec = {
      id: ctx.app.store.nextId(),
      sha,
      state: body.state,
      context: body.context ?? "default",
      description: body.description ?? null,
      targetUrl: body.target_url ?? null,
      creator: requireUser(ctx).login,
      createdAt: now,
      updatedAt: now,
    };
    repo.statuses.push(s);
    return ok(statusJson(ctx.app.store.state, ctx.app, s), 201);
  });

  router.add("GET", "/repos/:owner/:repo/commits/*ref/statuses", async (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const sha = await resolveRef(ctx.app, repo, ctx.params.ref ?? "");
    const list = repo.statuses.filter((s) => s.sha === sha).sort((a, b) => b.id - a.id);
    const { page, headers } = paginate(ctx, list);
    return ok(
      page.map((s) => statusJson(state, ctx.app, s)),
      200,
      headers,
    );
  });

  router.add("GET", "/repos/:owner/:repo/commits/*ref/status", async (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const sha = await resolveRef(ctx.app, repo, ctx.params.ref ?? "");
    const statuses = latestStatuses(repo, sha);
    const combined = statuses.some((s) => s.state === "error" || s.state === "failure")
      ? "failure"
      : statuses.length === 0 || statuses.some((s) => s.state === "pending")
        ? "pending"
        : "success";
    return ok({
      state: combined,
      statuses: statuses.map((s) => statusJson(state, ctx.app, s)),
      sha,
      total_count: statuses.length,
      repository: repoJson(state, ctx.app.urls, repo, null, ctx.app.gitUrl(repo.owner, repo.name)),
      commit_url: `${repoApi(ctx.app.urls, repo)}/commits/${sha}`,
      url: `${repoApi(ctx.app.urls, repo)}/commits/${sha}/status`,
    });
  });
}
