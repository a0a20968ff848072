/**
 * `ticket-runner demo [--headless] [--fresh] [--data <dir>] [--port <n>]`: the whole product on
 * this machine with no account and no network. The sandbox with the seeded demo/shop (six tickets,
 * one per ending), a clone of it, and either VS Code in the browser with the extension (click
 * Start) or, with --headless, `ticket-runner run` in this terminal. Everything lives in one folder;
 * a re-run resumes, --fresh starts over. The orchestration is in src/demo/.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { defaultDistDir } from "../../app/compose-run";
import { NodeHost } from "../../adapters/node-host";
import { Refusal } from "../../core/errors";
import { ensureCodeServer, freePort, portIsFree, startDemoCodeServer } from "../../demo/code-server";
import { defaultDemoDir, demoCommandLine, demoPaths, DEMO_DIR_ENV } from "../../demo/folder";
import { runHeadless } from "../../demo/headless";
import { startSandboxChild } from "../../demo/sandbox-child";
import { scriptedAgentName, startScriptedAgent } from "../../demo/scripted-agent";
import type { ScriptedAgentKind } from "../../demo/scripted-agent";
import { DemoSession } from "../../demo/session";
import { demoEnv, prepareTarget, DEMO_USER } from "../../demo/target";
import type { CliCommand, CliIo } from "../command";
import { parseArgs } from "../target-options";

const USAGE = `ticket-runner demo [--headless] [--agent claude|codex|gemini] [--fresh] [--data <dir>] [--port <n>]

Runs the whole product on this machine, with no GitHub account and no network: the local sandbox
with the demo repository demo/shop (a small project whose tests are the Checks and the sandbox's
CI) and six ready-for-agent tickets, one per ending, worked by the scripted demo agent.

  (default)     VS Code in the browser (code-server, installed once into ~/.cache/ticket-runner)
                with the extension and a clone of demo/shop; prints the URL. Click Start.
  --headless    the same Run in this terminal: the board, \`ticket-runner run\` with its live
                display and summary, the board again. Exit code 1: one ticket is handed off.
  --agent claude|codex|gemini
                with --headless: the real Claude Code, Codex CLI or Gemini CLI (installed once
                by \`bash scripts/install-agents.sh claude codex gemini\`) works the tickets
                against a scripted model this command runs, instead of the demo agent
  --fresh       start over: remove the demo folder first (only a folder the demo made)
  --data <dir>  the demo folder (default: $${DEMO_DIR_ENV}, else ~/.ticket-runner/demo)
  --port <n>    code-server's port (default: the last one, else any free port)

Everything the demo makes is in the demo folder; running it again resumes where it stopped.
Ctrl+C stops what it started (a Run in progress is killed, and resumed by the next demo).`;

function portArg(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535)
    throw new Refusal("bad-input", `--port must be a number from 1 to 65535, not "${text}". Try: ${demoCommandLine(["--port", "8080"])}`);
  return n;
}

function agentArg(text: string | undefined, headless: boolean): ScriptedAgentKind | undefined {
  if (text === undefined || text === "demo") return undefined;
  if (text !== "claude" && text !== "codex" && text !== "gemini")
    throw new Refusal("bad-input", `--agent must be claude, codex or gemini, not "${text}". Try: ${demoCommandLine(["--headless", "--agent", "codex"])}`);
  if (!headless) throw new Refusal("bad-input", `--agent ${text} runs in the terminal demo only. Try: ${demoCommandLine(["--headless", "--agent", text])}`);
  return text;
}

function product(): { cliJs: string; root: string } {
  const dist = defaultDistDir();
  const cliJs = join(dist, "cli.js");
  if (!existsSync(cliJs) || !existsSync(join(dist, "demo-agent.js"))) {
    throw new Refusal(
      "bad-config",
      `The demo runs the built product, and ${dist} has no cli.js or demo-agent.js. Build it first: \`npm run build\` (\`npm run demo\` does that for you).`,
    );
  }
  return { cliJs, root: dirname(dist) };
}

export const demoCommand: CliCommand = {
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { flags: ["--headless", "--fresh"], values: ["--data", "--port", "--agent"] });
    const stray = args.positionals[0] ?? ["--repo", "--api-url"].find((v) => args.values.has(v));
    if (stray) throw new Refusal("bad-input", `The demo takes no ${stray}: it always works on the sandbox's demo/shop. Usage: ${USAGE.split("\n")[0]}`);
    const port = portArg(args.values.get("--port"));
    const headless = args.flags.has("--headless");
    const agentKind = agentArg(args.values.get("--agent"), headless);
    const { cliJs, root } = product();
    const dataText = args.values.get("--data");
    const paths = demoPaths(dataText ? resolve(io.cwd, dataText) : defaultDemoDir(io.env));
    const host = new NodeHost({ env: io.env });

    const session = await DemoSession.open(paths, host, new Date(), io.out, { fresh: args.flags.has("--fresh") });
    session.listen();
    try {
      io.out(`Ticket Runner demo${headless ? " (terminal)" : ""}. Everything it makes is in ${paths.root}`);
      const sandbox = await startSandboxChild({ children: session.children, paths, cliJs, env: io.env, preferredPort: session.record.sandboxPort });
      session.save({ sandboxPort: sandbox.port });
      io.out(`Sandbox: ${sandbox.apiUrl} (pid ${sandbox.child.pid}), repository demo/shop, you are "${DEMO_USER}".`);
      if (session.interrupted) return 130;
      const target = await prepareTarget(sandbox, paths);
      io.out(`Clone: ${target.clone}${target.cloned ? "" : " (kept from the last demo: resuming)"}`);
      const env = demoEnv(io.env, sandbox, target, paths);
      if (session.interrupted) return 130;
      if (headless && agentKind) {
        const agent = await startScriptedAgent(agentKind, { root: paths.root, clone: target.clone, env });
        io.out(`Agent: the real ${scriptedAgentName(agentKind)} with a scripted model at ${agent.server.url}.`);
        try {
          return await runHeadless({ session, io, cliJs, env: agent.env, clone: target.clone, runArgs: ["--agent", agentKind] });
        } finally {
          await agent.server.stop();
        }
      }
      if (headless) return await runHeadless({ session, io, cliJs, env, clone: target.clone });
      return await serveVsCode(io, session, { root, env, port });
    } finally {
      await session.stopAll(io.out);
      session.close();
    }
  },
};

async function serveVsCode(io: CliIo, session: DemoSession, opts: { root: string; env: NodeJS.ProcessEnv; port: number | undefined }): Promise<number> {
  const bin = ensureCodeServer(opts.root, io.env, io.out);
  if (session.interrupted) return 130;
  let port = opts.port;
  if (port !== undefined && !(await portIsFree(port)))
    throw new Refusal("bad-input", `Port ${port} is taken on 127.0.0.1. Pick another: ${demoCommandLine(["--port", String(port + 1)])}`);
  const saved = session.record.codeServerPort;
  port ??= saved && (await portIsFree(saved)) ? saved : await freePort();
  const server = await startDemoCodeServer({ bin, children: session.children, paths: session.paths, env: opts.env, port, productRoot: opts.root });
  session.save({ codeServerPort: server.port });
  io.out("");
  io.out("VS Code (code-server) is ready. Open:");
  io.out(`  ${server.url}`);
  io.out(`Password: ${server.password}`);
  io.out("VS Code asks whether you trust the authors of the demo's folder: the demo made it, so choose Yes (until then the board is read-only).");
  io.out("Then click Ticket Runner in the activity bar and Start (▶) on the Board: two Lanes take the six tickets.");
  io.out(`code-server pid ${server.child.pid}, log ${server.logFile}. Ctrl+C stops code-server and the sandbox; run again to resume.`);
  const ended = await Promise.race([
    session.untilSignal().then((sig) => ({ by: sig as string })),
    server.child.exited.then((code) => ({ by: `code-server exited with ${code}` })),
    session.children
      .running()
      .find((c) => c.what === "sandbox")
      ?.exited.then((code) => ({ by: `the sandbox exited with ${code}` })) ?? new Promise<never>(() => undefined),
  ]);
  if (ended.by === "SIGINT" || ended.by === "SIGTERM") return 0;
  io.err(`The demo stopped because ${ended.by}; see ${server.logFile} and ${session.paths.logs}/sandbox.log.`);
  return 1;
}
