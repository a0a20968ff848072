/**
 * Root fields: the Query entry points and the mutations. Mutations reuse the same issue
 * operations as REST, so both record identical events. graphql-js runs the mutation fields of
 * one document one after another, in order, as GitHub does.
 */
import { canRead } from "../auth";
import { cursorFor, parseNodeId } from "../ids";
import { addAssignees, addEvent, addLabels, checkCanEditComment, createComment, editIssueBody, removeAssignees, setState, updateComment } from "../issue-ops";
import { isoNow, type RepoRec } from "../model";
import { commentNode, findRepoForGql, gqlError, issueNode, labelNode, repoNode, userNode } from "./models";
import type { GqlCtx } from "./models";
import { pullMutations } from "./pull-mutations";
import { issueByNodeId, notFoundNode, requireWrite } from "./lookup";

type Input<T> = { input: T & { clientMutationId?: string | null } };

function labelNames(ctx: GqlCtx, repo: RepoRec, ids: string[]): string[] {
  return ids.map((id) => {
    const parsed = parseNodeId(id);
    const label = parsed?.kind === "LA" ? repo.labels.find((l) => l.id === parsed.dbId) : undefined;
    if (!label) throw notFoundNode(id);
    return label.name;
  });
}

function userLogins(ctx: GqlCtx, ids: string[]): string[] {
  return ids.map((id) => {
    const parsed = parseNodeId(id);
    const user = parsed?.kind === "U" ? Object.values(ctx.state.users).find((u) => u.id === parsed.dbId) : undefined;
    if (!user) throw notFoundNode(id);
    return user.login;
  });
}

function nodeById(ctx: GqlCtx, id: string): object | null {
  const parsed = parseNodeId(id);
  if (!parsed) return null;
  const { kind, dbId } = parsed;
  if (kind === "U") {
    const user = Object.values(ctx.state.users).find((u) => u.id === dbId);
    return user ? userNode(ctx, user.login) : null;
  }
  for (const repo of Object.values(ctx.state.repos)) {
    if (!canRead(repo, ctx.viewer.login)) continue;
    if (kind === "R" && repo.id === dbId) return repoNode(ctx, repo);
    if (kind === "LA") {
      const l = repo.labels.find((x) => x.id === dbId);
      if (l) return labelNode(ctx, repo, l);
    }
    for (const issue of repo.issues) {
      if ((kind === "I" || kind === "PR") && issue.id === dbId) return issueNode(ctx, repo, issue);
      if (kind === "IC") {
        const c = issue.comments.find((x) => x.id === dbId);
        if (c) return commentNode(ctx, repo, issue, c);
      }
    }
  }
  return null;
}

export function rootValue(): Record<string, unknown> {
  return {
    viewer: (_: unknown, ctx: GqlCtx) => userNode(ctx, ctx.viewer.login),
    rateLimit: (_: unknown, ctx: GqlCtx) => {
      const info = ctx.app.rates.info(String(ctx.viewer.id), false, "graphql");
      return {
        limit: info.limit,
        cost: 1,
        remaining: Math.max(0, info.remaining - 1),
        used: info.used + 1,
        resetAt: new Date(info.reset * 1000).toISOString(),
        nodeCount: 0,
      };
    },
    repository: ({ owner, name }: { owner: string; name: string }, ctx: GqlCtx) => repoNode(ctx, findRepoForGql(ctx, owner, name)),
    node: ({ id }: { id: string }, ctx: GqlCtx) => {
      const node = nodeById(ctx, id);
      if (!node) throw notFoundNode(id);
      return node;
    },
    nodes: ({ ids }: { ids: string[] }, ctx: GqlCtx) => ids.map((id) => nodeById(ctx, id)),
    user: ({ login }: { login: string }, ctx: GqlCtx) => {
      const user = ctx.app.store.user(login);
      if (!user) throw gqlError("NOT_FOUND", `Could not resolve to a User with the login of '${login}'.`);
      return userNode(ctx, user.login);
    },

    addComment: ({ input }: Input<{ subjectId: string; body: string }>, ctx: GqlCtx) => {
      const { repo, issue } = issueByNodeId(ctx, input.subjectId);
      const c = createComment(ctx.app, issue, input.body, ctx.viewer.login);
      const node = commentNode(ctx, repo, issue, c);
      const edge = { cursor: cursorFor(issue.comments.length - 1), node };
      return { clientMutationId: input.clientMutationId ?? null, commentEdge: edge, subject: issueNode(ctx, repo, issue) };
    },
    updateIssueComment: ({ input }: Input<{ id: string; body: string }>, ctx: GqlCtx) => {
      const parsed = parseNodeId(input.id);
      if (parsed?.kind === "IC") {
        for (const repo of Object.values(ctx.state.repos)) {
          if (!canRead(repo, ctx.viewer.login)) continue;
          for (const issue of repo.issues) {
            const c = issue.comments.find((x) => x.id === parsed.dbId);
            if (!c) continue;
            checkCanEditComment(repo, c, ctx.viewer.login);
            updateComment(c, input.body);
            return { clientMutationId: input.clientMutationId ?? null, issueComment: commentNode(ctx, repo, issue, c) };
          }
        }
      }
      throw notFoundNode(input.id);
    },
    deleteIssueComment: ({ input }: Input<{ id: string }>, ctx: GqlCtx) => {
      const parsed = parseNodeId(input.id);
      for (const repo of Object.values(ctx.state.repos)) {
        for (const issue of repo.issues) {
          const c = parsed?.kind === "IC" ? issue.comments.find((x) => x.id === parsed.dbId) : undefined;
          if (!c || !canRead(repo, ctx.viewer.login)) continue;
          checkCanEditComment(repo, c, ctx.viewer.login);
          issue.comments = issue.comments.filter((x) => x !== c);
          return { clientMutationId: input.clientMutationId ?? null };
        }
      }
      throw notFoundNode(input.id);
    },
    addLabelsToLabelable: ({ input }: Input<{ labelableId: string; labelIds: string[] }>, ctx: GqlCtx) => {
      const { repo, issue } = issueByNodeId(ctx, input.labelableId);
      requireWrite(ctx, repo, "AddLabelsToLabelable");
      addLabels(ctx.app, repo, issue, labelNames(ctx, repo, input.labelIds), ctx.viewer.login);
      return { clientMutationId: input.clientMutationId ?? null, labelable: issueNode(ctx, repo, issue) };
    },
    removeLabelsFromLabelable: ({ input }: Input<{ labelableId: string; labelIds: string[] }>, ctx: GqlCtx) => {
      const { repo, issue } = issueByNodeId(ctx, input.labelableId);
      requireWrite(ctx, repo, "RemoveLabelsFromLabelable");
      const names = new Set(labelNames(ctx, repo, input.labelIds).map((n) => n.toLowerCase()));
      // Unlike REST, GraphQL quietly ignores labels that are not on the issue.
      for (const id of [...issue.labels]) {
        const label = repo.labels.find((l) => l.id === id);
        if (!label || !names.has(label.name.toLowerCase())) continue;
        issue.labels = issue.labels.filter((x) => x !== id);
        addEvent(ctx.app, issue, ctx.viewer.login, "unlabeled", { label: { name: label.name, color: label.color } });
        issue.updatedAt = isoNow();
      }
      return { clientMutationId: input.clientMutationId ?? null, labelable: issueNode(ctx, repo, issue) };
    },
    addAssigneesToAssignable: ({ input }: Input<{ assignableId: string; assigneeIds: string[] }>, ctx: GqlCtx) => {
      const { repo, issue } = issueByNodeId(ctx, input.assignableId);
      requireWrite(ctx, repo, "AddAssigneesToAssignable");
      addAssignees(ctx.app, repo, issue, userLogins(ctx, input.assigneeIds), ctx.viewer.login);
      return { clientMutationId: input.clientMutationId ?? null, assignable: issueNode(ctx, repo, issue) };
    },
    removeAssigneesFromAssignable: ({ input }: Input<{ assignableId: string; assigneeIds: string[] }>, ctx: GqlCtx) => {
      const { repo, issue } = issueByNodeId(ctx, input.assignableId);
      requireWrite(ctx, repo, "RemoveAssigneesFromAssignable");
      removeAssignees(ctx.app, issue, userLogins(ctx, input.assigneeIds), ctx.viewer.login);
      return { clientMutationId: input.clientMutationId ?? null, assignable: issueNode(ctx, repo, issue) };
    },
    closeIssue: ({ input }: Input<{ issueId: string; stateReason?: string | null }>, ctx: GqlCtx) => {
      const { repo, issue } = issueByNodeId(ctx, input.issueId, ["I"]);
      if (issue.user !== ctx.viewer.login) requireWrite(ctx, repo, "CloseIssue");
      setState(ctx.app, issue, "closed", ctx.viewer.login, input.stateReason?.toLowerCase() ?? "completed");
      return { clientMutationId: input.clientMutationId ?? null, issue: issueNode(ctx, repo, issue) };
    },
    reopenIssue: ({ input }: Input<{ issueId: string }>, ctx: GqlCtx) => {
      const { repo, issue } = issueByNodeId(ctx, input.issueId, ["I"]);
      if (issue.user !== ctx.viewer.login) requireWrite(ctx, repo, "ReopenIssue");
      setState(ctx.app, issue, "open", ctx.viewer.login);
      return { clientMutationId: input.clientMutationId ?? null, issue: issueNode(ctx, repo, issue) };
    },
    updateIssue: ({ input }: Input<{ id: string; title?: string | null; body?: string | null; state?: string | null }>, ctx: GqlCtx) => {
      const { repo, issue } = issueByNodeId(ctx, input.id, ["I"]);
      if (issue.user !== ctx.viewer.login) requireWrite(ctx, repo, "UpdateIssue");
      if (input.title && input.title !== issue.title) {
        addEvent(ctx.app, issue, ctx.viewer.login, "renamed", { rename: { from: issue.title, to: input.title } });
        issue.title = input.title;
      }
      if (input.body !== undefined && input.body !== null) editIssueBody(ctx.app, issue, input.body, ctx.viewer.login);
      if (input.state) setState(ctx.app, issue, input.state === "OPEN" ? "open" : "closed", ctx.viewer.login);
      return { clientMutationId: input.clientMutationId ?? null, issue: issueNode(ctx, repo, issue) };
    },
    ...pullMutations(),
  };
}
