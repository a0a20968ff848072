/**
 * How a ticket ends: Hand-off, Release, and the clean-up after a merge. The order of each is the
 * order of docs/endings.md; every step is best effort and logged, so a failure in one never costs the
 * relabel at the end (a Ticket stuck `in-progress` with nobody working it is the worst outcome).
 */
import { inertReferences } from "../inert-text";
import type { PullRequestInfo } from "../../ports/tracker";
import type { RunEnv, TicketCtx } from "./context";
import { endStage, errorText, recordState, removeState } from "./context";
import { tickCriteria, uncheckedCriteria } from "./criteria";
import { handoffComment } from "./handoff-comment";
import { stillHolds } from "./stages";
import { prBody } from "./pr-body";

export interface HandoffInput {
  stage: string;
  line: string;
  evidence: string;
  /** keep: the pipeline's work is on the branch. remove: no Stage of this Run worked there (ADR 0034). */
  state: "keep" | "remove";
  /** A worktree to name when there is no lane of ours: where a branch in the way is checked out. */
  worktree?: string | null;
}

async function step<T>(env: RunEnv, ctx: TicketCtx, what: string, work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (error) {
    env.deps.log.warn(`#${ctx.ticket}: hand-off: ${what} failed`, { error: errorText(error) });
    return null;
  }
}

export async function handOff(env: RunEnv, ctx: TicketCtx, input: HandoffInput): Promise<void> {
  // A hand-off is the holder's: a Run taken over meanwhile posts no comment and opens no draft.
  if (!(await stillHolds(env, ctx, "the hand-off"))) return;
  const { tracker, workspace, gate, log } = env.deps;
  const fixBudgetUsed = ctx.fixUsed;
  log.warn(`#${ctx.ticket}: handing off at ${input.stage}: ${input.line}`);

  // 1. A pull request: the open one back to draft, or a new draft when this Run may push.
  // Where no Stage of this Run worked on the branch, any pull request on it may be a person's: leave it be.
  let closedByPerson = false;
  let pr: PullRequestInfo | null =
    input.state === "remove"
      ? null
      : await step(env, ctx, "finding the pull request", async () => {
          const known = ctx.pullRequest ? await tracker.getPullRequest(ctx.pullRequest) : null;
          if (known && known.state === "open") return known;
          // A pull request a person closed said the work should not go on: no new draft over it.
          closedByPerson = Boolean(known && known.state === "closed" && !known.merged);
          return await tracker.findPullRequest(ctx.branch);
        });
  if (pr && pr.state === "open") {
    if (!pr.draft) {
      const toDraft = await step(env, ctx, "returning the pull request to draft", async () => {
        await tracker.setDraft(pr!.number, true);
        return true;
      });
      if (toDraft) pr = { ...pr, draft: true };
    }
  } else if (input.state === "keep" && ctx.lane && ctx.mayPush && !closedByPerson) {
    pr = null;
    const ahead = await step(env, ctx, "counting commits", () => workspace.commitsAhead(ctx.lane!, env.base));
    if (ahead && ahead > 0) {
      const pushed = await step(env, ctx, "pushing the branch", () => workspace.push(ctx.lane!));
      if (pushed?.ok) ctx.remoteHasBranch = true;
      if (ctx.remoteHasBranch) {
        pr = await step(env, ctx, "opening a draft pull request", () =>
          tracker.createPullRequest({
            head: ctx.branch,
            base: env.base,
            title: inertReferences(ctx.issue.title),
            body: prBody({
              ticket: ctx.ticket,
              summary: null,
              graded: ctx.graded,
              draftNote: "**Handed off** to a person; see the hand-off comment on the issue.",
            }),
            draft: true,
          }),
        );
      }
    }
  } else {
    pr = null;
  }
  if (pr) ctx.pullRequest = pr.number;

  // 2. The State file: kept with the draft in it and the Fix budget unspent, or removed.
  // A person takes over: the agent sessions of this take-up are not continued after it.
  if (input.state === "keep") await recordState(env, ctx, "hand-off", { fixUsed: false, sessions: undefined, sessionsOn: undefined });
  else await removeState(env, ctx.ticket, "hand-off where no Stage of this Run worked on the branch");

  // 3. The transcripts, onto the state branch. 4. The draft's body names them.
  let transcripts: string | null = null;
  if (input.state === "keep") {
    const files = workspace.keptLogFiles(ctx.ticket, env.runId);
    if (files.length > 0) {
      const kept = await step(env, ctx, "keeping the transcripts", async () => {
        await workspace.keepTranscripts(ctx.ticket, env.runId, files);
        return true;
      });
      if (kept) transcripts = `ticket-${ctx.ticket}/${env.runId}/`;
    }
  }
  if (pr && transcripts) {
    await step(env, ctx, "naming the transcripts in the draft", () =>
      tracker.updatePullRequest(pr!.number, {
        body: prBody({
          ticket: ctx.ticket,
          summary: null,
          graded: ctx.graded,
          transcripts,
          draftNote: "**Handed off** to a person; see the hand-off comment on the issue.",
        }),
      }),
    );
  }

  // "On the remote" only when the remote really has the branch.
  const onRemote = await step(env, ctx, "asking the remote for the branch", async () => ({ sha: await workspace.remoteBranchSha(ctx.branch) }));
  if (onRemote) ctx.remoteHasBranch = onRemote.sha !== null;

  // 5. The comment. 6. The relabel, through the claim protocol.
  await endStage(env, ctx, { stage: input.stage, outcome: "🙋 handed off", turns: null, durationMs: null });
  await ctx.progress.flush();
  const body = handoffComment({
    ticket: ctx.ticket,
    stage: input.stage,
    fixBudgetUsed,
    line: input.line,
    branch: ctx.branch,
    remoteHasBranch: ctx.remoteHasBranch,
    worktree: ctx.lane?.path ?? input.worktree ?? null,
    pullRequest: pr ? { number: pr.number, draft: pr.draft } : null,
    transcripts,
    evidence: input.evidence,
  });
  await step(env, ctx, "posting the hand-off comment", () => tracker.createComment(ctx.ticket, body));
  await step(env, ctx, "relabelling to ready-for-human", () => gate.handOff(ctx.claim));
}

/**
 * Release on a rate limit: the row is the whole report, the State brought up to date, the Claim
 * undone (ready-for-agent on, in-progress off, unassigned last, by the gate). No comment, no draft.
 */
export async function release(env: RunEnv, ctx: TicketCtx, stage: string, why = "rate limited"): Promise<void> {
  if (why === "rate limited") env.flags.rateLimited = true;
  if (!(await stillHolds(env, ctx, "the release"))) return;
  env.deps.log.warn(`#${ctx.ticket}: ${why} at ${stage}; releasing it and claiming nothing more`);
  await ctx.progress.flush();
  await recordState(env, ctx, "release");
  try {
    await env.deps.gate.release(ctx.claim, { limitResetsAt: why === "rate limited" ? ctx.limitResetsAt : null });
  } catch (error) {
    env.deps.log.error(`#${ctx.ticket}: could not release the claim`, { error: errorText(error) });
  }
}

/**
 * After the merge: tick met criteria, in-progress off, State and worktree gone, branch deleted. It
 * runs off the Lane's path (ADR 0485): the Lane picks its next ticket meanwhile, and the Run waits for
 * it before it ends. Side by side where nothing orders them: the progress comment, the criteria and
 * the claim's finish touch different things, then the issue's closing and the clean-up. The State
 * record goes only after the finish: it is the sweep's one pointer back to a claim a kill left on the
 * closed issue (sweep.ts), so a kill anywhere here leaves what the next sweep tidies, as before.
 * Never throws: every step is logged on its own.
 */
export async function afterMerge(env: RunEnv, ctx: TicketCtx): Promise<void> {
  const { tracker, workspace, gate, log } = env.deps;
  const met = new Set((ctx.graded ?? []).filter((g) => g.verdict === "met").map((g) => g.criterion.text));
  /** The issue as the tick read it, after the merge: closed there needs no read of its own. */
  let closedAtTick = false;
  await Promise.all([
    ctx.progress.flush(),
    met.size > 0
      ? step(env, ctx, "ticking the met criteria", async () => {
          const fresh = await tracker.getIssue(ctx.ticket);
          if (!fresh) return;
          closedAtTick = fresh.state === "closed";
          const lines = uncheckedCriteria(fresh.body)
            .filter((c) => met.has(c.text))
            .map((c) => c.line);
          if (lines.length) await tracker.setIssueBody(ctx.ticket, tickCriteria(fresh.body, lines));
        })
      : null,
    step(env, ctx, "finishing the claim", () => gate.finish(ctx.claim)),
  ]);
  const closing = closedAtTick
    ? null
    : step(env, ctx, "closing the issue", async () => {
        const fresh = await tracker.getIssue(ctx.ticket);
        if (fresh?.state === "open") await tracker.closeIssue(ctx.ticket);
      });
  // The State record goes first, in the branch's deletion push when it can (ADR 0431), else on its own.
  let stateRemoved = false;
  if (ctx.lane) {
    const lane = ctx.lane;
    const cleaned = await step(env, ctx, "removing the worktree and branch", () =>
      workspace.cleanupLane(lane, { deleteRemote: true, base: env.base, mergedHead: ctx.mergedHead ?? undefined, removeState: ctx.ticket }),
    );
    if (cleaned) log.info(`#${ctx.ticket}: clean-up: ${cleaned.detail}`);
    stateRemoved = cleaned?.stateRemoved === true;
    if (stateRemoved) log.info(`#${ctx.ticket}: State file removed (merged), with the branch`);
  }
  if (!stateRemoved) await removeState(env, ctx.ticket, "merged");
  await closing;
  log.info(`#${ctx.ticket}: merged`);
}
