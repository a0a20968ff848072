/**
 * What a Claude Code session's stream-json lines add up to while they arrive: the turns, the
 * session id, the last result, a rejected rate limit, a failed login, the last API retry's status.
 * Claude Code's runner feeds it each line (claude-code-runner.ts) and reads the facts at the end.
 */
import type { AgentEvent } from "../../ports/agent-runner";
import { toAgentEvents } from "./event-mapper";
import type { StageLogs } from "./stage-logs";
import { apiRetrySchema, parseStreamLine } from "./stream-events";
import type { ResultEvent } from "./stream-events";

export interface RejectedLimit {
  resetsAt?: number;
  rateLimitType?: string;
}

export class ClaudeStream {
  private assistantMessages = 0;
  // The CLI prints one assistant line per content block; a turn is one API message.
  private readonly messageIds = new Set<string>();
  private roots: string;
  sessionId: string | undefined;
  rejected: RejectedLimit | null = null;
  lastResult: ResultEvent | null = null;
  authFailed = false;
  sawRejectedRateLimit = false;
  lastRetryStatus: number | null | undefined;

  constructor(private readonly cwd: string) {
    this.roots = cwd;
  }

  /** Turns from the result line, or counted from the assistant messages when there is none. */
  get turns(): number {
    return this.lastResult?.num_turns ?? this.assistantMessages + this.messageIds.size;
  }

  /** One valid UTF-8 stdout line: the events it shows, or why it is damage. */
  line(text: string, lineNo: number, logs: StageLogs): { events: AgentEvent[]; damage?: string } {
    const parsed = parseStreamLine(text, lineNo);
    if (parsed.kind === "damage") return { events: [], damage: parsed.reason };
    logs.transcriptLine(text);
    if (parsed.kind === "result") this.lastResult = parsed.event;
    if (parsed.kind === "assistant") {
      const id = parsed.event.message.id;
      if (id === undefined) this.assistantMessages += 1;
      else this.messageIds.add(id);
      if (parsed.event.error === "authentication_failed") this.authFailed = true;
    }
    if (parsed.kind === "system") {
      if (parsed.event.cwd && parsed.event.cwd !== this.cwd) this.roots = `${this.cwd}\0${parsed.event.cwd}`;
      if (parsed.event.session_id && parsed.event.subtype === "init") this.sessionId = parsed.event.session_id;
      const retry = apiRetrySchema.safeParse(parsed.event);
      if (retry.success) this.lastRetryStatus = retry.data.error_status ?? null;
    }
    if (parsed.kind === "rate-limit" && parsed.event.rate_limit_info.status === "rejected") {
      this.sawRejectedRateLimit = true;
      this.rejected = { resetsAt: parsed.event.rate_limit_info.resetsAt, rateLimitType: parsed.event.rate_limit_info.rateLimitType };
    }
    return { events: toAgentEvents(parsed, this.roots) };
  }
}
