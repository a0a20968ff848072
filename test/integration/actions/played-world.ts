/**
 * A Target ready for the played workflow (workflow-player.ts): demo-agent tickets in a chaos world,
 * the CLI copy `init --actions` commits, the workflow `actionsWorkflow()` writes for it, and a
 * WorkflowPlayer whose runners check out that Target. Shared by the played-workflow test and
 * `npm run bench:actions`, so both play the same thing.
 */
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { actionsWorkflow } from "../../../src/app/actions-workflow";
import { readBundle } from "../../../src/app/init-actions";
import { CLI_BUNDLE_FILE } from "../../../src/app/cli-bundle-file";
import { PRODUCT_VERSION } from "../../../src/core/version";
import { CLI } from "../../reliability/chaos/run-process";
import type { ChaosTarget } from "../../reliability/chaos/world";
import { ChaosWorld } from "../../reliability/chaos/world";
import { demoTicketBody } from "../../support/run-seed";
import type { DemoTicket } from "../../support/run-seed";
import { readWorkflow } from "./workflow-player";
import { WorkflowPlayer } from "./workflow-runs";

const exec = promisify(execFile);

export interface PlayedWorld {
  world: ChaosWorld;
  t: ChaosTarget;
  player: WorkflowPlayer;
}

export interface PlayedWorldOptions {
  prefix: string;
  name: string;
  tickets: DemoTicket[];
  /** ticket-runner.json of the Target (merged into the demo's). */
  config: Record<string, unknown>;
  ciDelayMs: number;
}

export async function playedWorld(o: PlayedWorldOptions): Promise<PlayedWorld> {
  const world = await ChaosWorld.start(o.prefix);
  const issues = o.tickets.map((t) => ({ title: t.title, body: demoTicketBody(t), labels: ["ready-for-agent"] }));
  const t = await world.target({ name: o.name, config: o.config, issues, ci: false });
  await world.sandbox.admin.setFaults({ rateLimit: 1_000_000 });
  await world.sandbox.admin.scriptCi(t.full, { conclusion: "success", delayMs: o.ciDelayMs });
  // What actions/create-github-app-token hands out: an installation token, acting as the App's bot
  // (in the sandbox as on GitHub, it may not read GET /user; the Run learns who it is from GraphQL).
  const { token: appToken } = await world.sandbox.admin.addUser({ login: "ticket-runner-app[bot]", repos: { [t.full]: "write" } });

  // What init --actions commits beside the workflow: this build's CLI bundle (not dist/cli.js, its loader: ADR 0481), its checksum pinned in the YAML.
  const cli = readBundle(join(dirname(CLI), CLI_BUNDLE_FILE));
  const workflow = readWorkflow(
    actionsWorkflow({ hosts: 2, lanes: 2, agent: "claude", cliVersion: PRODUCT_VERSION, cliFile: cli.target, cliSha256: cli.sha256 }),
  );
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${appToken}`).toString("base64")}`;
  const gitEnv = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "Init",
    GIT_AUTHOR_EMAIL: "init@example.invalid",
    GIT_COMMITTER_NAME: "Init",
    GIT_COMMITTER_EMAIL: "init@example.invalid",
  };
  const clone = (dir: string) =>
    exec("git", ["-c", `http.extraHeader=${header}`, "clone", "--quiet", world.sandbox.gitUrl(t.owner, t.name), dir], { env: gitEnv });
  const prep = `${world.dir}/prepare`;
  await clone(prep);
  mkdirSync(dirname(`${prep}/${cli.target}`), { recursive: true });
  writeFileSync(`${prep}/${cli.target}`, cli.bytes);
  await exec("git", ["add", "."], { cwd: prep, env: gitEnv });
  await exec("git", ["commit", "-qm", "ticket-runner init --actions"], { cwd: prep, env: gitEnv });
  await exec("git", ["-c", `http.extraHeader=${header}`, "push", "-q", "origin", "HEAD"], { cwd: prep, env: gitEnv });

  const player = new WorkflowPlayer({
    workflow,
    repo: t.full,
    appToken,
    vars: { TICKET_RUNNER_APP_ID: "12345" },
    secrets: { TICKET_RUNNER_APP_PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----", ANTHROPIC_API_KEY: "sk-ant-unused" },
    dir: world.dir,
    agentBinary: "claude",
    checkout: async (dir) => {
      await clone(dir);
    },
    machineEnv: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? world.dir,
      LC_ALL: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      // The demo agent's memory, shared by every runner as one agent service would be.
      TICKET_RUNNER_DEMO_STATE: `${world.dir}/demo-state`,
      ...(process.env.TICKET_RUNNER_TEST_RUN ? { TICKET_RUNNER_TEST_RUN: process.env.TICKET_RUNNER_TEST_RUN } : {}),
    },
  });
  return { world, t, player };
}
