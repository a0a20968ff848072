import { z } from "zod";
import { GITHUB_TOKEN_VARS } from "../token-vars";

export const AGENT_KINDS = ["claude", "codex", "gemini", "demo", "command"] as const;

/** How a person reads each agent's name (the Start confirmation, the CLI). */
export const AGENT_NAMES: Record<(typeof AGENT_KINDS)[number], string> = {
  claude: "Claude Code",
  codex: "Codex CLI",
  gemini: "Gemini CLI",
  demo: "demo",
  command: "command",
};

/**
 * `ticket-runner.json` in the Target: the team's settings, read by the CLI and the extension alike.
 * Strict: an unknown key is an error that names the key (a typo must not silently fall back to a default).
 */
export const configSchema = z
  .object({
    $schema: z.string().optional(),
    labels: z
      .object({
        ready: z.string().min(1).default("ready-for-agent"),
        inProgress: z.string().min(1).default("in-progress"),
        human: z.string().min(1).default("ready-for-human"),
        hostLabels: z.boolean().default(false),
      })
      .strict()
      .default({}),
    base: z.string().min(1).optional(),
    lanes: z.number().int().min(1).max(16).default(1),
    lockScope: z.enum(["target", "host"]).default("target"),
    checks: z.array(z.array(z.string().min(1)).min(1)).default([]),
    checkTimeoutMinutes: z.number().positive().max(240).default(20),
    /** Variables of the Run the Checks also get, by name or `PREFIX*` (ADR 0151). */
    checkEnv: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, "must be a variable name, or a prefix ending in *")
          .refine((n) => !GITHUB_TOKEN_VARS.some((t) => t.startsWith(n.replace(/\*$/, "")) && (n.endsWith("*") || t === n)), {
            message: "names a GitHub token variable: the Checks run code the agent wrote and never get the Run's token",
          }),
      )
      .default([]),
    /**
     * Where the agent and the Checks run (ADR 0290): "sandbox" (bubblewrap: they cannot see the Run's
     * processes nor write the clone's git control files) or "none" (as the Run's user, beside it).
     * Unset: "sandbox" on Linux, "none" elsewhere.
     */
    isolation: z.enum(["sandbox", "none"]).optional(),
    agent: z
      .object({
        kind: z.enum(AGENT_KINDS).default("claude"),
        /** For "command": the claude-compatible executable and its arguments. For the others: the executable to run instead of the one on the PATH. */
        command: z.array(z.string().min(1)).min(1).optional(),
        /** Extra arguments after the runner's own (codex, gemini), e.g. a provider's `-c` keys. */
        args: z.array(z.string()).default([]),
        model: z.string().min(1).optional(),
        permissionMode: z.enum(["default", "acceptEdits", "bypassPermissions", "plan"]).default("acceptEdits"),
        maxTurns: z.number().int().positive().max(500).default(60),
        stageTimeoutMinutes: z.number().positive().max(600).default(45),
        passGitHubToken: z.boolean().default(false),
      })
      .strict()
      .default({}),
    lease: z
      .object({
        ttlMinutes: z
          .number()
          .positive()
          .max(24 * 60)
          .default(45),
        heartbeatMinutes: z
          .number()
          .positive()
          .max(24 * 60)
          .default(30),
        settleMs: z.number().int().min(0).max(60_000).default(1500),
      })
      .strict()
      .default({}),
    ci: z
      .object({
        required: z.boolean().default(true),
        graceMinutes: z.number().positive().max(120).default(5),
        timeoutMinutes: z
          .number()
          .positive()
          .max(24 * 60)
          .default(60),
        pollSeconds: z.number().positive().max(600).default(15),
      })
      .strict()
      .default({}),
    merge: z
      .object({ method: z.enum(["squash", "merge", "rebase"]).default("squash") })
      .strict()
      .default({}),
  })
  .strict()
  // A heartbeat slower than the lease's lifetime would let a live claim look stale to other Hosts.
  .refine((c) => c.lease.heartbeatMinutes < c.lease.ttlMinutes, {
    path: ["lease", "heartbeatMinutes"],
    message: "must be shorter than lease.ttlMinutes, or a live claim expires between two heartbeats",
  })
  .refine((c) => c.agent.kind !== "command" || c.agent.command !== undefined, {
    path: ["agent", "command"],
    message: 'is required when agent.kind is "command" (the argv of a claude-compatible executable)',
  });

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
