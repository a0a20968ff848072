/**
 * The scripted demo agent: a real process that accepts claude's argv, speaks its stream-json, and
 * does what the issue's ```ticket-runner-demo block says (docs/agents.md). Stage from
 * TICKET_RUNNER_STAGE, ticket from TICKET_RUNNER_TICKET.
 *
 * It never runs a shell, and nothing from the issue reaches a command line except as a git
 * argument after `--` (file paths, already checked to stay inside the worktree).
 */
import type * as nodeCrypto from "node:crypto";
import { ArgvError, parseDemoArgs } from "./argv";
import type { Behaviours, DemoStage } from "./demo-block";
import { DemoInputError, STAGES, behavioursOf, extractIssue, parseDemoBlock } from "./demo-block";
import { conflictStage, fixStage, implementStage, verifyStage } from "./stages";
import type { StageContext } from "./stages";
import { DemoState, stateDir } from "./state";
import { StreamWriter } from "./stream";
import { defaultTeammateFiles, pushTeammateCommit } from "./teammate";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A ticket key from the issue's title, where the Run gave no number: `node:crypto` loaded only then (ADR 0497). */
function titleKey(title: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a Stage without TICKET_RUNNER_TICKET (above)
  const { createHash } = require("node:crypto") as typeof nodeCrypto;
  return `t-${createHash("sha1").update(title).digest("hex").slice(0, 12)}`;
}

function stageOf(env: NodeJS.ProcessEnv): DemoStage {
  const stage = env.TICKET_RUNNER_STAGE;
  if (!stage || !(STAGES as readonly string[]).includes(stage)) {
    throw new DemoInputError(`TICKET_RUNNER_STAGE must be one of ${STAGES.join(", ")}; got ${JSON.stringify(stage ?? null)}`);
  }
  return stage as DemoStage;
}

function appliesTo(which: DemoStage | "any" | null, stage: DemoStage): boolean {
  return which === "any" || which === stage;
}

/** "slow:<ms>": a few events spread over the time. "burst:<n>" (implement): n events, spread over slow's time if given, else at once. */
async function pace(out: StreamWriter, b: Behaviours, stage: DemoStage): Promise<void> {
  if (stage === "implement" && b.burst > 0) {
    const batches = b.slowMs > 0 ? Math.max(1, Math.ceil(b.burst / 200)) : Math.max(1, Math.ceil(b.burst / 1000));
    const perBatch = Math.ceil(b.burst / batches);
    const gap = b.slowMs > 0 ? b.slowMs / batches : 0;
    let sent = 0;
    while (sent < b.burst) {
      let text = "";
      for (let i = 0; i < perBatch && sent < b.burst; i += 1, sent += 1) {
        // Burst events are not turns: they only load the reader.
        text += out.line(
          sent % 2 === 0
            ? out.assistantEvent([{ type: "tool_use", id: `toolu_burst_${sent}`, name: "Read", input: { file_path: `burst/${sent}.txt` } }])
            : out.toolResultEvent(`toolu_burst_${sent - 1}`, `line ${sent}`),
        );
      }
      await out.raw(text);
      if (gap > 0) await sleep(gap);
    }
    return;
  }
  if (b.slowMs > 0) {
    const steps = 5;
    for (let i = 1; i <= steps; i += 1) {
      await sleep(b.slowMs / steps);
      await out.text(`Still working on the ${stage} Stage (${i}/${steps}).`);
    }
  }
}

async function hitRateLimit(out: StreamWriter): Promise<number> {
  const resetsAt = Math.floor(Date.now() / 1000) + 3600;
  await out.text("Checking the repository before I start.");
  await out.rateLimit("rejected", resetsAt);
  const text = `Claude AI usage limit reached|${resetsAt}`;
  await out.emit(out.assistantEvent([{ type: "text", text }]));
  await out.result({ subtype: "success", isError: true, text, apiErrorStatus: 429 });
  return 1;
}

async function crash(out: StreamWriter, stage: DemoStage): Promise<number> {
  await out.text(`Starting the ${stage} Stage.`);
  const { event } = out.toolUseEvent("Bash", { command: "npm test", description: "Run the tests" });
  await out.emit(event);
  // Half an event, as a process dying mid-write leaves it.
  await out.raw('{"type":"assistant","message":{"content":[{"type":"te');
  process.stderr.write(`demo agent: simulated crash during ${stage} (behaviour "crash")\n`);
  return 1;
}

export async function runDemoAgent(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const out = new StreamWriter();
  let args;
  try {
    args = parseDemoArgs(argv);
  } catch (e) {
    if (!(e instanceof ArgvError)) throw e;
    process.stderr.write(`demo agent: ${e.message}\n`);
    return 2;
  }
  const prompt = args.prompt ?? (await readStdin());
  await out.init(cwd, args.model ?? "demo-agent", args.permissionMode);
  try {
    const stage = stageOf(env);
    const issue = extractIssue(prompt);
    const block = parseDemoBlock(issue.body);
    const b = behavioursOf(block);
    const ticket = env.TICKET_RUNNER_TICKET && /^\d+$/.test(env.TICKET_RUNNER_TICKET) ? env.TICKET_RUNNER_TICKET : titleKey(issue.title);
    const state = await DemoState.open(await stateDir(cwd, env), ticket);
    state.memory.sessions += 1;
    if (b.rateLimitOnce && appliesTo(b.rateLimitOnce, stage) && !state.memory.rateLimited.includes(b.rateLimitOnce)) {
      state.memory.rateLimited.push(b.rateLimitOnce);
      await state.save();
      return await hitRateLimit(out);
    }
    await state.save();
    if (appliesTo(b.crash, stage)) return await crash(out, stage);
    await pace(out, b, stage);

    if (stage === "implement" && b.conflict && !state.memory.teammatePushed) {
      const files = block.teammateFiles ?? defaultTeammateFiles(block.files, ticket);
      const pushed = await out.tool(
        "Bash",
        { command: `# as a teammate: push an edit of ${Object.keys(files).join(", ")} to the base branch`, description: "Simulate a teammate" },
        async () => {
          const r = await pushTeammateCommit(cwd, env, files, ticket);
          return `teammate pushed ${r.sha.slice(0, 7)} to ${r.base}`;
        },
      );
      state.memory.teammatePushed = true;
      await state.save();
      await out.text(`Meanwhile a teammate changed the same files (${pushed}); the rebase will need a conflict Stage.`);
    }

    const ctx: StageContext = { cwd, env, block, issue, ticket, out };
    const answer =
      stage === "implement"
        ? await implementStage(ctx)
        : stage === "fix"
          ? await fixStage(ctx)
          : stage === "verify"
            ? await verifyStage(ctx)
            : await conflictStage(ctx);
    const structured = args.jsonSchema !== undefined ? answer : undefined;
    const text =
      "title" in answer
        ? `${answer.title}: ${answer.summary}`
        : `${answer.criteria.filter((c) => c.verdict === "met").length} of ${answer.criteria.length} criteria met.`;
    await out.result({ subtype: "success", isError: false, text: structured === undefined ? JSON.stringify(answer) : text, structured });
    return 0;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`demo agent: ${message}\n`);
    await out.text(`I can't finish this Stage: ${message}`);
    await out.result({ subtype: "error_during_execution", isError: true, text: `demo agent: ${message}` });
    return 1;
  }
}
