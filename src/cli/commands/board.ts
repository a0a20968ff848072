/**
 * `ticket-runner board [--json]`: the Target's tickets with their claim state, read through the
 * claims parser (trusted leases only) plus this Host's run directories. A plain table for now;
 * the shared board model (src/core/board/) can take over the rendering.
 */
import { FsRunRoot } from "../../adapters/fs-run-root";
import { NodeHost } from "../../adapters/node-host";
import type { CliCommand } from "../command";
import { wireClaims } from "../claim-wiring";
import { parseArgs, resolveTarget } from "../target-options";

const USAGE = `ticket-runner board [--json] [--repo owner/name] [--api-url <url>]

Lists open tickets (ready-for-agent, in-progress, ready-for-human) with who holds each (live,
stale, person), the lease link, and run directories on this Host. --json prints the same as JSON.`;

export interface BoardRowJson {
  number: number;
  title: string;
  labels: string[];
  assignees: string[];
  claim: "free" | "live" | "stale" | "board-only";
  holder: { user: string; host: string; kind: "person" | "machine"; state: string; stage: string | null; expiresAt: string | null } | null;
  leaseUrl: string | null;
  localRun: string | null;
  ignored: { url: string; reason: string }[];
}

export const boardCommand: CliCommand = {
  name: "board",
  summary: "list tickets and who holds them",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: ["--json"] });
    const target = resolveTarget(args, io);
    const w = wireClaims(target, io, "person");
    const { labels } = target.config;
    const issues = await w.tracker.listOpenIssues([labels.ready, labels.inProgress, labels.human]);
    const local = new Map((await new FsRunRoot(target.runRoot).list(target.repo)).map((r) => [r.ticket, r]));
    const hostId = new NodeHost({ env: io.env }).identity().id;
    const rows: BoardRowJson[] = [];
    for (const issue of issues) {
      const reading = await w.gate.read(issue.number);
      const rec = reading.standing.winner ?? reading.standing.stale[0] ?? null;
      const l = rec?.lease ?? null;
      const run = local.get(issue.number);
      rows.push({
        number: issue.number,
        title: issue.title,
        labels: issue.labels,
        assignees: issue.assignees,
        claim: reading.standing.winner ? "live" : reading.standing.stale[0] ? "stale" : issue.labels.includes(labels.inProgress) ? "board-only" : "free",
        holder: l ? { user: rec!.comment.author, host: l.host.id === hostId ? `${l.host.name} (this Host)` : l.host.name, kind: l.holder, state: l.state, stage: l.stage ?? null, expiresAt: l.expiresAt } : null,
        leaseUrl: rec?.comment.url ?? null,
        localRun: run && run.read.kind === "ok" ? run.dir : null,
        ignored: reading.ignored.map((g) => ({ url: g.url, reason: g.reason })),
      });
    }
    if (args.flags.has("--json")) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    if (rows.length === 0) {
      io.out(`No open tickets on ${target.repo.owner}/${target.repo.repo}.`);
      return 0;
    }
    for (const r of rows) {
      const who = r.holder ? `${r.holder.kind} @${r.holder.user} on ${r.holder.host}${r.holder.stage ? ` · ${r.holder.stage}` : ""}${r.holder.expiresAt ? ` · expires ${r.holder.expiresAt.slice(0, 16).replace("T", " ")} UTC` : ""}` : "";
      io.out(`#${String(r.number).padEnd(5)} ${r.claim.padEnd(10)} ${r.title.slice(0, 50).padEnd(50)} ${who}`);
      if (r.leaseUrl) io.out(`        lease ${r.leaseUrl}`);
      if (r.localRun) io.out(`        run   ${r.localRun}`);
    }
    return 0;
  },
};
