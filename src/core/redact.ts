/**
 * Removes secrets from text before it reaches a log, transcript, comment or error.
 * Known token shapes are masked wherever they appear, and so is the literal value of every
 * secret-bearing environment variable, whatever its shape.
 */
const TOKEN_PATTERNS: RegExp[] = [
  /\b(gh[pousr]_[A-Za-z0-9]{20,})\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\btrsb_[A-Za-z0-9]{16,}\b/g, // sandbox tokens
  /(x-access-token:)[^@\s]+(@)/g,
  // user:password@ and a bare token@ (git and GitHub take a token as the user name alone).
  /(https?:\/\/)[^/\s@]+@/g,
  /\b(authorization:\s*(?:bearer|token|basic)\s+)\S+/gi,
];

const SECRET_ENV = ["GITHUB_TOKEN", "GH_TOKEN", "TICKET_RUNNER_TOKEN", "TICKET_RUNNER_SANDBOX_TOKEN", "ANTHROPIC_API_KEY"];

/**
 * Only the variables `redactSecrets` reads, with `token` as TICKET_RUNNER_TOKEN when given: a copy
 * of the whole environment (process.env is read variable by variable) for every log line or write
 * cost more than the redaction itself.
 */
export function secretEnv(env: Record<string, string | undefined>, token?: string): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name of SECRET_ENV) out[name] = env[name];
  if (token !== undefined) out.TICKET_RUNNER_TOKEN = token;
  return out;
}

export function redactSecrets(text: string, env: Record<string, string | undefined> = {}): string {
  let out = text;
  for (const name of SECRET_ENV) {
    const value = env[name];
    if (value && value.length >= 6) out = out.split(value).join("***");
  }
  out = out.replace(TOKEN_PATTERNS[0]!, "***");
  out = out.replace(TOKEN_PATTERNS[1]!, "***");
  out = out.replace(TOKEN_PATTERNS[2]!, "***");
  out = out.replace(TOKEN_PATTERNS[3]!, "$1***$2");
  out = out.replace(TOKEN_PATTERNS[4]!, "$1***@");
  out = out.replace(TOKEN_PATTERNS[5]!, "$1***");
  return out;
}
