import type * as vscode from "vscode";
import type { Log, LogFields } from "../ports/log";
import { redactSecrets } from "../core/redact";

/**
 * The Log port over the extension's LogOutputChannel. Redacts every line, whatever the caller passed.
 * Octokit's per-request lines arrive here already as debug (createOctokit, the CLI's client too).
 */
export function createChannelLog(channel: vscode.LogOutputChannel, env: NodeJS.ProcessEnv = process.env): Log {
  const line = (message: string, fields?: LogFields): string => redactSecrets(message + formatFields(fields), env);
  return {
    debug: (message, fields) => channel.debug(line(message, fields)),
    info: (message, fields) => channel.info(line(message, fields)),
    warn: (message, fields) => channel.warn(line(message, fields)),
    error: (message, fields) => channel.error(line(message, fields)),
  };
}

function formatFields(fields: LogFields | undefined): string {
  if (!fields) return "";
  const parts = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" && /\s/.test(v) ? JSON.stringify(v) : String(v)}`);
  return parts.length ? " " + parts.join(" ") : "";
}
