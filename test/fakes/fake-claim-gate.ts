/**
 * A ClaimGate over a FakeGitHub client, for core unit tests of the Run. It keeps the board side of
 * the protocol (labels, assignee) so sweeps and Frontiers see what a real claim leaves, and records
 * every call in order. The real protocol (leases, races) is src/core/claims/, tested on its own.
 */
import type { ClaimAttempt, ClaimGate, HeldClaim } from "../../src/core/claim-gate";
import type { Tracker } from "../../src/ports/tracker";
import type { Clock } from "../../src/ports/clock";
import type { NotedSessions } from "../../src/core/schemas/run-json";

export interface GateLabels {
  ready: string;
  inProgress: string;
  human: string;
}

export class FakeClaimGate implements ClaimGate {
  readonly calls: string[] = [];
  /** What heartbeat() answers for a ticket. */
  heartbeatAnswer: (ticket: number) => "held" | "yield" = () => "held";
  /** What markStage() answers for a ticket and Stage. */
  markStageAnswer: (ticket: number, stage: string) => "held" | "yield" = () => "held";
  /** Overrides claim() for a ticket: return an attempt, or null for the normal path. */
  claimOverride: (ticket: number) => ClaimAttempt | null = () => null;
  private viewer: string | null = null;
  /** What noteSessions() wrote, per ticket: this Host's local claims, which outlive a killed Run and go with an adopt. */
  readonly noted = new Map<number, NotedSessions>();

  constructor(
    private readonly tracker: Tracker,
    private readonly clock: Clock,
    private readonly labels: GateLabels = { ready: "ready-for-agent", inProgress: "in-progress", human: "ready-for-human" },
  ) {}

  private async me(): Promise<string> {
    this.viewer ??= await this.tracker.viewer();
    return this.viewer;
  }

  private held(ticket: number, user: string): HeldClaim {
    const now = this.clock.now();
    return {
      ticket,
      commentId: "1",
      commentUrl: `https://github.test/issues/${ticket}#issuecomment-1`,
      runDir: `/tmp/fake-run-root/issue-${ticket}`,
      lease: {
        version: 1,
        repo: `${this.tracker.repo.owner}/${this.tracker.repo.repo}`,
        issue: ticket,
        host: { id: "host-a", name: "desk", kind: "workstation" },
        session: "session-1",
        run: "run-1",
        holder: "machine",
        user,
        claimedAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 45 * 60_000).toISOString(),
        nonce: "0123456789abcdef",
        state: "claimed",
      },
    };
  }

  async claim(ticket: number): Promise<ClaimAttempt> {
    this.calls.push(`claim #${ticket}`);
    const forced = this.claimOverride(ticket);
    if (forced) return forced;
    const user = await this.me();
    const issue = await this.tracker.getIssue(ticket);
    if (!issue || issue.state !== "open") return { kind: "lost", reason: "not open" };
    if (issue.assignees.length > 0 || issue.labels.includes(this.labels.inProgress))
      return { kind: "lost", reason: `claimed by ${issue.assignees.join(", ") || "someone"}` };
    await this.tracker.writeIssue(ticket, { addAssignees: [user], addLabels: [this.labels.inProgress], removeLabels: [this.labels.ready] });
    return { kind: "won", claim: this.held(ticket, user) };
  }

  async noteSessions(claim: HeldClaim, stages: Readonly<Record<string, string>>): Promise<void> {
    this.noted.set(claim.ticket, { stages: { ...stages }, at: this.clock.now().toISOString() });
  }

  async adopt(ticket: number): Promise<ClaimAttempt> {
    this.calls.push(`adopt #${ticket}`);
    const user = await this.me();
    const issue = await this.tracker.getIssue(ticket);
    if (!issue?.assignees.includes(user)) return { kind: "lost", reason: "not ours any more" };
    const noted = this.noted.get(ticket);
    return { kind: "won", claim: { ...this.held(ticket, user), ...(noted ? { sessions: noted } : {}) } };
  }

  async heartbeat(claim: HeldClaim): Promise<"held" | "yield"> {
    this.calls.push(`heartbeat #${claim.ticket}`);
    const answer = this.heartbeatAnswer(claim.ticket);
    if (answer === "yield") claim.stoodDown = { why: "an earlier claim turned up", wrote: "nothing" };
    return answer;
  }

  async markStage(claim: HeldClaim, stage: string): Promise<"held" | "yield"> {
    this.calls.push(`markStage #${claim.ticket} ${stage}`);
    const answer = this.markStageAnswer(claim.ticket, stage);
    if (answer === "yield") claim.stoodDown = { why: "a take-over displaced our lease", wrote: "nothing" };
    return answer;
  }

  async finish(claim: HeldClaim): Promise<void> {
    this.calls.push(`finish #${claim.ticket}`);
    await this.tracker.writeIssue(claim.ticket, { removeLabels: [this.labels.inProgress] });
  }

  async release(claim: HeldClaim): Promise<void> {
    this.calls.push(`release #${claim.ticket}`);
    const user = await this.me();
    await this.tracker.writeIssue(claim.ticket, { addLabels: [this.labels.ready], removeLabels: [this.labels.inProgress], removeAssignees: [user] });
  }

  async handOff(claim: HeldClaim): Promise<void> {
    this.calls.push(`handOff #${claim.ticket}`);
    const user = await this.me();
    await this.tracker.writeIssue(claim.ticket, { addLabels: [this.labels.human], removeLabels: [this.labels.inProgress], removeAssignees: [user] });
  }
}
