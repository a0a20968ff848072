/**
 * Pull requests.
 * https://docs.github.com/rest/pulls/pulls#create-a-pull-request
 * https://docs.github.com/rest/pulls/pulls#list-pull-requests  (head as "owner:branch")
 * https://docs.github.com/rest/pulls/pulls#get-a-pull-request  (mergeable is null while GitHub computes it)
 * https://docs.github.com/rest/pulls/pulls#update-a-pull-request
 * https://docs.github.com/rest/pulls/pulls#merge-a-pull-request  (405 not mergeable, 409 head moved)
 */
import { z } from "zod";
import { hasRole, requireRepo, requireUser } from "../auth";
import { nothingAhead } from "../head-on-base";
import { checkBodyLength, HttpError, noContent, notFound, ok, parseBody, validationFailed } from "../http";
import { addEvent, getIssue, openIssue, setState } from "../issue-ops";
import { isoNow } from "../model";
import type { IssueRec, RepoRec } from "../model";
import { paginate } from "../paginate";
import { computeMergeable, mergePull } from "../pull-ops";
import type { Ctx, Router } from "../router";
import { pullJson } from "../pull-json";

const createSchema = z
  .object({
    title: z.string().min(1).optional(),
    head: z.string().min(1),
    head_repo: z.string().optional(),
    base: z.string().min(1),
    body: z.string().nullable().optional(),
    draft: z.boolean().optional(),
    maintainer_can_modify: z.boolean().optional(),
    issue: z.number().int().optional(),
  })
  .strict();
const updateSchema = z
  .object({
    title: z.string().optional(),
    body: z.string().nullable().optional(),
    state: z.enum(["open", "closed"]).optional(),
    base: z.string().optional(),
    maintainer_can_modify: z.boolean().optional(),
  })
  .strict();
const mergeSchema = z
  .object({
    commit_title: z.string().optional(),
    commit_message: z.string().optional(),
    sha: z.string().optional(),
    merge_method: z.enum(["merge", "squash", "rebase"]).optional(),
  })
  .strict();

function branchOf(repo: RepoRec, head: string): string {
  const colon = head.indexOf(":");
  if (colon < 0) return head;
  if (head.slice(0, colon).toLowerCase() !== repo.owner.toLowerCase()) {
    throw validationFailed([{ resource: "PullRequest", field: "head", code: "invalid" }]);
  }
  return head.slice(colon + 1);
}

function getPull(repo: RepoRec, number: string | undefined): IssueRec {
  const issue = getIssue(repo, number ?? "");
  if (!issue.pr) throw notFound();
  return issue;
}

async function baseShaOf(ctx: Ctx, repo: RepoRec, issue: IssueRec): Promise<string | null> {
  return issue.pr ? ctx.app.commits.commit(ctx.app.gitDir(repo), `refs/heads/${issue.pr.base}`) : null;
}

export function registerPullRoutes(router: Router): void {
  router.add("GET", "/repos/:owner/:repo/pulls", async (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const wanted = ctx.query.get("state") ?? "open";
    if (!["open", "closed", "all"].includes(wanted)) throw validationFailed([{ resource: "PullRequest", field: "state", code: "invalid" }]);
    const head = ctx.query.get("head");
    const headBranch = head ? (head.includes(":") ? head.slice(head.indexOf(":") + 1) : head) : null;
    const headOwner = head?.includes(":") ? head.slice(0, head.indexOf(":")).toLowerCase() : null;
    const base = ctx.query.get("base");
    const list = repo.issues.filter((i) => {
      if (!i.pr) return false;
      if (wanted !== "all" && i.state !== wanted) return false;
      if (headBranch && (i.pr.head !== headBranch || (headOwner && headOwner !== repo.owner.toLowerCase()))) return false;
      if (base && i.pr.base !== base) return false;
      return true;
    });
    const desc = ctx.query.get("direction") !== "asc";
    list.sort((a, b) => (desc ? b.id - a.id : a.id - b.id));
    const { page, headers } = paginate(ctx, list);
    const body = [];
    for (const i of page) body.push(pullJson(state, ctx.app, repo, i, await baseShaOf(ctx, repo, i), false));
    return ok(body, 200, headers);
  });

  router.add("POST", "/repos/:owner/:repo/pulls", async (ctx) => {
    const repo = requireRepo(ctx);
    const user = requireUser(ctx);
    const body = parseBody(createSchema, ctx.body, "PullRequest");
    if (body.issue !== undefined)
      throw validationFailed([{ resource: "PullRequest", field: "issue", code: "invalid", message: "converting issues is not supported by the sandbox" }]);
    if (!body.title) throw validationFailed([{ resource: "PullRequest", field: "title", code: "missing_field" }]);
    checkBodyLength(body.body, "PullRequest");
    const head = branchOf(repo, body.head);
    const gitDir = ctx.app.gitDir(repo);
    const headSha = await ctx.app.commits.commit(gitDir, `refs/heads/${head}`);
    if (!headSha) throw validationFailed([{ resource: "PullRequest", field: "head", code: "invalid" }]);
    const baseSha = await ctx.app.commits.commit(gitDir, `refs/heads/${body.base}`);
    if (!baseSha) throw validationFailed([{ resource: "PullRequest", field: "base", code: "invalid" }]);
    if (await nothingAhead(ctx.app, gitDir, baseSha, headSha))
      throw validationFailed([{ resource: "PullRequest", code: "custom", message: `No commits between ${body.base} and ${head}` }]);
    const existing = repo.issues.find((i) => i.pr && i.state === "open" && i.pr.head === head && i.pr.base === body.base);
    if (existing) throw validationFailed([{ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${repo.owner}:${head}.` }]);
    const issue = openIssue(ctx.app, repo, {
      title: body.title,
      body: body.body ?? null,
      user: user.login,
      pr: { head, headSha, base: body.base, draft: body.draft ?? false, merged: false, mergedAt: null, mergedBy: null, mergeCommitSha: null },
    });
    await ctx.app.refs.keepPullHead(gitDir, issue.number, headSha);
    // Opening a PR runs CI on its head, as a `pull_request: opened` workflow would.
    ctx.app.onHeadChanged(repo, headSha, head);
    return ok(pullJson(ctx.app.store.state, ctx.app, repo, issue, baseSha, true), 201, {
      location: `${ctx.app.urls.api}/repos/${repo.owner}/${repo.name}/pulls/${issue.number}`,
    });
  });

  router.add("GET", "/repos/:owner/:repo/pulls/:number", async (ctx) => {
    const repo = requireRepo(ctx);
    const issue = getPull(repo, ctx.params.number);
    const pr = issue.pr;
    const baseSha = await baseShaOf(ctx, repo, issue);
    if (pr && issue.state === "open" && !(pr.mergeable && pr.mergeable.headSha === pr.headSha && pr.mergeable.baseSha === baseSha)) {
      // GitHub answers `mergeable: null` and computes in the background; ask again for the value.
      ctx.app.track(computeMergeable(ctx.app, repo, pr).then(() => ctx.app.store.changed()));
    }
    return ok(pullJson(ctx.app.store.state, ctx.app, repo, issue, baseSha, true));
  });

  router.add("PATCH", "/repos/:owner/:repo/pulls/:number", async (ctx) => {
    const repo = requireRepo(ctx);
    const user = requireUser(ctx);
    const issue = getPull(repo, ctx.params.number);
    const body = parseBody(updateSchema, ctx.body, "PullRequest");
    if (!hasRole(repo, user.login, "write") && issue.user !== user.login) throw new HttpError(403, "Resource not accessible by personal access token");
    checkBodyLength(body.body, "PullRequest");
    const pr = issue.pr;
    if (!pr) throw notFound();
    if (body.base !== undefined && !(await ctx.app.commits.commit(ctx.app.gitDir(repo), `refs/heads/${body.base}`)))
      throw validationFailed([{ resource: "PullRequest", field: "base", code: "invalid" }]);
    if (body.state === "open" && pr.merged)
      throw validationFailed([
        { resource: "PullRequest", field: "state", code: "custom", message: "state cannot be changed. The pull request is already merged." },
      ]);
    if (body.title !== undefined && body.title !== issue.title) {
      addEvent(ctx.app, issue, user.login, "renamed", { rename: { from: issue.title, to: body.title } });
      issue.title = body.title;
    }
    if (body.body !== undefined) issue.body = body.body;
    if (body.base !== undefined) pr.base = body.base;
    if (body.state) setState(ctx.app, issue, body.state, user.login);
    issue.updatedAt = isoNow();
    return ok(pullJson(ctx.app.store.state, ctx.app, repo, issue, await baseShaOf(ctx, repo, issue), true));
  });

  router.add("GET", "/repos/:owner/:repo/pulls/:number/merge", (ctx) => {
    const repo = requireRepo(ctx);
    const issue = getPull(repo, ctx.params.number);
    if (!issue.pr?.merged) throw notFound();
    return noContent();
  });

  router.add("PUT", "/repos/:owner/:repo/pulls/:number/merge", async (ctx) => {
    const repo = requireRepo(ctx, "write");
    const user = requireUser(ctx);
    const issue = getPull(repo, ctx.params.number);
    const body = parseBody(mergeSchema, ctx.body, "PullRequest");
    const { sha } = await mergePull(
      ctx.app,
      repo,
      issue,
      { sha: body.sha, method: body.merge_method ?? "merge", title: body.commit_title, message: body.commit_message },
      user.login,
    );
    return ok({ sha, merged: true, message: "Pull Request successfully merged" });
  });
}
