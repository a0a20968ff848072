/**
 * Issues: list, create, get, update.
 * https://docs.github.com/rest/issues/issues#list-repository-issues  (pull requests included, with a `pull_request` key)
 * https://docs.github.com/rest/issues/issues#create-an-issue  (labels/assignees silently dropped without push access)
 * https://docs.github.com/rest/issues/issues#get-an-issue
 * https://docs.github.com/rest/issues/issues#update-an-issue
 */
import { z } from "zod";
import { hasRole, requireRepo, requireUser } from "../auth";
import { checkBodyLength, HttpError, ok, parseBody, validationFailed } from "../http";
import { addAssignees, addEvent, addLabels, editIssueBody, getIssue, openIssue, setAssignees, setLabels, setState } from "../issue-ops";
import { isoNow } from "../model";
import type { IssueRec, RepoRec } from "../model";
import { paginate } from "../paginate";
import type { Ctx, Router } from "../router";
import { issueJson } from "../serialize";

const labelList = z.array(z.union([z.string(), z.object({ name: z.string() }).passthrough()]));
const createSchema = z
  .object({
    title: z.union([z.string().min(1), z.number()]),
    body: z.string().nullable().optional(),
    assignee: z.string().nullable().optional(),
    assignees: z.array(z.string()).optional(),
    labels: labelList.optional(),
    milestone: z.union([z.string(), z.number()]).nullable().optional(),
    type: z.string().nullable().optional(),
  })
  .strict();
const updateSchema = z
  .object({
    title: z.union([z.string(), z.number()]).nullable().optional(),
    body: z.string().nullable().optional(),
    state: z.enum(["open", "closed"]).optional(),
    state_reason: z.enum(["completed", "not_planned", "reopened"]).nullable().optional(),
    assignee: z.string().nullable().optional(),
    assignees: z.array(z.string()).optional(),
    labels: labelList.optional(),
    milestone: z.union([z.string(), z.number()]).nullable().optional(),
    type: z.string().nullable().optional(),
  })
  .strict();

export function labelNames(list: z.infer<typeof labelList>): string[] {
  return list.map((l) => (typeof l === "string" ? l : l.name));
}

function oneOf<T extends string>(ctx: Ctx, name: string, allowed: readonly T[], fallback: T): T {
  const raw = ctx.query.get(name);
  if (raw === null || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw validationFailed([{ resource: "Issue", field: name, code: "invalid" }], `Invalid value for \`${name}\``);
  return raw as T;
}

function filterIssues(ctx: Ctx, repo: RepoRec): IssueRec[] {
  const state = oneOf(ctx, "state", ["open", "closed", "all"] as const, "open");
  const sort = oneOf(ctx, "sort", ["created", "updated", "comments"] as const, "created");
  const direction = oneOf(ctx, "direction", ["asc", "desc"] as const, "desc");
  const labels = (ctx.query.get("labels") ?? "")
    .split(",")
    .map((l) => l.trim().toLowerCase())
    .filter(Boolean);
  const assignee = ctx.query.get("assignee");
  const creator = ctx.query.get("creator");
  const sinceRaw = ctx.query.get("since");
  const since = sinceRaw ? Date.parse(sinceRaw) : null;
  if (since !== null && Number.isNaN(since)) throw validationFailed([{ resource: "Issue", field: "since", code: "invalid" }]);
  const labelName = new Map(repo.labels.map((l) => [l.id, l.name.toLowerCase()]));
  const items = repo.issues.filter((i) => {
    if (state !== "all" && i.state !== state) return false;
    if (labels.length) {
      const names = new Set(i.labels.map((id) => labelName.get(id)));
      if (!labels.every((l) => names.has(l))) return false;
    }
    if (assignee === "none" && i.assignees.length) return false;
    if (assignee === "*" && !i.assignees.length) return false;
    if (assignee && assignee !== "none" && assignee !== "*" && !i.assignees.some((a) => a.toLowerCase() === assignee.toLowerCase())) return false;
    if (creator && i.user.toLowerCase() !== creator.toLowerCase()) return false;
    if (since !== null && Date.parse(i.updatedAt) < since) return false;
    return true;
  });
  const key = (i: IssueRec): number =>
    sort === "created" ? i.id : sort === "updated" ? Date.parse(i.updatedAt) * 1e4 + (i.id % 1e4) : i.comments.length * 1e9 + i.id;
  items.sort((a, b) => (direction === "asc" ? key(a) - key(b) : key(b) - key(a)));
  return items;
}

export function registerIssueRoutes(router: Router): void {
  router.add("GET", "/repos/:owner/:repo/issues", (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const { page, headers } = paginate(ctx, filterIssues(ctx, repo));
    return ok(
      page.map((i) => issueJson(state, ctx.app.urls, repo, i)),
      200,
      headers,
    );
  });

  router.add("POST", "/repos/:owner/:repo/issues", (ctx) => {
    const repo = requireRepo(ctx);
    const user = requireUser(ctx);
    const body = parseBody(createSchema, ctx.body, "Issue");
    checkBodyLength(body.body, "Issue");
    const title = String(body.title);
    if (title.length > 256)
      throw validationFailed([{ resource: "Issue", field: "title", code: "custom", message: "title is too long (maximum is 256 characters)" }]);
    const issue = openIssue(ctx.app, repo, { title, body: body.body ?? null, user: user.login });
    if (hasRole(repo, user.login, "write")) {
      addLabels(ctx.app, repo, issue, labelNames(body.labels ?? []), user.login);
      addAssignees(ctx.app, repo, issue, [...(body.assignees ?? []), ...(body.assignee ? [body.assignee] : [])], user.login);
    }
    return ok(issueJson(ctx.app.store.state, ctx.app.urls, repo, issue), 201, {
      location: `${ctx.app.urls.api}/repos/${repo.owner}/${repo.name}/issues/${issue.number}`,
    });
  });

  router.add("GET", "/repos/:owner/:repo/issues/:number", (ctx) => {
    const repo = requireRepo(ctx);
    const issue = getIssue(repo, ctx.params.number ?? "");
    return ok(issueJson(ctx.app.store.state, ctx.app.urls, repo, issue));
  });

  router.add("PATCH", "/repos/:owner/:repo/issues/:number", (ctx) => {
    const repo = requireRepo(ctx);
    const user = requireUser(ctx);
    const issue = getIssue(repo, ctx.params.number ?? "");
    const body = parseBody(updateSchema, ctx.body, "Issue");
    const writer = hasRole(repo, user.login, "write");
    if (!writer && issue.user !== user.login) throw new HttpError(403, "Resource not accessible by personal access token");
    checkBodyLength(body.body, "Issue");
    if (body.title !== undefined && body.title !== null && String(body.title).length === 0)
      throw validationFailed([{ resource: "Issue", field: "title", code: "missing_field" }]);
    const actor = user.login;
    if (body.title !== undefined && body.title !== null && String(body.title) !== issue.title) {
      addEvent(ctx.app, issue, actor, "renamed", { rename: { from: issue.title, to: String(body.title) } });
      issue.title = String(body.title);
    }
    if (body.body !== undefined) editIssueBody(ctx.app, issue, body.body, actor);
    if (body.state) setState(ctx.app, issue, body.state, actor, body.state_reason);
    if (writer && body.labels) setLabels(ctx.app, repo, issue, labelNames(body.labels), actor);
    if (writer && body.assignees) setAssignees(ctx.app, repo, issue, body.assignees, actor);
    else if (writer && body.assignee !== undefined) setAssignees(ctx.app, repo, issue, body.assignee ? [body.assignee] : [], actor);
    issue.updatedAt = isoNow();
    return ok(issueJson(ctx.app.store.state, ctx.app.urls, repo, issue));
  });
}
