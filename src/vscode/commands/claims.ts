import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { GitWorkspace } from "../../adapters/git/git-workspace";
import { keptBranchNote } from "../../adapters/git/kept-branch";
import { NodeHost } from "../../adapters/node-host";
import { holderText } from "../../core/claims/refusals";
import { sameUser } from "../../core/claims/claim-endings";
import { handBackTicket } from "../../core/claims/hand-back";
import type { HeldClaim } from "../../core/claim-gate";
import { Refusal } from "../../core/errors";
import type { Config } from "../../core/schemas/config";
import type { CommandServices } from "../run-command";
import { personClaims, type PersonClaims } from "../run/claims-wiring";
import { loadConfigOrDefaults } from "../../app/config-load";
import { requireTicket, ticketFromArgs } from "../run/ticket-args";
import { pickFrontierTicket } from "../run/ticket-picker";
import { resolveWindowTarget, type WindowTarget } from "../run/window-target";

interface Wired extends PersonClaims {
  readonly target: WindowTarget;
  readonly config: Config;
  readonly name: (n: number) => string;
}

async function wire(services: CommandServices): Promise<Wired> {
  const target = await resolveWindowTarget(services);
  const config = loadConfigOrDefaults(target.folder);
  return { ...personClaims(target, config, services.log), target, config, name: (n) => `${target.name}#${n}` };
}

function progress<T>(title: string, work: () => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, work);
}

/** A ticket the Run in this window holds cannot be changed underneath it. */
function refuseIfRunHolds(services: CommandServices, ticket: number, what: string): void {
  const view = services.runs.windowRun.view();
  if (!services.runs.windowRun.isActive() || !view?.busy.some((l) => l.ticket === ticket)) return;
  throw new Refusal(
    "run-active",
    `#${ticket} is being worked on by the Run in this window. ${what} would pull it from under a running Stage: Stop the Run first (the lane finishes), then try again.`,
  );
}

function refreshBoard(services: CommandServices): void {
  void services.board.refresh().catch((e: unknown) => services.log.warn(`board refresh failed: ${String(e)}`));
}

/** Claim: a person's claim (in-progress, assigned, a lease that never goes stale). No worktree is cut. */
export async function claim(services: CommandServices, ...args: unknown[]): Promise<void> {
  const n = ticketFromArgs(args) ?? (await pickFrontierTicket(services));
  if (n === undefined) throw new vscode.CancellationError();
  const w = await wire(services);
  const won = await progress(`Ticket Runner: claiming ${w.name(n)}…`, () => w.gate.take(n));
  refreshBoard(services);
  const aside = won.setAside ? ` ${won.setAside.note}` : "";
  services.notifier.info(
    `Ticket Runner: claimed ${w.name(n)} for ${won.viewer}. A person's claim does not expire; Start on Ticket works on it, Release puts it back.${aside}`,
    [{ title: "Open the Lease", run: () => services.links.open(won.claim.commentUrl) }],
  );
}

/** Take Over…: displaces a live claim, after a confirmation naming what is displaced and where it goes. */
export async function takeOver(services: CommandServices, ...args: unknown[]): Promise<void> {
  const n = requireTicket(args, "Take Over");
  refuseIfRunHolds(services, n, "Taking it over");
  const w = await wire(services);
  const reading = await progress(`Ticket Runner: reading the claims on ${w.name(n)}…`, () => w.gate.read(n));
  const now = new Date();
  const others = [...reading.standing.live, ...reading.standing.stale];
  const dir = w.runRoot.dirFor(w.target.repo, n);
  const local = existsSync(join(dir, "run.json"));
  const held = others.length
    ? others.map((r) => `• ${holderText(r, now)}\n  Lease: ${r.comment.url}`).join("\n")
    : "• Nobody holds a live lease on it now (the take-over still checks again).";
  const detail = [
    `Displaced:\n${held}`,
    `Each displaced lease is marked superseded on the issue (its text kept below the marker).${local ? ` This Host's run directory ${dir} moves to ${join(dir, "superseded", "<timestamp>")}/.` : " This Host has no run directory for it, so nothing moves here."}`,
    "Nothing is deleted: branches, pushed commits and transcripts stay. The ticket becomes your claim, held by a person (it never goes stale).",
  ].join("\n\n");
  const answer = await services.notifier.confirm(`Take over ${w.name(n)}?`, detail, ["Take Over"]);
  if (answer !== "Take Over") throw new vscode.CancellationError();
  const won = await progress(`Ticket Runner: taking over ${w.name(n)}…`, () => w.gate.take(n, { takeOver: true }));
  refreshBoard(services);
  const moved = won.archived ? ` The displaced local run is in ${won.archived}.` : "";
  services.notifier.info(`Ticket Runner: took over ${w.name(n)} (${won.displaced.length} lease${won.displaced.length === 1 ? "" : "s"} superseded).${moved}`, [
    { title: "Open the Lease", run: () => services.links.open(won.claim.commentUrl) },
  ]);
}

/** Release: back on the Frontier (ready-for-agent on, in-progress off, unassigned last); the local run moved aside. */
export async function release(services: CommandServices, ...args: unknown[]): Promise<void> {
  const n = requireTicket(args, "Release");
  refuseIfRunHolds(services, n, "Releasing it");
  const w = await wire(services);
  const report = await progress(`Ticket Runner: releasing ${w.name(n)}…`, () => w.gate.releaseByHand(n));
  refreshBoard(services);
  // What release kept (worktree, branch) and what a Run here does with them: the CLI's words (ADR 0121).
  const kept = report.branch
    ? await keptBranchNote({
        ticket: n,
        branch: report.branch,
        worktree: report.worktree,
        checkout: w.target.folder,
        base: async () => w.config.base ?? (await w.tracker.defaultBranch()),
        host: new NodeHost({ env: process.env }),
        token: w.target.token,
        env: process.env,
        log: services.log,
      })
    : null;
  const [drop, dropRemote] = kept?.commands ?? [];
  const copy = (title: string, command: string | undefined) => (command ? [{ title, run: () => vscode.env.clipboard.writeText(command) }] : []);
  services.notifier.info(`Ticket Runner: ${report.summary.replace(/\n/g, " ")}${kept ? ` ${kept.text}` : ""}`, [
    ...copy("Copy Command", drop),
    ...copy("Copy Remote Command", dropRemote),
  ]);
}

/**
 * Hand Off to a Person: gives a ticket you hold to a person, the way a Run's Hand-off does: lease
 * marked handed-off, ready-for-human on, in-progress off, you unassigned. Branch, State file and
 * local run are kept; Hand Back (ready-for-agent again) lets the next Run resume it.
 */
export async function handOff(services: CommandServices, ...args: unknown[]): Promise<void> {
  const n = requireTicket(args, "Hand Off to a Person");
  refuseIfRunHolds(services, n, "Handing it off");
  const w = await wire(services);
  await progress(`Ticket Runner: handing ${w.name(n)} off to a person…`, async () => {
    const reading = await w.gate.read(n);
    const mine = reading.standing.live.find((r) => sameUser(r.comment.author, reading.viewer));
    if (!mine?.lease) {
      throw new Refusal("not-ready", `${w.name(n)} holds no live claim of yours, so there is nothing to hand off. Nothing was changed.`, {
        link: reading.issue.url,
      });
    }
    const held: HeldClaim = {
      ticket: n,
      commentId: mine.comment.id,
      commentUrl: mine.comment.url,
      lease: mine.lease,
      runDir: w.runRoot.dirFor(w.target.repo, n),
    };
    await w.gate.handOff(held);
  });
  refreshBoard(services);
  services.notifier.info(
    `Ticket Runner: handed ${w.name(n)} off to a person: labelled ${w.config.labels.human}, you are unassigned. Its branch and State stay; Hand Back (or ticket-runner hand-back ${n}) lets the next Run resume it.`,
  );
}

/**
 * Hand Back (docs/endings.md): a "Needs a person" ticket goes back to the Runs: ready-for-human off,
 * ready-for-agent on, nothing else. The checks and words are core's (the CLI's hand-back uses them).
 */
export async function handBack(services: CommandServices, ...args: unknown[]): Promise<void> {
  const n = requireTicket(args, "Hand Back");
  const w = await wire(services);
  // The State file is read only to name where the next Run resumes.
  const readState = (t: number) =>
    new GitWorkspace({ root: w.target.folder, host: new NodeHost({ env: process.env }), token: w.target.token, env: process.env }).readState(t);
  const deps = { tracker: w.tracker, labels: w.config.labels, repoName: w.target.name, readState, log: services.log };
  const result = await handBackTicket(deps, n, {
    confirm: async (plan) => {
      const detail = `${w.config.labels.human} comes off and ${w.config.labels.ready} goes on; ${plan.next}. Assignees and the State file stay as they are.`;
      return (await services.notifier.confirm(`Hand ${w.name(n)} back to the Runs?`, detail, ["Hand Back"])) === "Hand Back";
    },
  });
  if (result.kind === "cancelled") throw new vscode.CancellationError();
  refreshBoard(services);
  services.notifier.info(`Ticket Runner: handed ${w.name(n)} back: labelled ${w.config.labels.ready}; ${result.plan.next}.`, [
    { title: "Open Issue", run: () => services.links.open(result.plan.issueUrl) },
  ]);
}
