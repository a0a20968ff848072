/**
 * The Frontier: open `ready-for-agent` issues nobody holds and nothing blocks, lowest number first.
 * A `ready-for-agent` label counts only when someone with write access applied it (ADR 0042).
 */
import type { Log } from "../../ports/log";
import type { Tracker, TrackerIssue } from "../../ports/tracker";
import type { Config } from "../schemas/config";
import type { TrustCheck } from "./context";
import { frontierHold, holdReason, readyLabelCheck } from "./holds";

/** The default trust rule: the latest actor to apply the ready label has write access. Cached per user. */
export function labelTrust(tracker: Tracker, readyLabel: string, log: Log): TrustCheck {
  const check = readyLabelCheck(tracker, readyLabel, log);
  return async (issue) => (await check(issue)).trusted;
}

export type Eligibility = { ok: true } | { ok: false; reason: string };

/** Why an open issue is not on the Frontier, or ok: the rules of holds.ts, as the Run's skip line. */
export async function eligibility(tracker: Tracker, config: Config, trust: TrustCheck, issue: TrackerIssue): Promise<Eligibility> {
  const hold = await frontierHold(tracker, config, async (i) => ({ trusted: await trust(i) }), issue);
  return hold ? { ok: false, reason: holdReason(hold) } : { ok: true };
}

/** The widest a Run's spread over the head of the Frontier grows (ADR 0182). */
export const MAX_SPREAD = 16;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * The order a Run tries the Frontier in (ADR 0182): one of the `window` lowest first, chosen by
 * `key` (Host, Run and pick), then the rest lowest first. Hosts that share a Frontier then reach for
 * different tickets instead of all for the lowest; with a window of 1 it is the Frontier's own order.
 */
export function spreadOrder<T>(lowestFirst: T[], window: number, key: string): T[] {
  const w = Math.min(Math.max(1, Math.floor(window)), lowestFirst.length);
  if (w <= 1) return lowestFirst;
  const start = fnv1a(key) % w;
  const head = lowestFirst.slice(0, w);
  return [...head.slice(start), ...head.slice(0, start), ...lowestFirst.slice(w)];
}

/**
 * The order of a Run's first fill when other Hosts' Runs started with it (ADR 0441): from the
 * ticket `anchor` on, lowest first, then back to the lowest it passed over. The anchor is a ticket
 * number, not a place in the list, so that the other Runs' claims landing meanwhile (their tickets
 * leave the Frontier) do not move it.
 */
export function firstFillOrder<T extends { number: number }>(lowestFirst: T[], anchor: number): T[] {
  return [...lowestFirst.filter((i) => i.number >= anchor), ...lowestFirst.filter((i) => i.number < anchor)];
}

/** When a Run started, and its id. */
export interface RunStart {
  startedAt: string;
  runId: string;
}

/**
 * Where a Run's first picks start (ADR 0441): the Frontier as the Run saw it as it started
 * (`snapshot`, lowest first, read before any Run started with it could claim), and the starts of
 * the other Hosts' Runs its lock showed. Those started before it and within `START_TOGETHER_MS` of it
 * reach for the head of that Frontier, `lanes` tickets each, so this one starts
 * past them (at most `MAX_SPREAD - 1` places in, wrapping on a short Frontier); the first of them
 * at the lowest. null: no Run started with it.
 */
export function firstFillAnchor(snapshot: number[], peers: RunStart[], me: RunStart, lanes: number): number | null {
  const company = startedTogether(peers, me);
  if (!company || snapshot.length === 0) return null;
  // The first of them (it may see the others since ADR 0450) starts at the lowest, strictly.
  const offset = Math.min(company.rank * lanes, MAX_SPREAD - 1);
  return snapshot[offset % snapshot.length]!;
}

/**
 * The Runs started within `START_TOGETHER_MS` of `me`, itself included, and its place among them by
 * start (0: first). Only those started before it count for its place: each Run may see Runs
 * started after it too (ADR 0450), and those start past it, not it past them. null: none but it.
 */
function startedTogether(peers: RunStart[], me: RunStart): { runs: number; rank: number } | null {
  const mine = Date.parse(me.startedAt);
  const together = peers.filter((p) => Math.abs(Date.parse(p.startedAt) - mine) <= START_TOGETHER_MS);
  if (together.length === 0) return null;
  return { runs: together.length + 1, rank: together.filter((p) => startedBefore(p, me)).length };
}

/**
 * The tickets a Run prefers after its first fill (ADR 0451): of the Frontier as it started
 * (`snapshot`), the places that fall to it when the Runs started together take `lanes` places each
 * in turn, in their order of start: its first fill, then the same places a round later, and so on.
 * Runs started together and kept in step by Stages of equal length free their Lanes at the same
 * moments; each then reaches for its own next places instead of all for the lowest. null: alone.
 */
export function stripeOf(snapshot: number[], peers: RunStart[], me: RunStart, lanes: number): ReadonlySet<number> | null {
  const company = startedTogether(peers, me);
  if (!company || lanes < 1) return null;
  return new Set(snapshot.filter((_, place) => Math.floor(place / lanes) % company.runs === company.rank));
}

/**
 * The order of a pick after the first fill when the Run has a stripe (ADR 0451): its own tickets
 * among the `window` lowest, lowest first, then `rest` (the usual spread order). The window keeps a
 * Run's priority order: a ticket of another Run's stripe that nobody takes (its Run died) is passed
 * over only until it is among the lowest `window` with no own ticket beside it.
 */
export function stripeOrder<T extends { number: number }>(lowestFirst: T[], stripe: ReadonlySet<number>, window: number, rest: (items: T[]) => T[]): T[] {
  const own = lowestFirst.slice(0, window).filter((i) => stripe.has(i.number));
  const ownSet = new Set(own);
  return [...own, ...rest(lowestFirst.filter((i) => !ownSet.has(i)))];
}

/** Whether `p` started before `me` (the run id breaks a tie, the same way from both sides). */
function startedBefore(p: RunStart, me: RunStart): boolean {
  const d = Date.parse(p.startedAt) - Date.parse(me.startedAt);
  return d < 0 || (d === 0 && p.runId < me.runId);
}

/** The Frontier's ticket numbers, lowest first, or null when it cannot be read now (the Run's own reads say why later). */
export async function frontierSnapshot(tracker: Tracker, config: Config): Promise<number[] | null> {
  try {
    return (await frontierCandidates(tracker, config, new Set())).map((i) => i.number);
  } catch {
    return null;
  }
}

/** Runs whose starts are this close started together: they pick their first tickets at the same moment (ADR 0441). */
export const START_TOGETHER_MS = 60_000;

/** Open ready issues, lowest number first, not in `exclude`. The list is asked again each call: other Hosts move it. */
export async function frontierCandidates(tracker: Tracker, config: Config, exclude: ReadonlySet<number>): Promise<TrackerIssue[]> {
  const open = await tracker.listOpenIssues([config.labels.ready]);
  return open.filter((i) => !exclude.has(i.number)).sort((a, b) => a.number - b.number);
}
