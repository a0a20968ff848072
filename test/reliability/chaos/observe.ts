/**
 * What a chaos trial asserts, read straight from the sandbox (REST as the admin, and the bare
 * repository on disk). Each check returns violations as sentences; an empty list is a pass.
 *
 *   endings      every ticket ended exactly once: merged (closed, one merged PR) or handed off
 *                (ready-for-human, one current hand-off comment with its reason)
 *   two PRs      no ticket ever has two open pull requests (checked after every kill too)
 *   lost pushes  every commit ever pushed to agent/* is reachable from the base, a kept branch or a
 *                pull request's head (refs/pull/N/head, which GitHub keeps after a merge),
 *                as itself or as its rebased form (same author, author date and message)
 *   State        no State file outlives its closed issue
 *   leases       no lease stays live (or stale-but-claiming) once no Run is running
 *   lock         every lock file on ticket-runner/lock and ticket-runner/locks/* reads {"held": false}
 */
import type { Octokit } from "@octokit/rest";
import { parseComments } from "../../../src/core/claims/claim-view";
import { standings } from "../../../src/core/claims/lease-standing";
import { HANDOFF_HISTORY, HANDOFF_MARKER } from "../../../src/core/run/handoff-comment";
import type { ChaosTarget, ChaosWorld } from "./world";
import { gitOk, gitOut } from "./world";

export type Ending = "merged" | "handed-off" | "released" | "unfinished";

export interface TicketView {
  number: number;
  title: string;
  state: "open" | "closed";
  labels: string[];
  assignees: string[];
  comments: { id: string; body: string; author: string; createdAt: string; updatedAt: string; url: string }[];
  prs: { number: number; state: string; merged: boolean; head: string; draft: boolean }[];
}

export async function viewTickets(world: ChaosWorld, t: ChaosTarget): Promise<TicketView[]> {
  const gh: Octokit = world.adminOctokit;
  const base = { owner: t.owner, repo: t.name };
  const pulls = await gh.paginate(gh.rest.pulls.list, { ...base, state: "all", per_page: 100 });
  const out: TicketView[] = [];
  for (const n of t.issueNumbers) {
    const issue = (await gh.rest.issues.get({ ...base, issue_number: n })).data;
    const comments = await gh.paginate(gh.rest.issues.listComments, { ...base, issue_number: n, per_page: 100 });
    const prefix = `agent/${n}-`;
    out.push({
      number: n,
      title: issue.title,
      state: issue.state as "open" | "closed",
      labels: issue.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))),
      assignees: (issue.assignees ?? []).map((a) => a.login),
      comments: comments.map((c) => ({
        id: String(c.id),
        body: c.body ?? "",
        author: c.user?.login ?? "ghost",
        createdAt: c.created_at,
        updatedAt: c.updated_at,
        url: c.html_url,
      })),
      prs: pulls
        .filter((p) => p.head.ref.startsWith(prefix))
        .map((p) => ({ number: p.number, state: p.state, merged: !!p.merged_at, head: p.head.ref, draft: !!p.draft })),
    });
  }
  return out;
}

export function currentHandoffs(v: TicketView): string[] {
  return v.comments.filter((c) => c.body.startsWith(HANDOFF_MARKER) && !c.body.includes(HANDOFF_HISTORY)).map((c) => c.body);
}

export function endingOf(v: TicketView): Ending {
  const merged = v.prs.filter((p) => p.merged);
  if (v.state === "closed" && merged.length > 0) return "merged";
  if (v.state === "open" && v.labels.includes("ready-for-human") && !v.labels.includes("in-progress")) return "handed-off";
  if (v.state === "open" && v.labels.includes("ready-for-agent") && !v.labels.includes("in-progress") && v.assignees.length === 0) return "released";
  return "unfinished";
}

/** The reason line of a current hand-off comment ("- Failure: ..."). */
export function handoffReason(body: string): string {
  return /^- Failure: (.+)$/m.exec(body)?.[1]?.trim() ?? "";
}

export function checkEndings(views: TicketView[]): string[] {
  const bad: string[] = [];
  for (const v of views) {
    const ending = endingOf(v);
    const merged = v.prs.filter((p) => p.merged).length;
    const handoffs = currentHandoffs(v);
    if (ending === "merged") {
      if (merged !== 1) bad.push(`#${v.number} merged ${merged} times`);
      if (handoffs.length > 0) bad.push(`#${v.number} is merged but still carries a current hand-off comment`);
    } else if (ending === "handed-off") {
      if (merged > 0) bad.push(`#${v.number} is handed off but also has a merged PR`);
      if (handoffs.length !== 1) bad.push(`#${v.number} is handed off with ${handoffs.length} current hand-off comments`);
      else if (!handoffReason(handoffs[0]!)) bad.push(`#${v.number} is handed off without a reason`);
    } else {
      bad.push(`#${v.number} did not end: ${v.state}, labels [${v.labels.join(", ")}], assignees [${v.assignees.join(", ")}]`);
    }
  }
  return bad;
}

export function checkOpenPrs(views: TicketView[]): string[] {
  return views.flatMap((v) => {
    const open = v.prs.filter((p) => p.state === "open");
    return open.length > 1 ? [`#${v.number} has ${open.length} open PRs: ${open.map((p) => `#${p.number} (${p.head})`).join(", ")}`] : [];
  });
}

export function checkLeases(t: ChaosTarget, views: TicketView[], now = new Date()): string[] {
  const bad: string[] = [];
  for (const v of views) {
    const { candidates } = parseComments(v.comments, t.full, v.number);
    const s = standings(candidates, now);
    for (const r of [...s.live, ...s.stale])
      bad.push(`#${v.number}: lease ${r.comment.url} still claims (${r.lease?.state}, run ${r.lease?.run}) with no Run running`);
  }
  return bad;
}

export interface PushAudit {
  pushed: number;
  direct: number;
  rebased: number;
  lost: string[];
}

/** Every commit ever pushed to agent/*, against what the remote keeps now. */
export async function auditPushes(world: ChaosWorld, t: ChaosTarget): Promise<PushAudit> {
  const pushed = new Set(
    world
      .refUpdates(t)
      .filter((u) => u.ref.startsWith("refs/heads/agent/") && u.after)
      .map((u) => u.after),
  );
  // A merged pull request's head stays at refs/pull/N/head after its branch is deleted, on GitHub
  // as in the sandbox: "Restore branch" brings it back, so its commits are kept, not lost.
  const keptRefs = (await gitOut(t.gitDir, ["for-each-ref", "--format=%(refname)", "refs/heads/", "refs/pull/"]))
    .split("\n")
    .filter((r) => r && !r.startsWith("refs/heads/ticket-runner/"));
  const reachable = new Set((await gitOut(t.gitDir, ["rev-list", ...keptRefs])).split("\n").filter(Boolean));
  const keyOf = "%an%x1f%ae%x1f%ad%x1f%B%x1e";
  const keys = new Set(
    (await gitOut(t.gitDir, ["log", "--date=raw", `--format=${keyOf}`, ...keptRefs]))
      .split("\x1e")
      .map((k) => k.trim())
      .filter(Boolean),
  );
  const audit: PushAudit = { pushed: pushed.size, direct: 0, rebased: 0, lost: [] };
  for (const sha of pushed) {
    if (reachable.has(sha)) {
      audit.direct += 1;
      continue;
    }
    if (!(await gitOk(t.gitDir, ["cat-file", "-e", `${sha}^{commit}`]))) {
      audit.lost.push(`${sha.slice(0, 12)}: pushed, and no longer even in the remote's object store`);
      continue;
    }
    const key = (await gitOut(t.gitDir, ["log", "-1", "--date=raw", `--format=${keyOf}`, sha])).split("\u001e")[0]!.trim();
    if (keys.has(key)) {
      audit.rebased += 1;
      continue;
    }
    const subject = (await gitOut(t.gitDir, ["log", "-1", "--format=%s", sha])).slice(0, 60);
    audit.lost.push(`${sha.slice(0, 12)} "${subject}": pushed to agent/*, reachable from no kept branch, and no rebased copy is`);
  }
  return audit;
}

/** Every State file on the remote: each ticket's own ref, and the old shared branch an older version kept. */
export async function stateFilesOn(gitDir: string): Promise<string[]> {
  const names: string[] = [];
  const refs = (await gitOut(gitDir, ["for-each-ref", "--format=%(refname)", "refs/ticket-runner/state/"])).split("\n").filter(Boolean);
  for (const ref of refs) names.push(...(await gitOut(gitDir, ["ls-tree", "--name-only", ref])).split("\n").filter(Boolean));
  if (await gitOk(gitDir, ["rev-parse", "--verify", "-q", "refs/heads/ticket-runner/state"])) {
    names.push(...(await gitOut(gitDir, ["ls-tree", "--name-only", "refs/heads/ticket-runner/state"])).split("\n").filter(Boolean));
  }
  return names.filter((n) => /^ticket-\d+\.json$/.test(n));
}

export async function checkStateFiles(t: ChaosTarget, views: TicketView[]): Promise<string[]> {
  const bad: string[] = [];
  for (const name of await stateFilesOn(t.gitDir)) {
    const m = /^ticket-(\d+)\.json$/.exec(name);
    if (!m) continue;
    const v = views.find((x) => x.number === Number(m[1]));
    if (v?.state === "closed") bad.push(`State file ${name} outlives its closed issue`);
  }
  return bad;
}

export async function checkLock(t: ChaosTarget): Promise<string[]> {
  // The shared branch (lock.json, and older versions' per-host files) and each Host's own branch (ADR 0450).
  const branches = (await gitOut(t.gitDir, ["for-each-ref", "--format=%(refname)", "refs/heads/ticket-runner/lock", "refs/heads/ticket-runner/locks/"]))
    .split("\n")
    .filter(Boolean);
  const bad: string[] = [];
  for (const ref of branches) {
    const names = (await gitOut(t.gitDir, ["ls-tree", "--name-only", ref])).split("\n").filter((n) => /^lock(-.+)?\.json$/.test(n));
    for (const name of names) {
      const text = await gitOut(t.gitDir, ["show", `${ref}:${name}`]);
      try {
        if ((JSON.parse(text) as { held?: unknown }).held !== false) bad.push(`${name} on ${ref} is still held: ${text.replace(/\s+/g, " ").slice(0, 160)}`);
      } catch {
        bad.push(`${name} on ${ref} is not JSON: ${text.slice(0, 80)}`);
      }
    }
  }
  return bad;
}

/** No comment with a marker posted twice: lease and progress comments at most once per claim/Run section. */
export function duplicateMarkers(views: TicketView[]): string[] {
  const bad: string[] = [];
  for (const v of views) {
    const bodies = v.comments.map((c) => c.body);
    const counts = new Map<string, number>();
    for (const b of bodies) counts.set(b, (counts.get(b) ?? 0) + 1);
    for (const [body, n] of counts)
      if (n > 1 && body.startsWith("<!-- ticket-runner:")) bad.push(`#${v.number}: the same marker comment appears ${n} times: ${body.split("\n")[0]}`);
    const progress = bodies.filter((b) => b.startsWith("<!-- ticket-runner:progress -->")).length;
    const handoff = bodies.filter((b) => b.startsWith(HANDOFF_MARKER)).length;
    if (progress > 1) bad.push(`#${v.number}: ${progress} progress comments`);
    if (handoff > 1) bad.push(`#${v.number}: ${handoff} hand-off comments`);
  }
  return bad;
}

/** Work done twice: implement Stages beyond one per ticket (progress rows) and pull requests beyond one. */
export function duplicateWork(views: TicketView[]): number {
  let extra = 0;
  for (const v of views) {
    const implementRows = v.comments.map((c) => (c.body.match(/^\| implement \|/gm) ?? []).length).reduce((a, b) => a + b, 0);
    extra += Math.max(0, implementRows - 1) + Math.max(0, v.prs.length - 1);
  }
  return extra;
}
