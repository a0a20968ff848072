/**
 * What `ticket-runner init` does to a Target, apart from the command's argument handling: the
 * labels, ticket-runner.json and the .gitignore lines. Each step reports what it did; run twice,
 * the second run does nothing and says so.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { CONFIG_FILE, loadConfig } from "./config-load";
import type { Config } from "../core/schemas/config";
import type { Tracker } from "../ports/tracker";
import { DETECTED_AGENTS } from "./agents-on-path";
import type { DetectedAgentKind } from "./agents-on-path";

const IGNORE_LINES = [".worktrees/", ".ticket-runner/"];

const LABELS = (config: Config) => [
  { name: config.labels.ready, color: "0e8a16", description: "Ticket Runner: a coding agent may take this" },
  { name: config.labels.inProgress, color: "fbca04", description: "Ticket Runner: claimed and being worked on" },
  { name: config.labels.human, color: "d93f0b", description: "Ticket Runner: handed to a person (see the hand-off comment)" },
];

/** The project's own commands, guessed from package.json: a Run refuses to start without any. */
function guessChecks(root: string): string[][] {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts?: Record<string, unknown> };
    const scripts = pkg.scripts ?? {};
    const checks: string[][] = [];
    if (typeof scripts.test === "string" && !/no test specified/.test(scripts.test)) checks.push(["npm", "test"]);
    if (typeof scripts.typecheck === "string") checks.push(["npm", "run", "typecheck"]);
    return checks;
  } catch {
    return [];
  }
}

export interface InitReport {
  lines: string[];
  changed: boolean;
}

/** The agent a new config names: the first found on the PATH (Claude Code first), else Claude Code. */
function agentLine(found: readonly DetectedAgentKind[]): { kind: DetectedAgentKind; line: string } {
  const kind = found[0] ?? "claude";
  if (found.length === 0)
    return {
      kind,
      line: `Agents: none of ${DETECTED_AGENTS.map((a) => a.executable).join(", ")} is on the PATH; agent.kind is "claude": install it (\`${DETECTED_AGENTS[0].install}\`) or set agent.kind to the agent you use.`,
    };
  return {
    kind,
    line: `Agents on the PATH: ${found.join(", ")}; agent.kind is "${kind}"${found.length > 1 ? " (change it in ticket-runner.json to use another)" : ""}.`,
  };
}

/** `agentsFound`: the agents on the PATH (agents-on-path.ts), for the agent a new config names. */
export async function initTarget(root: string, tracker: Tracker | null, agentsFound: readonly DetectedAgentKind[] = ["claude"]): Promise<InitReport> {
  const lines: string[] = [];
  let changed = false;
  const file = path.join(root, CONFIG_FILE);
  let config: Config;
  if (fs.existsSync(file)) {
    config = loadConfig(root);
    lines.push(`${CONFIG_FILE}: already there and valid; left as it is.`);
  } else {
    const checks = guessChecks(root);
    const agent = agentLine(agentsFound);
    const body = { lanes: 1, checks, agent: { kind: agent.kind } };
    fs.writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`, { flag: "wx" });
    config = loadConfig(root);
    changed = true;
    lines.push(
      checks.length
        ? `${CONFIG_FILE}: created, with the Checks ${checks.map((c) => `\`${c.join(" ")}\``).join(" and ")} (edit it to change them).`
        : `${CONFIG_FILE}: created. Add your project's Checks to "checks" (e.g. [["npm", "test"]]): a Run refuses to start without one.`,
      agent.line,
    );
  }

  const ignore = path.join(root, ".gitignore");
  const current = fs.existsSync(ignore) ? fs.readFileSync(ignore, "utf8") : "";
  const have = new Set(current.split(/\r?\n/).map((l) => l.trim()));
  const missing = IGNORE_LINES.filter((l) => !have.has(l) && !have.has(l.replace(/\/$/, "")) && !have.has(`/${l}`));
  if (missing.length) {
    const sep = current.length && !current.endsWith("\n") ? "\n" : "";
    fs.writeFileSync(ignore, `${current}${sep}${missing.join("\n")}\n`);
    changed = true;
    lines.push(`.gitignore: added ${missing.join(" ")}.`);
  } else {
    lines.push(".gitignore: already ignores .worktrees/ and .ticket-runner/.");
  }

  if (tracker) {
    const made: string[] = [];
    for (const label of LABELS(config)) {
      if ((await tracker.ensureLabel(label.name, label.color, label.description)) === "created") made.push(label.name);
    }
    if (made.length) changed = true;
    lines.push(
      made.length
        ? `Labels: created ${made.join(", ")}.`
        : `Labels: ${LABELS(config)
            .map((l) => l.name)
            .join(", ")} already exist.`,
    );
  }
  if (changed)
    lines.push(
      `Next: commit ${CONFIG_FILE} and .gitignore (a Run refuses a checkout with uncommitted changes), label a ticket ${config.labels.ready}, then \`ticket-runner run\`.`,
    );
  else lines.push("Nothing to do: this Target is already set up.");
  return { lines, changed };
}
