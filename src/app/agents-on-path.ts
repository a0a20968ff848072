/** Which coding-agent CLIs `ticket-runner init` finds on the PATH, in the order it prefers them. */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export const DETECTED_AGENTS = [
  { kind: "claude", executable: "claude", install: "npm install -g @anthropic-ai/claude-code" },
  { kind: "codex", executable: "codex", install: "npm install -g @openai/codex" },
  { kind: "gemini", executable: "gemini", install: "npm install -g @google/gemini-cli" },
] as const;

export type DetectedAgentKind = (typeof DETECTED_AGENTS)[number]["kind"];

function onPath(executable: string, pathVar: string): boolean {
  return pathVar
    .split(delimiter)
    .filter((dir) => dir.length > 0)
    .some((dir) => {
      try {
        accessSync(join(dir, executable), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

export function agentsOnPath(env: NodeJS.ProcessEnv): DetectedAgentKind[] {
  const pathVar = env.PATH ?? "";
  return DETECTED_AGENTS.filter((a) => onPath(a.executable, pathVar)).map((a) => a.kind);
}
