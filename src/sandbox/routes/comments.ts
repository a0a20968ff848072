/**
 * Issue comments.
 * https://docs.github.com/rest/issues/comments#list-issue-comments  (ascending by id; `since` filters on updated_at)
 * https://docs.github.com/rest/issues/comments#create-an-issue-comment
 * https://docs.github.com/rest/issues/comments#get-an-issue-comment
 * https://docs.github.com/rest/issues/comments#update-an-issue-comment
 * https://docs.github.com/rest/issues/comments#delete-an-issue-comment
 */
import { z } from "zod";
import { hasRole, requireRepo, requireUser } from "../auth";
import { HttpError, noContent, notFound, ok, parseBody, validationFailed } from "../http";
import { checkCanEditComment, createComment, findComment, getIssue, updateComment } from "../issue-ops";
import type { CommentRec, IssueRec } from "../model";
import { paginate } from "../paginate";
import type { Ctx, Router } from "../router";
import { commentJson } from "../serialize";

const bodySchema = z.object({ body: z.string() }).strict();

function sinceOf(ctx: Ctx): number | null {
  const raw = ctx.query.get("since");
  if (!raw) return null;
  const t = Date.parse(raw);
  if (Number.isNaN(t)) throw validationFailed([{ resource: "IssueComment", field: "since", code: "invalid" }]);
  return t;
}

function commentId(ctx: Ctx): number {
  const id = Number(ctx.params.id);
  if (!Number.isInteger(id) || id <= 0) throw notFound();
  return id;
}

export function registerCommentRoutes(router: Router): void {
  router.add("GET", "/repos/:owner/:repo/issues/comments", (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const since = sinceOf(ctx);
    const all: { issue: IssueRec; c: CommentRec }[] = [];
    for (const issue of repo.issues) for (const c of issue.comments) if (since === null || Date.parse(c.updatedAt) >= since) all.push({ issue, c });
    const byUpdated = ctx.query.get("sort") === "updated";
    const desc = ctx.query.get("direction") === "desc";
    all.sort((a, b) => (byUpdated ? Date.parse(a.c.updatedAt) - Date.parse(b.c.updatedAt) : 0) || a.c.id - b.c.id);
    if (desc) all.reverse();
    const { page, headers } = paginate(ctx, all);
    return ok(
      page.map(({ issue, c }) => commentJson(state, ctx.app.urls, repo, issue, c)),
      200,
      headers,
    );
  });

  router.add("GET", "/repos/:owner/:repo/issues/comments/:id", (ctx) => {
    const repo = requireRepo(ctx);
    const found = findComment(repo, commentId(ctx));
    if (!found) throw notFound();
    return ok(commentJson(ctx.app.store.state, ctx.app.urls, repo, found.issue, found.comment));
  });

  router.add("PATCH", "/repos/:owner/:repo/issues/comments/:id", (ctx) => {
    const repo = requireRepo(ctx);
    const user = requireUser(ctx);
    const found = findComment(repo, commentId(ctx));
    if (!found) throw notFound();
    const body = parseBody(bodySchema, ctx.body, "IssueComment");
    checkCanEditComment(repo, found.comment, user.login);
    updateComment(found.comment, body.body);
    return ok(commentJson(ctx.app.store.state, ctx.app.urls, repo, found.issue, found.comment));
  });

  router.add("DELETE", "/repos/:owner/:repo/issues/comments/:id", (ctx) => {
    const repo = requireRepo(ctx);
    const user = requireUser(ctx);
    const found = findComment(repo, commentId(ctx));
    if (!found) throw notFound();
    checkCanEditComment(repo, found.comment, user.login);
    found.issue.comments = found.issue.comments.filter((c) => c.id !== found.comment.id);
    return noContent();
  });

  router.add("GET", "/repos/:owner/:repo/issues/:number/comments", (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const issue = getIssue(repo, ctx.params.number ?? "");
    const since = sinceOf(ctx);
    const list = issue.comments.filter((c) => since === null || Date.parse(c.updatedAt) >= since).sort((a, b) => a.id - b.id);
    const { page, headers } = paginate(ctx, list);
    return ok(
      page.map((c) => commentJson(state, ctx.app.urls, repo, issue, c)),
      200,
      headers,
    );
  });

  router.add("POST", "/repos/:owner/:repo/issues/:number/comments", (ctx) => {
    const repo = requireRepo(ctx);
    const user = requireUser(ctx);
    const issue = getIssue(repo, ctx.params.number ?? "");
    const body = parseBody(bodySchema, ctx.body, "IssueComment");
    if (!body.body.trim()) throw validationFailed([{ resource: "IssueComment", field: "body", code: "missing_field" }]);
    if (repo.private && !hasRole(repo, user.login, "read")) throw new HttpError(404, "Not Found");
    const c = createComment(ctx.app, issue, body.body, user.login);
    return ok(commentJson(ctx.app.store.state, ctx.app.urls, repo, issue, c), 201);
  });
}
