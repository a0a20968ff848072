/**
 * `ticket-runner init --actions`: writes the GitHub Actions workflow (actions-workflow.ts) into the
 * Target, never over a file someone already has there (it may be edited; they delete it to regenerate).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { ZodError } from "zod";
import { loadConfig } from "./config-load";
import { Refusal } from "../core/errors";
import { PRODUCT_VERSION } from "../core/version";
import { actionsWorkflow, WORKFLOW_PATH } from "./actions-workflow";
import type { ActionsWorkflowOptions } from "./actions-workflow";

export interface InitActionsArgs {
  hosts?: number;
  schedule?: string;
  /** The CLI's own single-file bundle (dist/cli-bundle.js, ADR 0481), copied into the Target for the workflow to run (ADR 0282). */
  cliBundle: string;
}

export const CLI_DIR = ".github/ticket-runner";

/** The bundle's bytes, its checksum and where in the Target it goes (named by version and hash, so copies never collide). */
export function readBundle(file: string): { bytes: Buffer; sha256: string; target: string } {
  let bytes: Buffer;
  try {
    if (!file.endsWith(".js")) throw new Error("not a built bundle (.js)");
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new Refusal(
      "bad-input",
      `The Actions workflow runs the ticket-runner CLI from a copy committed in the repository (ticket-runner is not on npm), made from the CLI's own file ${file}, which cannot be used: ${e instanceof Error ? e.message : String(e)}. Run \`ticket-runner init --actions\` with the built CLI (\`npm run build\` makes dist/cli-bundle.js).`,
      { next: "ticket-runner init --actions", path: file },
    );
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { bytes, sha256, target: `${CLI_DIR}/ticket-runner-${PRODUCT_VERSION}-${sha256.slice(0, 12)}.cjs` };
}

function workflowText(options: ActionsWorkflowOptions): string {
  try {
    return actionsWorkflow(options);
  } catch (e) {
    if (!(e instanceof ZodError)) throw e;
    const issue = e.issues[0]!;
    const key = String(issue.path[0] ?? "options");
    const flag = key === "hosts" ? "--hosts" : key === "schedule" ? "--schedule" : `"${key}" in ticket-runner.json`;
    throw new Refusal("bad-input", `${flag}: ${issue.message}. E.g. \`ticket-runner init --actions --hosts 2 --schedule "*/30 * * * *"\`.`, {
      next: 'ticket-runner init --actions --hosts 2 --schedule "*/30 * * * *"',
    });
  }
}

export interface InitActionsReport {
  lines: string[];
  /** The workflow file was written now (it was not there). */
  created: boolean;
  /** ticket-runner.json still needs `"lockScope": "host"` (the workflow's jobs refuse without it). */
  needsHostScope: boolean;
}

/**
 * Lines for init's report; the workflow's lanes, agent and ready label come from ticket-runner.json.
 * One generator for both front doors: `ticket-runner init --actions` and VS Code's Prepare Repository.
 */
export function initActions(root: string, args: InitActionsArgs): InitActionsReport {
  const config = loadConfig(root);
  const kind = config.agent.kind;
  if (kind !== "claude" && kind !== "codex" && kind !== "gemini") {
    throw new Refusal(
      "bad-input",
      `The Actions workflow installs claude, codex or gemini; ticket-runner.json's agent.kind is "${kind}". Set agent.kind to one of them, then run \`ticket-runner init --actions\` again.`,
      { next: "ticket-runner init --actions" },
    );
  }
  const bundle = readBundle(args.cliBundle);
  const text = workflowText({
    hosts: args.hosts,
    schedule: args.schedule,
    lanes: config.lanes,
    agent: kind,
    readyLabel: config.labels.ready,
    cliVersion: PRODUCT_VERSION,
    cliFile: bundle.target,
    cliSha256: bundle.sha256,
  });
  const lines: string[] = [];
  const file = path.join(root, WORKFLOW_PATH);
  const created = !fs.existsSync(file);
  const current = created || fs.readFileSync(file, "utf8") === text;
  // The CLI copy goes beside a workflow that pins it; its name carries its hash, so an existing one is this one.
  if (current && !fs.existsSync(path.join(root, bundle.target))) {
    fs.mkdirSync(path.join(root, CLI_DIR), { recursive: true });
    fs.writeFileSync(path.join(root, bundle.target), bundle.bytes, { flag: "wx" });
    lines.push(`${bundle.target}: the ticket-runner CLI the workflow runs (sha256 ${bundle.sha256}, pinned in the workflow); commit it with the workflow.`);
  }
  if (created) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { flag: "wx" });
    lines.push(
      `${WORKFLOW_PATH}: created (docs/actions.md). Set the repository variable TICKET_RUNNER_APP_ID and the secrets TICKET_RUNNER_APP_PRIVATE_KEY and the agent's key, then commit it.`,
    );
  } else if (current) {
    lines.push(`${WORKFLOW_PATH}: already there, as init writes it.`);
  } else {
    lines.push(`${WORKFLOW_PATH}: already there and different; left as it is (delete it and run \`ticket-runner init --actions\` to write it afresh).`);
  }
  const needsHostScope = config.lockScope !== "host";
  if (needsHostScope)
    lines.push(`ticket-runner.json: set "lockScope": "host": the workflow runs several Hosts at once and its job refuses to start without it.`);
  return { lines, created, needsHostScope };
}
