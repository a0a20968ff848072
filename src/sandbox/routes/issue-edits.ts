/**
 * Labels and assignees on one issue, and issue dependencies.
 * https://docs.github.com/rest/issues/labels#add-labels-to-an-issue
 * https://docs.github.com/rest/issues/labels#set-labels-for-an-issue
 * https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue  (404 "Label does not exist")
 * https://docs.github.com/rest/issues/assignees#add-assignees-to-an-issue  (201; users without push access are silently skipped)
 * https://docs.github.com/rest/issues/assignees#remove-assignees-from-an-issue
 * https://docs.github.com/rest/issues/issue-dependencies
 */
import { z } from "zod";
import { requireRepo, requireUser } from "../auth";
import { HttpError, noContent, ok, parseBody, validationFailed } from "../http";
import { addAssignees, addLabels, getIssue, removeAssignees, removeLabel, setLabels } from "../issue-ops";
import type { IssueRec, RepoRec } from "../model";
import { paginate } from "../paginate";
import type { Ctx, Router } from "../router";
import { findIssueById, issueJson, labelJson } from "../serialize";
import { labelNames } from "./issues";

const labelItems = z.array(z.union([z.string(), z.object({ name: z.string() }).strict()]));
const labelsBody = z.union([z.object({ labels: labelItems }).strict(), labelItems]);
const assigneesBody = z.object({ assignees: z.array(z.string()).optional() }).strict();
const dependencyBody = z.object({ issue_id: z.number().int() }).strict();

function namesFrom(body: unknown): string[] {
  const parsed = parseBody(labelsBody, body, "Label");
  return labelNames(Array.isArray(parsed) ? parsed : parsed.labels);
}

function labelsOf(ctx: Ctx, repo: RepoRec, issue: IssueRec): unknown[] {
  return issue.labels.map((id) => repo.labels.find((l) => l.id === id)).flatMap((l) => (l ? [labelJson(ctx.app.urls, repo, l)] : []));
}

export function registerIssueEditRoutes(router: Router): void {
  router.add("GET", "/repos/:owner/:repo/issues/:number/labels", (ctx) => {
    const repo = requireRepo(ctx);
    const issue = getIssue(repo, ctx.params.number ?? "");
    const { page, headers } = paginate(ctx, labelsOf(ctx, repo, issue));
    return ok(page, 200, headers);
  });

  router.add("POST", "/repos/:owner/:repo/issues/:number/labels", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const issue = getIssue(repo, ctx.params.number ?? "");
    const names = namesFrom(ctx.body);
    if (names.length === 0) throw validationFailed([{ resource: "Label", field: "labels", code: "missing_field" }], "Invalid request.\n\nNo labels given.");
    addLabels(ctx.app, repo, issue, names, requireUser(ctx).login);
    return ok(labelsOf(ctx, repo, issue));
  });

  router.add("PUT", "/repos/:owner/:repo/issues/:number/labels", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const issue = getIssue(repo, ctx.params.number ?? "");
    setLabels(ctx.app, repo, issue, namesFrom(ctx.body), requireUser(ctx).login);
    return ok(labelsOf(ctx, repo, issue));
  });

  router.add("DELETE", "/repos/:owner/:repo/issues/:number/labels/:name", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const issue = getIssue(repo, ctx.params.number ?? "");
    removeLabel(ctx.app, repo, issue, ctx.params.name ?? "", requireUser(ctx).login);
    return ok(labelsOf(ctx, repo, issue));
  });

  router.add("DELETE", "/repos/:owner/:repo/issues/:number/labels", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const issue = getIssue(repo, ctx.params.number ?? "");
    setLabels(ctx.app, repo, issue, [], requireUser(ctx).login);
    return noContent();
  });

  router.add("POST", "/repos/:owner/:repo/issues/:number/assignees", (ctx) => {
    const repo = requireRepo(ctx);
    const user = requireUser(ctx);
    const issue = getIssue(repo, ctx.params.number ?? "");
    const body = parseBody(assigneesBody, ctx.body, "Issue");
    addAssignees(ctx.app, repo, issue, body.assignees ?? [], user.login);
    return ok(issueJson(ctx.app.store.state, ctx.app.urls, repo, issue), 201);
  });

  router.add("DELETE", "/repos/:owner/:repo/issues/:number/assignees", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const issue = getIssue(repo, ctx.params.number ?? "");
    const body = parseBody(assigneesBody, ctx.body, "Issue");
    removeAssignees(ctx.app, issue, body.assignees ?? [], requireUser(ctx).login);
    return ok(issueJson(ctx.app.store.state, ctx.app.urls, repo, issue));
  });

  router.add("GET", "/repos/:owner/:repo/issues/:number/dependencies/blocked_by", (ctx) => {
    const state = ctx.app.store.view();
    const repo = requireRepo(ctx, "read", state);
    const issue = getIssue(repo, ctx.params.number ?? "");
    const blockers = issue.blockedBy.flatMap((id) => {
      const found = findIssueById(state, id);
      return found ? [issueJson(state, ctx.app.urls, found.repo, found.issue)] : [];
    });
    const { page, headers } = paginate(ctx, blockers);
    return ok(page, 200, headers);
  });

  router.add("POST", "/repos/:owner/:repo/issues/:number/dependencies/blocked_by", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const issue = getIssue(repo, ctx.params.number ?? "");
    const body = parseBody(dependencyBody, ctx.body, "IssueDependency");
    const blocker = findIssueById(ctx.app.store.state, body.issue_id);
    if (!blocker) throw new HttpError(404, "Not Found");
    if (blocker.issue.id === issue.id)
      throw validationFailed([{ resource: "IssueDependency", field: "issue_id", code: "custom", message: "An issue cannot block itself" }]);
    if (issue.blockedBy.includes(blocker.issue.id)) throw validationFailed([{ resource: "IssueDependency", field: "issue_id", code: "already_exists" }]);
    issue.blockedBy.push(blocker.issue.id);
    return ok(issueJson(ctx.app.store.state, ctx.app.urls, blocker.repo, blocker.issue), 201);
  });

  router.add("DELETE", "/repos/:owner/:repo/issues/:number/dependencies/blocked_by/:issueId", (ctx) => {
    const repo = requireRepo(ctx, "write");
    const issue = getIssue(repo, ctx.params.number ?? "");
    const id = Number(ctx.params.issueId);
    if (!issue.blockedBy.includes(id)) throw new HttpError(404, "Not Found");
    issue.blockedBy = issue.blockedBy.filter((b) => b !== id);
    const blocker = findIssueById(ctx.app.store.state, id);
    return ok(blocker ? issueJson(ctx.app.store.state, ctx.app.urls, blocker.repo, blocker.issue) : {});
  });
}
