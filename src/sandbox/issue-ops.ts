/**
 * Issue changes shared by REST and GraphQL, each recording the events GitHub records (labeled,
 * assigned, closed, ...) with their actor. Each function checks before it changes anything.
 */
import type { App } from "./app";
import { hasRole } from "./auth";
import { checkBodyLength, HttpError, notFound } from "./http";
import { isoNow } from "./model";
import type { CommentRec, EventRec, IssueRec, LabelRec, RepoRec } from "./model";

export function getIssue(repo: RepoRec, number: number | string): IssueRec {
  const n = Number(number);
  const issue = Number.isInteger(n) && n > 0 ? repo.issues[n - 1] : undefined;
  if (!issue) throw notFound();
  return issue;
}

export function findLabel(repo: RepoRec, name: string): LabelRec | undefined {
  const lower = name.toLowerCase();
  return repo.labels.find((l) => l.name.toLowerCase() === lower);
}

export function addEvent(app: App, issue: IssueRec, actor: string, event: string, extra: Partial<EventRec> = {}): void {
  issue.events.push({ id: app.store.nextId(), event, actor, createdAt: isoNow(), ...extra });
}

function touch(issue: IssueRec): void {
  issue.updatedAt = isoNow();
}

/** Adds labels by name. Like GitHub, a name that is not yet a label becomes one. */
export function addLabels(app: App, repo: RepoRec, issue: IssueRec, names: string[], actor: string): void {
  for (const raw of names) {
    const name = raw.trim();
    if (!name) continue;
    let label = findLabel(repo, name);
    if (!label) {
      label = { id: app.store.nextId(), name, color: "ededed", description: null, default: false };
      repo.labels.push(label);
    }
    if (issue.labels.includes(label.id)) continue;
    issue.labels.push(label.id);
    addEvent(app, issue, actor, "labeled", { label: { name: label.name, color: label.color } });
    touch(issue);
  }
}

export function removeLabel(app: App, repo: RepoRec, issue: IssueRec, name: string, actor: string): void {
  const label = findLabel(repo, name);
  if (!label || !issue.labels.includes(label.id)) throw new HttpError(404, "Label does not exist");
  issue.labels = issue.labels.filter((id) => id !== label.id);
  addEvent(app, issue, actor, "unlabeled", { label: { name: label.name, color: label.color } });
  touch(issue);
}

export function setLabels(app: App, repo: RepoRec, issue: IssueRec, names: string[], actor: string): void {
  const wanted = new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean));
  for (const id of [...issue.labels]) {
    const label = repo.labels.find((l) => l.id === id);
    if (label && !wanted.has(label.name.toLowerCase())) removeLabel(app, repo, issue, label.name, actor);
  }
  addLabels(app, repo, issue, names, actor);
}

/** GitHub silently skips assignees who cannot be assigned (no push access); so do we. */
export function addAssignees(app: App, repo: RepoRec, issue: IssueRec, logins: string[], actor: string): void {
  for (const raw of logins) {
    const user = app.store.user(raw);
    if (!user || !hasRole(repo, user.login, "write")) continue;
    if (issue.assignees.includes(user.login)) continue;
    if (issue.assignees.length >= 10) break;
    issue.assignees.push(user.login);
    addEvent(app, issue, actor, "assigned", { assignee: user.login });
    touch(issue);
  }
}

export function removeAssignees(app: App, issue: IssueRec, logins: string[], actor: string): void {
  for (const raw of logins) {
    const login = issue.assignees.find((a) => a.toLowerCase() === raw.toLowerCase());
    if (!login) continue;
    issue.assignees = issue.assignees.filter((a) => a !== login);
    addEvent(app, issue, actor, "unassigned", { assignee: login });
    touch(issue);
  }
}

export function setAssignees(app: App, repo: RepoRec, issue: IssueRec, logins: string[], actor: string): void {
  const keep = new Set(logins.map((l) => l.toLowerCase()));
  removeAssignees(
    app,
    issue,
    issue.assignees.filter((a) => !keep.has(a.toLowerCase())),
    actor,
  );
  addAssignees(app, repo, issue, logins, actor);
}

export function setState(app: App, issue: IssueRec, state: "open" | "closed", actor: string, reason?: string | null): void {
  if (issue.state === state) {
    if (state === "closed" && reason) issue.stateReason = reason;
    return;
  }
  const now = isoNow();
  issue.state = state;
  if (state === "closed") {
    issue.closedAt = now;
    issue.closedBy = actor;
    issue.stateReason = reason ?? "completed";
    addEvent(app, issue, actor, "closed");
  } else {
    issue.closedAt = null;
    issue.closedBy = null;
    issue.stateReason = "reopened";
    addEvent(app, issue, actor, "reopened");
  }
  issue.updatedAt = now;
}

export function createComment(app: App, issue: IssueRec, body: string, actor: string): CommentRec {
  checkBodyLength(body, "IssueComment");
  const now = isoNow();
  const comment: CommentRec = { id: app.store.nextId(), body, user: actor, createdAt: now, updatedAt: now };
  issue.comments.push(comment);
  issue.updatedAt = now;
  return comment;
}

export function findComment(repo: RepoRec, id: number): { issue: IssueRec; comment: CommentRec } | null {
  for (const issue of repo.issues) {
    const comment = issue.comments.find((c) => c.id === id);
    if (comment) return { issue, comment };
  }
  return null;
}

/** Authors may edit their own comments; otherwise it takes write access. */
export function checkCanEditComment(repo: RepoRec, comment: CommentRec, login: string): void {
  if (comment.user === login || hasRole(repo, login, "write")) return;
  throw new HttpError(403, "Resource not accessible by personal access token");
}

/**
 * Sets an issue's body and keeps the edit as GitHub does: the first edit also records the original
 * (by its author, at its creation), so `userContentEdits` says who wrote each version.
 */
export function editIssueBody(app: App, issue: IssueRec, body: string | null, actor: string): void {
  if ((body ?? "") === (issue.body ?? "")) return;
  const edits = (issue.edits ??= []);
  if (edits.length === 0) edits.push({ id: app.store.nextId(), editor: issue.user, editedAt: issue.createdAt, diff: issue.body ?? "" });
  edits.push({ id: app.store.nextId(), editor: actor, editedAt: isoNow(), diff: body ?? "" });
  issue.body = body;
}

export function updateComment(comment: CommentRec, body: string): void {
  checkBodyLength(body, "IssueComment");
  comment.body = body;
  comment.updatedAt = isoNow();
}

/** A new open issue (or, with `pr`, pull request) at the next number. */
export function openIssue(app: App, repo: RepoRec, input: { title: string; body: string | null; user: string; pr?: IssueRec["pr"] }): IssueRec {
  const now = isoNow();
  const issue: IssueRec = {
    id: app.store.nextId(),
    number: repo.issues.length + 1,
    title: input.title,
    body: input.body,
    state: "open",
    stateReason: null,
    user: input.user,
    labels: [],
    assignees: [],
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    closedBy: null,
    comments: [],
    events: [],
    blockedBy: [],
    ...(input.pr ? { pr: input.pr } : {}),
  };
  repo.issues.push(issue);
  return issue;
}
