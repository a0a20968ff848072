// The scripted demo agent's entry point, bundled to dist/demo-agent.js (see src/sandbox/demo-agent/).
import { runDemoAgent } from "./demo-agent/agent";

runDemoAgent(process.argv.slice(2), process.env, process.cwd()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo agent: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
