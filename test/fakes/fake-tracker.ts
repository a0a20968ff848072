/**
 * An in-memory GitHub for core unit tests: one FakeGitHub holds the repository's state; each
 * FakeTracker is one user's client of it (the Tracker port). Integration tests use the sandbox.
 *
 *   const gh = new FakeGitHub({ owner: "acme", repo: "widgets" });
 *   gh.addUser("alice", "write");
 *   const n = gh.addIssue({ title: "x", labels: ["ready-for-agent"], by: "alice" });
 *   const tracker = gh.client("alice");
 *
 * Extras for tests: `requests` counts calls per user and method; `pinView(user)` freezes what that
 * user's reads see (eventual consistency, by hand) until `unpinView(user)`; `beforeRequest` lets a
 * test hold a call at a barrier; `failNext(method, error)` makes the next such call throw.
 */
import type {
  BodyHistory,
  CiReport,
  IssueThread,
  IssueWrite,
  Permission,
  PullRequestInfo,
  RepoRef,
  Tracker,
  TrackerComment,
  TrackerIssue,
  WrittenWithThread,
} from "../../src/ports/tracker";

interface IssueState {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  labels: string[];
  assignees: string[];
  blockers: number[];
}

interface LabelEvent {
  issue: number;
  label: string;
  actor: string;
  kind: "labeled" | "unlabeled";
  at?: string;
}

interface State {
  issues: Map<number, IssueState>;
  comments: TrackerComment[];
  events: LabelEvent[];
  labels: Set<string>;
  pulls: PullRequestInfo[];
  ci: Map<string, CiReport>;
}

function cloneState(s: State): State {
  return structuredClone(s);
}

export class FakeGitHub {
  readonly repo: RepoRef;
  readonly users = new Map<string, Permission>();
  defaultBranch = "main";
  /** The method of every merge, in order. */
  mergedWith: string[] = [];
  /** What GET /repos says of merge methods; null: it does not say. */
  mergeMethods: Record<"merge" | "squash" | "rebase", boolean> | null = { merge: true, squash: true, rebase: true };
  requests: { user: string; method: string }[] = [];
  beforeRequest: ((user: string, method: string) => Promise<void> | void) | null = null;
  private state: State = { issues: new Map(), comments: [], events: [], labels: new Set(), pulls: [], ci: new Map() };
  private readonly pinned = new Map<string, State>();
  private readonly failures: { method: string; error: Error }[] = [];
  /** Past 2^32, as on github.com, and carried as strings (ADR 0130). */
  private nextCommentId = 3_076_667_581;
  private clockMs: () => number;

  constructor(repo: RepoRef, opts: { now?: () => number } = {}) {
    this.repo = repo;
    this.clockMs = opts.now ?? (() => Date.now());
  }

  get fullName(): string {
    return `${this.repo.owner}/${this.repo.repo}`;
  }

  setNow(now: () => number): void {
    this.clockMs = now;
  }

  addUser(login: string, permission: Permission): void {
    this.users.set(login, permission);
  }

  addIssue(input: { title: string; body?: string; labels?: string[]; by: string; number?: number }): number {
    const number = input.number ?? Math.max(0, ...this.state.issues.keys(), ...this.state.pulls.map((p) => p.number)) + 1;
    this.state.issues.set(number, { number, title: input.title, body: input.body ?? "", state: "open", labels: [], assignees: [], blockers: [] });
    for (const l of input.labels ?? []) this.label(number, l, input.by);
    return number;
  }

  /** Applies a label as `actor` (records the labeled event, as GitHub does). */
  label(issue: number, label: string, actor: string): void {
    const i = this.mustIssue(issue);
    this.state.labels.add(label);
    if (!i.labels.includes(label)) i.labels.push(label);
    this.state.events.push({ issue, label, actor, kind: "labeled", at: new Date(this.clockMs()).toISOString() });
  }

  /** Posts a comment as `author` directly (a person typing in GitHub's UI). */
  postComment(issue: number, author: string, body: string, at?: string): TrackerComment {
    this.mustIssue(issue);
    const id = String(this.nextCommentId++);
    const when = at ?? new Date(this.clockMs()).toISOString();
    const c: TrackerComment = {
      id,
      body,
      author,
      url: `https://github.test/${this.fullName}/issues/${issue}#issuecomment-${id}`,
      createdAt: when,
      updatedAt: when,
    };
    this.state.comments.push({ ...c });
    this.commentIssue.set(id, issue);
    return c;
  }

  private readonly commentIssue = new Map<string, number>();

  issue(number: number): IssueState {
    return this.mustIssue(number);
  }

  commentsOn(issue: number): TrackerComment[] {
    return this.state.comments.filter((c) => this.commentIssue.get(c.id) === issue).map(strip);
  }

  editComment(id: string, body: string): void {
    const c = this.state.comments.find((x) => x.id === id);
    if (!c) throw new Error(`no comment ${id}`);
    c.body = body;
    c.updatedAt = new Date(this.clockMs()).toISOString();
  }

  setCi(ref: string, report: CiReport): void {
    this.state.ci.set(ref, report);
  }

  addBlocker(issue: number, blocker: number): void {
    this.mustIssue(issue).blockers.push(blocker);
  }

  pinView(user: string): void {
    this.pinned.set(user, cloneState(this.state));
  }

  unpinView(user: string): void {
    this.pinned.delete(user);
  }

  failNext(method: string, error: Error = new Error(`fake ${method} failed`)): void {
    this.failures.push({ method, error });
  }

  /** The next `method` call is carried out, but its caller gets an error (a response lost on the way back). */
  loseResponseNext(method: string, error: Error = new Error(`fake ${method}: connection reset`)): void {
    this.lostResponses.push({ method, error });
  }

  /** @internal throws when the response of a call that already happened is to be lost. */
  leave(method: string): void {
    const i = this.lostResponses.findIndex((f) => f.method === method);
    if (i < 0) return;
    const [f] = this.lostResponses.splice(i, 1);
    throw f!.error;
  }

  private readonly lostResponses: { method: string; error: Error }[] = [];

  client(user: string): FakeTracker {
    return new FakeTracker(this, user);
  }

  requestCount(user?: string): number {
    return this.requests.filter((r) => !user || r.user === user).length;
  }

  /** @internal used by FakeTracker */
  async enter(user: string, method: string): Promise<void> {
    this.requests.push({ user, method });
    if (this.beforeRequest) await this.beforeRequest(user, method);
    const i = this.failures.findIndex((f) => f.method === method);
    if (i >= 0) {
      const [f] = this.failures.splice(i, 1);
      throw f!.error;
    }
  }

  /** @internal the state a user's reads see. */
  view(user: string): State {
    return this.pinned.get(user) ?? this.state;
  }

  /** @internal */
  live(): State {
    return this.state;
  }

  /** @internal */
  issueOfComment(id: string): number | undefined {
    return this.commentIssue.get(id);
  }

  /** @internal */
  newComment(issue: number, author: string, body: string): TrackerComment {
    return this.postComment(issue, author, body);
  }

  /** @internal */
  now(): string {
    return new Date(this.clockMs()).toISOString();
  }

  private mustIssue(n: number): IssueState {
    const i = this.state.issues.get(n);
    if (!i) throw new Error(`fake: no issue #${n}`);
    return i;
  }
}

function strip(c: TrackerComment): TrackerComment {
  return { id: c.id, body: c.body, author: c.author, url: c.url, createdAt: c.createdAt, updatedAt: c.updatedAt };
}

export class FakeTracker implements Tracker {
  readonly repo: RepoRef;

  constructor(
    private readonly gh: FakeGitHub,
    readonly user: string,
  ) {
    this.repo = gh.repo;
  }

  private async enter(method: string): Promise<void> {
    await this.gh.enter(this.user, method);
  }

  private toIssue(i: IssueState): TrackerIssue {
    return {
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      labels: [...i.labels],
      assignees: [...i.assignees],
      url: `https://github.test/${this.gh.fullName}/issues/${i.number}`,
    };
  }

  private requireWrite(): void {
    const p = this.gh.users.get(this.user) ?? "none";
    if (!["admin", "maintain", "write", "triage"].includes(p)) throw new Error(`fake: ${this.user} may not write (${p})`);
  }

  async viewer(): Promise<string> {
    await this.enter("viewer");
    return this.user;
  }

  async defaultBranch(): Promise<string> {
    await this.enter("defaultBranch");
    return this.gh.defaultBranch;
  }

  async mergeMethods(): Promise<Record<"merge" | "squash" | "rebase", boolean> | null> {
    await this.enter("mergeMethods");
    return this.gh.mergeMethods;
  }

  async access(): Promise<Permission | null> {
    await this.enter("access");
    return this.gh.users.get(this.user) ?? "none";
  }

  async permissionOf(user: string): Promise<Permission> {
    await this.enter("permissionOf");
    return this.gh.users.get(user) ?? "none";
  }

  async getIssue(number: number): Promise<TrackerIssue | null> {
    await this.enter("getIssue");
    const i = this.gh.view(this.user).issues.get(number);
    return i ? this.toIssue(i) : null;
  }

  async listOpenIssues(labels?: string[]): Promise<TrackerIssue[]> {
    await this.enter("listOpenIssues");
    return [...this.gh.view(this.user).issues.values()]
      .filter((i) => i.state === "open" && (!labels || labels.length === 0 || labels.some((l) => i.labels.includes(l))))
      .sort((a, b) => a.number - b.number)
      .map((i) => this.toIssue(i));
  }

  async listComments(number: number): Promise<TrackerComment[]> {
    await this.enter("listComments");
    return this.commentsIn(this.gh.view(this.user), number);
  }

  private commentsIn(state: State, number: number): TrackerComment[] {
    return state.comments.filter((c) => this.gh.issueOfComment(c.id) === number).map(strip);
  }

  async readIssueThread(number: number): Promise<IssueThread | null> {
    await this.enter("readIssueThread");
    const state = this.gh.view(this.user);
    const i = state.issues.get(number);
    if (!i) return null;
    // Like the GitHub adapter: the same request carries the viewer's permission and recent label events.
    const labelActors: Record<string, string[]> = {};
    const labeledAt: Record<string, string> = {};
    for (const e of state.events) {
      if (e.issue !== number || e.kind !== "labeled") continue;
      (labelActors[e.label] ??= []).push(e.actor);
      if (e.at) labeledAt[e.label] = e.at;
    }
    return {
      issue: this.toIssue(i),
      comments: this.commentsIn(state, number),
      labelActors,
      // The fake keeps no body edits (bodyHistory below).
      labeledAt,
      bodyEdits: [],
      viewer: { login: this.user, permission: this.gh.users.get(this.user) ?? "none" },
    };
  }

  async labelActors(number: number, label: string): Promise<string[]> {
    await this.enter("labelActors");
    return this.gh
      .view(this.user)
      .events.filter((e) => e.issue === number && e.label === label && e.kind === "labeled")
      .map((e) => e.actor);
  }

  /** The fake keeps no body edits: its bodies are never edited after labelling (the sandbox tests that rule). */
  async bodyHistory(_number: number, _label: string): Promise<BodyHistory> {
    await this.enter("bodyHistory");
    return { labeledAt: null, edits: [] };
  }

  async openBlockers(number: number): Promise<number[]> {
    await this.enter("openBlockers");
    const state = this.gh.view(this.user);
    return (state.issues.get(number)?.blockers ?? []).filter((b) => state.issues.get(b)?.state === "open");
  }

  async writeIssue(number: number, write: IssueWrite): Promise<TrackerComment | null> {
    await this.enter("writeIssue");
    const written = this.apply(number, write);
    this.gh.leave("writeIssue");
    return written;
  }

  /**
   * The write, and the thread as this user's reads see it just after: the live state, or (pinView)
   * a lagging answer that does not show even this write, the worst GitHub could do (ADR 0380).
   */
  async writeIssueReadBack(number: number, write: IssueWrite): Promise<WrittenWithThread> {
    await this.enter("writeIssueReadBack");
    const comment = this.apply(number, write);
    this.gh.leave("writeIssueReadBack");
    const state = this.gh.view(this.user);
    const i = state.issues.get(number);
    if (!i) throw new Error(`fake: no issue #${number} in the answer`);
    return { comment, thread: { issue: this.toIssue(i), comments: this.commentsIn(state, number) } };
  }

  private apply(number: number, write: IssueWrite): TrackerComment | null {
    this.requireWrite();
    const live = this.gh.live();
    const i = live.issues.get(number);
    if (!i) throw new Error(`fake: no issue #${number}`);
    for (const a of write.addAssignees ?? []) if (!i.assignees.includes(a)) i.assignees.push(a);
    for (const l of write.addLabels ?? []) if (!i.labels.includes(l)) this.gh.label(number, l, this.user);
    for (const l of write.removeLabels ?? []) {
      if (!i.labels.includes(l)) continue;
      i.labels = i.labels.filter((x) => x !== l);
      live.events.push({ issue: number, label: l, actor: this.user, kind: "unlabeled" });
    }
    let written: TrackerComment | null = null;
    if (write.comment) {
      if (write.comment.id === undefined) written = this.gh.newComment(number, this.user, write.comment.body);
      else written = this.rewrite(write.comment.id, write.comment.body);
    }
    for (const e of write.editComments ?? []) this.rewrite(e.id, e.body);
    for (const a of write.removeAssignees ?? []) i.assignees = i.assignees.filter((x) => x !== a);
    return written;
  }

  private rewrite(id: string, body: string): TrackerComment {
    this.gh.editComment(id, body);
    const c = this.gh.live().comments.find((x) => x.id === id);
    return strip(c!);
  }

  async createComment(number: number, body: string): Promise<TrackerComment> {
    await this.enter("createComment");
    this.requireWrite();
    return this.gh.newComment(number, this.user, body);
  }

  async updateComment(commentId: string, body: string): Promise<TrackerComment> {
    await this.enter("updateComment");
    this.requireWrite();
    return this.rewrite(commentId, body);
  }

  async ensureLabel(name: string): Promise<"created" | "exists"> {
    await this.enter("ensureLabel");
    const labels = this.gh.live().labels;
    if (labels.has(name)) return "exists";
    labels.add(name);
    return "created";
  }

  async closeIssue(number: number): Promise<void> {
    await this.enter("closeIssue");
    const i = this.gh.live().issues.get(number);
    if (i) i.state = "closed";
  }

  async setIssueBody(number: number, body: string): Promise<void> {
    await this.enter("setIssueBody");
    const i = this.gh.live().issues.get(number);
    if (i) i.body = body;
  }

  async findPullRequest(head: string): Promise<PullRequestInfo | null> {
    await this.enter("findPullRequest");
    return this.gh.view(this.user).pulls.find((p) => p.head === head && p.state === "open") ?? null;
  }

  async getPullRequest(number: number): Promise<PullRequestInfo | null> {
    await this.enter("getPullRequest");
    return this.gh.view(this.user).pulls.find((p) => p.number === number) ?? null;
  }

  async createPullRequest(input: { head: string; base: string; title: string; body: string; draft: boolean }): Promise<PullRequestInfo> {
    await this.enter("createPullRequest");
    const live = this.gh.live();
    const number = Math.max(0, ...live.issues.keys(), ...live.pulls.map((p) => p.number)) + 1;
    const pr: PullRequestInfo = {
      number,
      url: `https://github.test/${this.gh.fullName}/pull/${number}`,
      state: "open",
      merged: false,
      draft: input.draft,
      head: input.head,
      headSha: "0".repeat(40),
      base: input.base,
      title: input.title,
      body: input.body,
      mergeable: true,
    };
    live.pulls.push(pr);
    return { ...pr };
  }

  async updatePullRequest(number: number, input: { title?: string; body?: string }): Promise<PullRequestInfo> {
    await this.enter("updatePullRequest");
    const pr = this.gh.live().pulls.find((p) => p.number === number);
    if (!pr) throw new Error(`fake: no PR #${number}`);
    if (input.title !== undefined) pr.title = input.title;
    if (input.body !== undefined) pr.body = input.body;
    return { ...pr };
  }

  async setDraft(number: number, draft: boolean): Promise<void> {
    await this.enter("setDraft");
    const pr = this.gh.live().pulls.find((p) => p.number === number);
    if (pr) pr.draft = draft;
  }

  async ciReport(ref: string): Promise<CiReport> {
    await this.enter("ciReport");
    return this.gh.view(this.user).ci.get(ref) ?? { state: "none", details: [] };
  }

  async mergePullRequest(
    number: number,
    input: { sha: string; method: "merge" | "squash" | "rebase"; title?: string; message?: string },
  ): Promise<{ merged: boolean; sha: string | null; reason?: string }> {
    await this.enter("mergePullRequest");
    const pr = this.gh.live().pulls.find((p) => p.number === number);
    if (!pr) return { merged: false, sha: null, reason: "no such pull request" };
    if (pr.headSha !== input.sha) return { merged: false, sha: null, reason: "head moved" };
    if (this.gh.mergeMethods && !this.gh.mergeMethods[input.method]) return { merged: false, sha: null, reason: `405: ${input.method} is not allowed` };
    this.gh.mergedWith.push(input.method);
    pr.merged = true;
    pr.state = "closed";
    return { merged: true, sha: "1".repeat(40) };
  }
}
