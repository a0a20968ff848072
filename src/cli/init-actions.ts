/**
 * `ticket-runner init --actions`: writes the GitHub Actions workflow (actions-workflow.ts) into the
 * Target, never over a file someone already has there (it may be edited; they delete it to regenerate).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ZodError } from "zod";
import { loadConfig } from "../app/config-load";
import { Refusal } from "../core/errors";
import { PRODUCT_VERSION } from "../core/version";
import { actionsWorkflow, WORKFLOW_PATH } from "./actions-workflow";
import type { ActionsWorkflowOptions } from "./actions-workflow";

export interface InitActionsArgs {
  hosts?: number;
  schedule?: string;
}

function workflowText(options: ActionsWorkflowOptions): string {
  try {
    return actionsWorkflow(options);
  } catch (e) {
    if (!(e instanceof ZodError)) throw e;
    const issue = e.issues[0]!;
    const key = String(issue.path[0] ?? "options");
    const flag = key === "hosts" ? "--hosts" : key === "schedule" ? "--schedule" : `"${key}" in ticket-runner.json`;
    throw new Refusal("bad-input", `${flag}: ${issue.message}. E.g. \`ticket-runner init --actions --hosts 2 --schedule "*/30 * * * *"\`.`, { next: 'ticket-runner init --actions --hosts 2 --schedule "*/30 * * * *"' });
  }
}

/** Lines for init's report; the workflow's lanes, agent and ready label come from ticket-runner.json. */
export function initActions(root: string, args: InitActionsArgs): string[] {
  const config = loadConfig(root);
  const kind = config.agent.kind;
  if (kind !== "claude" && kind !== "codex" && kind !== "gemini") {
    throw new Refusal("bad-input", `The Actions workflow installs claude, codex or gemini; ticket-runner.json's agent.kind is "${kind}". Set agent.kind to one of them, then run \`ticket-runner init --actions\` again.`, { next: "ticket-runner init --actions" });
  }
  const text = workflowText({ hosts: args.hosts, schedule: args.schedule, lanes: config.lanes, agent: kind, readyLabel: config.labels.ready, cliVersion: PRODUCT_VERSION });
  const lines: string[] = [];
  const file = path.join(root, WORKFLOW_PATH);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { flag: "wx" });
    lines.push(`${WORKFLOW_PATH}: created (docs/actions.md). Set the repository variable TICKET_RUNNER_APP_ID and the secrets TICKET_RUNNER_APP_PRIVATE_KEY and the agent's key, then commit it.`);
  } else if (fs.readFileSync(file, "utf8") === text) {
    lines.push(`${WORKFLOW_PATH}: already there, as init writes it.`);
  } else {
    lines.push(`${WORKFLOW_PATH}: already there and different; left as it is (delete it and run \`ticket-runner init --actions\` to write it afresh).`);
  }
  if (config.lockScope !== "host") lines.push(`ticket-runner.json: set "lockScope": "host": the workflow runs several Hosts at once and its job refuses to start without it.`);
  return lines;
}
