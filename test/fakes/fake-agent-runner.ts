/**
 * A scripted AgentRunner for core unit tests. Each Stage call is answered by the first matching
 * script entry (ticket + stage, used once unless `repeat`), else by the default for that Stage:
 * implement and fix commit and answer a title; verify grades every criterion met; conflict
 * finishes the rebase. It writes `.command` and `.transcript.jsonl` like the real runners do.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AgentRunner, StageName, StageRequest, StageResult } from "../../src/ports/agent-runner";
import type { FakeWorkspace } from "./fake-workspace";

export interface AgentAct {
  request: StageRequest;
  workspace: FakeWorkspace;
  /** Commits on the ticket's lane. */
  commit(label?: string): void;
  /** The criteria lines of the verify prompt, in order. */
  criteria(): string[];
}

export type AgentScript = (act: AgentAct) => Partial<StageResult> | Promise<Partial<StageResult>>;

interface Entry {
  ticket: number | "*";
  stage: StageName;
  script: AgentScript;
  repeat: boolean;
}

export const met: AgentScript = (act) => ({
  structured: { criteria: act.criteria().map((c) => ({ criterion: c, verdict: "met", evidence: `checked ${c}` })) },
});
export const unmetFirst: AgentScript = (act) => ({
  structured: {
    criteria: act.criteria().map((c, i) => ({ criterion: c, verdict: i === 0 ? "unmet" : "met", evidence: i === 0 ? "not found in src/" : "ok" })),
  },
});
export const rateLimited: AgentScript = () => ({ outcome: "rate-limited", detail: "usage limit reached", structured: undefined });
export const commitsThenRateLimited: AgentScript = (act) => {
  act.commit("partial");
  return { outcome: "rate-limited", detail: "api_error_status 429", structured: undefined };
};

export class FakeAgentRunner implements AgentRunner {
  readonly name = "fake";
  readonly calls: {
    ticket: number;
    stage: StageName;
    logName: string;
    prompt: string;
    env?: Record<string, string>;
    allowedCommands?: string[][];
    resumeSession?: string;
  }[] = [];
  private readonly entries: Entry[] = [];

  constructor(private readonly workspaces: () => FakeWorkspace) {}

  /** Answers the next `stage` call for `ticket` (or any ticket with "*"). */
  on(ticket: number | "*", stage: StageName, script: AgentScript, opts: { repeat?: boolean } = {}): this {
    this.entries.push({ ticket, stage, script, repeat: opts.repeat ?? false });
    return this;
  }

  count(ticket: number, stage?: StageName): number {
    return this.calls.filter((c) => c.ticket === ticket && (!stage || c.stage === stage)).length;
  }

  async run(request: StageRequest): Promise<StageResult> {
    this.calls.push({
      ticket: request.ticket,
      stage: request.stage,
      logName: request.logName,
      prompt: request.prompt,
      env: request.env,
      allowedCommands: request.allowedCommands,
      resumeSession: request.resumeSession,
    });
    const stem = path.join(request.logDir, request.logName);
    fs.mkdirSync(path.dirname(stem), { recursive: true });
    fs.writeFileSync(`${stem}.command`, `fake-agent -p <prompt> # ${request.stage}\n`);
    fs.writeFileSync(`${stem}.transcript.jsonl`, `${JSON.stringify({ type: "system", subtype: "init" })}\n`);
    const workspace = this.workspaces();
    const lane = workspace.lanes.get(request.ticket);
    const act: AgentAct = {
      request,
      workspace,
      commit: (label) => {
        if (!lane) throw new Error(`fake agent: no lane for #${request.ticket}`);
        workspace.commit(lane, label ?? request.stage);
      },
      criteria: () => {
        const block = request.prompt.split("\n<<<CRITERIA\n")[1]?.split("\nCRITERIA>>>")[0] ?? "";
        return block
          .split("\n")
          .filter((l) => /^\d+\. /.test(l))
          .map((l) => l.replace(/^\d+\. /, ""));
      },
    };
    request.onEvent?.({ kind: "init", model: "fake", sessionId: `s-${this.calls.length}` });
    const i = this.entries.findIndex((e) => (e.ticket === "*" || e.ticket === request.ticket) && e.stage === request.stage);
    let partial: Partial<StageResult>;
    if (i >= 0) {
      const entry = this.entries[i]!;
      if (!entry.repeat) this.entries.splice(i, 1);
      partial = await entry.script(act);
    } else {
      partial = await this.defaultFor(act, lane);
    }
    if (request.signal?.aborted) return { outcome: "nonzero-exit", turns: 1, durationMs: 1, text: "", aborted: true, detail: "aborted" };
    const result: StageResult = { outcome: "success", turns: 3, durationMs: 1000, text: `${request.stage} done`, ...partial };
    request.onEvent?.({ kind: "result", outcome: result.outcome, turns: result.turns, text: result.text });
    return result;
  }

  private async defaultFor(act: AgentAct, lane: unknown): Promise<Partial<StageResult>> {
    switch (act.request.stage) {
      case "implement":
        act.commit("impl");
        return { structured: { title: `feat: ticket ${act.request.ticket}`, summary: "did it" } };
      case "fix":
        act.commit("fix");
        return { structured: { title: `fix: ticket ${act.request.ticket}`, summary: "fixed it" } };
      case "verify":
        return met(act);
      case "conflict":
        if (lane) act.workspace.finishRebase(lane as never);
        return { structured: { title: `feat: ticket ${act.request.ticket}`, summary: "resolved" } };
    }
  }
}
