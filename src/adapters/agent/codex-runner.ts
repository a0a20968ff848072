/**
 * OpenAI's Codex CLI as an agent (`agent.kind: "codex"`), tested against Codex CLI 0.171.0. A Stage:
 *   codex exec [resume] --json -c sandbox_mode="workspace-write" -c approval_policy="never"
 *     -c sandbox_workspace_write.writable_roots=["<git common dir>"] [-m <model>]
 *     [--output-schema <file>] <extra args> [<session id>] <prompt | ->
 * workspace-write lets commands write the worktree and nothing else; Codex keeps `.git` read-only
 * inside it, so the clone's git directory is named writable, or no `git commit` could run
 * (ADR 0200). `codex exec resume` takes no --sandbox flag, hence the `-c` keys for both.
 * Inside the Run's own sandbox (isolation "sandbox", ADR 0290) Codex's cannot start (bwrap covers
 * parts of its /proc, and the kernel then refuses the nested /proc Codex's sandbox mounts), so there
 * `--dangerously-bypass-approvals-and-sandbox` (Codex's flag for a process sandboxed from outside;
 * `exec resume` takes it too): the Run's sandbox is the boundary. On Linux the same holds outside
 * it (isolation "none"): where bubblewrap is installed, Codex's sandbox mounts every `.git`
 * read-only whatever writable_roots says, so no Stage could commit in a worktree (ADR 0291).
 * The structured answer is Codex's own: `--output-schema` makes the final message that JSON.
 */
import { execFile } from "node:child_process";
import { isAbsolute, resolve } from "node:path";
import type { AgentEvent } from "../../ports/agent-runner";
import { afterDelay, nextClockTime } from "./cli-ending";
import type { CliWording } from "./cli-ending";
import { CliAgentRunner } from "./cli-agent-runner";
import type { CliAgentRunnerOptions, CliArgs, CliArgsInput, CliDialect, CliSessionReader, CliStageRequest } from "./cli-agent-runner";
import { codexEvents, isToolItem, parseCodexLine } from "./codex-events";

export const CODEX_WORDING: CliWording = {
  // "You've hit your usage limit…try again at 3:19 PM", "Quota exceeded. Check your plan…", "exceeded retry limit, last status: 429 Too Many Requests"
  rateLimit: /usage limit|rate limit|quota|429 Too Many Requests/i,
  notSignedIn: /401 Unauthorized|403 Forbidden|Missing environment variable|not logged in|codex login/i,
  // The provider down or unreachable after Codex's own retries.
  providerDown: /last status: 5\d\d|unexpected status 5\d\d|high demand|stream disconnected|error sending request|Connection failed|failed to lookup address/i,
  resetsAt: (message, nowMs) => nextClockTime(message, nowMs) ?? afterDelay(message, nowMs),
};

/**
 * The git directories a commit in `cwd` writes to: the worktree's own (index, HEAD) and the clone's
 * common one (objects, refs). Codex protects both read-only unless named writable.
 */
function gitWriteDirs(cwd: string): Promise<string[]> {
  // Asynchronously: a Stage starts on the extension host's event loop, which a synchronous git would stop.
  return new Promise((settle) => {
    execFile("git", ["rev-parse", "--absolute-git-dir", "--git-common-dir"], { cwd, encoding: "utf8" }, (error, stdout) => {
      if (error) return settle([]);
      const dirs = stdout
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l.length > 0)
        .map((d) => (isAbsolute(d) ? d : resolve(cwd, d)));
      settle([...new Set(dirs)]);
    });
  });
}

function toml(value: string): string {
  return JSON.stringify(value);
}

class CodexReader implements CliSessionReader {
  private sessionId: string | undefined;
  private completed = false;
  private turnFailures: string[] = [];
  private errors: string[] = [];
  private tools = 0;
  private capped = false;
  private lastMessage = "";

  constructor(
    private readonly request: CliStageRequest,
    private readonly cwd: string,
    private readonly model: string,
  ) {}

  onLine(text: string, lineNo: number): { events: AgentEvent[]; damage?: string; stop?: boolean } {
    const parsed = parseCodexLine(text, lineNo);
    if (parsed.kind === "damage") return { events: [], damage: parsed.reason };
    if (parsed.kind === "unknown") return { events: [{ kind: "ignored", reason: `codex event type ${parsed.type}` }] };
    const line = parsed.line;
    if (line.type === "thread.started") this.sessionId = line.thread_id;
    if (line.type === "turn.completed") this.completed = true;
    if (line.type === "turn.failed") this.turnFailures.push(line.error.message);
    if (line.type === "error") this.errors.push(line.message);
    if (line.type === "item.completed" && line.item.type === "agent_message" && line.item.text !== undefined) this.lastMessage = line.item.text;
    let stop = false;
    if (line.type === "item.started" && isToolItem(line.item)) {
      this.tools += 1;
      // Codex has no turn cap of its own: the runner enforces maxTurns on tool calls.
      if (this.tools > this.request.maxTurns && !this.capped) {
        this.capped = true;
        stop = true;
      }
    }
    return { events: codexEvents(line, this.cwd, this.model), stop };
  }

  end(): ReturnType<CliSessionReader["end"]> {
    const failures = this.completed && this.turnFailures.length === 0 ? [] : [...this.errors, ...this.turnFailures];
    let structured: unknown;
    if (this.request.jsonSchema && this.lastMessage) {
      try {
        structured = JSON.parse(this.lastMessage);
      } catch {
        structured = undefined;
      }
    }
    return {
      completed: this.completed,
      failures,
      turns: this.tools + (this.lastMessage ? 1 : 0),
      turnCapped: this.capped,
      ...(this.sessionId ? { sessionId: this.sessionId } : {}),
      text: this.lastMessage,
      ...(structured !== undefined ? { structured } : {}),
    };
  }
}

export function codexDialect(
  model: string | undefined,
  extraArgs: readonly string[] = [],
  insideRunSandbox = false,
  platform: NodeJS.Platform = process.platform,
): CliDialect {
  const ownSandbox = !insideRunSandbox && platform !== "linux";
  return {
    executable: "codex",
    wording: CODEX_WORDING,
    env: { GIT_EDITOR: "true" },
    prompt: (request) => request.prompt,
    async buildArgs({ request, schemaFile, viaStdin }: CliArgsInput): Promise<CliArgs> {
      const args = ["exec"];
      if (request.resumeSession) args.push("resume");
      args.push("--json");
      // Codex's flag for "externally sandboxed": inside the Run's sandbox its own cannot start, and
      // on Linux its own cannot let a Stage commit.
      if (!ownSandbox) args.push("--dangerously-bypass-approvals-and-sandbox");
      else args.push("-c", `sandbox_mode=${toml("workspace-write")}`, "-c", `approval_policy=${toml("never")}`);
      const gitDirs = ownSandbox ? await gitWriteDirs(request.cwd) : [];
      if (gitDirs.length > 0) args.push("-c", `sandbox_workspace_write.writable_roots=[${gitDirs.map(toml).join(",")}]`);
      if (model) args.push("-m", model);
      if (schemaFile) args.push("--output-schema", schemaFile);
      args.push(...extraArgs);
      if (request.resumeSession) args.push(request.resumeSession);
      const promptIndex = viaStdin ? -1 : args.length;
      args.push(viaStdin ? "-" : request.prompt);
      return { args, promptIndex };
    },
    reader: (request, cwd) => new CodexReader(request, cwd, model ?? "codex default"),
  };
}

export function createCodexRunner(opts: Omit<CliAgentRunnerOptions, "name"> & { name?: string }): CliAgentRunner {
  return new CliAgentRunner(codexDialect(opts.model, opts.extraArgs, opts.sandbox?.on ?? false), { ...opts, name: opts.name ?? "codex" });
}
