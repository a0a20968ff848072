/**
 * Writes Claude Code's stream-json: one event per line, the same shapes the real CLI prints
 * (system init, assistant text / tool_use, user tool_result, rate_limit_event, result).
 * Honours backpressure, so a burst of 20,000 events never buffers unboundedly.
 */
import { randomUuid } from "./uuid";

export interface ResultFields {
  subtype: "success" | "error_during_execution" | "error_max_turns";
  isError: boolean;
  text: string | null;
  structured?: unknown;
  apiErrorStatus?: number;
}

export class StreamWriter {
  readonly sessionId = randomUuid();
  private readonly started = Date.now();
  private turns = 0;
  private toolCounter = 0;
  private messageCounter = 0;

  constructor(private readonly out: NodeJS.WritableStream = process.stdout) {
    // A reader that went away (the Run was killed) means nobody will ever read us: stop at once.
    out.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(141);
    });
  }

  get turnCount(): number {
    return this.turns;
  }

  /** Writes raw text; resolves when the stream can take more. */
  raw(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.out.write(text)) resolve();
      else this.out.once("drain", () => resolve());
    });
  }

  emit(event: object): Promise<void> {
    return this.raw(JSON.stringify(event) + "\n");
  }

  /** Serialised but not written: for batching bursts. */
  line(event: object): string {
    return JSON.stringify(event) + "\n";
  }

  init(cwd: string, model: string, permissionMode: string): Promise<void> {
    return this.emit({
      type: "system",
      subtype: "init",
      cwd,
      session_id: this.sessionId,
      tools: ["Bash", "Read", "Write", "Edit"],
      mcp_servers: [],
      model,
      permissionMode,
      slash_commands: [],
      apiKeySource: "none",
      claude_code_version: "ticket-runner-demo",
      output_style: "default",
      uuid: randomUuid(),
    });
  }

  assistantEvent(content: object[]): object {
    this.messageCounter += 1;
    return {
      type: "assistant",
      message: {
        id: `msg_demo_${this.messageCounter}`,
        type: "message",
        role: "assistant",
        model: "demo-agent",
        content,
        stop_reason: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid: randomUuid(),
    };
  }

  text(text: string): Promise<void> {
    return this.emit(this.assistantEvent([{ type: "text", text }]));
  }

  /** A tool call; returns its id for the matching result. */
  toolUseEvent(name: string, input: object): { id: string; event: object } {
    this.toolCounter += 1;
    this.turns += 1;
    const id = `toolu_demo_${this.toolCounter}`;
    return { id, event: this.assistantEvent([{ type: "tool_use", id, name, input }]) };
  }

  toolResultEvent(id: string, content: string, isError = false): object {
    return {
      type: "user",
      message: { role: "user", content: [{ tool_use_id: id, type: "tool_result", content, is_error: isError }] },
      parent_tool_use_id: null,
      session_id: this.sessionId,
      uuid: randomUuid(),
    };
  }

  async tool(name: string, input: object, run: () => Promise<string>): Promise<string> {
    const { id, event } = this.toolUseEvent(name, input);
    await this.emit(event);
    try {
      const output = await run();
      await this.emit(this.toolResultEvent(id, output));
      return output;
    } catch (e) {
      await this.emit(this.toolResultEvent(id, e instanceof Error ? e.message : String(e), true));
      throw e;
    }
  }

  rateLimit(status: "allowed" | "allowed_warning" | "rejected", resetsAt: number): Promise<void> {
    return this.emit({
      type: "rate_limit_event",
      rate_limit_info: { status, resetsAt, rateLimitType: "five_hour" },
      uuid: randomUuid(),
      session_id: this.sessionId,
    });
  }

  result(r: ResultFields): Promise<void> {
    const duration = Date.now() - this.started;
    return this.emit({
      type: "result",
      subtype: r.subtype,
      is_error: r.isError,
      duration_ms: duration,
      duration_api_ms: 0,
      num_turns: Math.max(1, this.turns),
      ...(r.text !== null ? { result: r.text } : {}),
      session_id: this.sessionId,
      total_cost_usd: 0,
      usage: { input_tokens: 0, output_tokens: 0 },
      modelUsage: {},
      permission_denials: [],
      ...(r.structured !== undefined ? { structured_output: r.structured } : {}),
      ...(r.apiErrorStatus !== undefined ? { api_error_status: r.apiErrorStatus } : {}),
      uuid: randomUuid(),
    });
  }
}
