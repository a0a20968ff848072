/**
 * The scan every text gets before it leaves this machine (a comment, a pull request, a State file, a
 * transcript kept on the State branch): `redactSecrets` (the Run's own tokens, by value and shape),
 * then secretlint's recommended preset, which knows the shapes of other services' keys (AWS, GCP,
 * Slack, OpenAI, Anthropic, private keys, connection strings…). ADR 0160.
 *
 * The preset's `filter-comments` rule is off: it lets text carrying `secretlint-disable` switch the
 * scan off, and the text here is written by strangers and agents.
 */
import { lintSource } from "@secretlint/core";
import { rules as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import { redactSecrets } from "../core/redact";

type Config = Parameters<typeof lintSource>[0]["options"]["config"];

const FILTER_COMMENTS = "@secretlint/secretlint-rule-filter-comments";
const RULE_OPTIONS: Record<string, object> = { "@secretlint/secretlint-rule-aws": { enableIDScanRule: true } };

// The preset's rules one by one rather than the preset: secretlint 12 ignores `disabled` on a rule
// inside a preset, and filter-comments must not run.
const CONFIG: Config = {
  rules: recommended
    .filter((rule) => rule.meta.id !== FILTER_COMMENTS)
    .map((rule) => ({ id: rule.meta.id, rule, ...(RULE_OPTIONS[rule.meta.id] ? { options: RULE_OPTIONS[rule.meta.id] } : {}) })) as Config["rules"],
};

export interface Scrubbed {
  text: string;
  /** What was masked, one entry per kind (`GitHub personal access tokens`, `AWSSecretAccessKey`…), with how often. */
  found: { kind: string; count: number }[];
}

/** The mark left where a secret was: it says what kind was there and never a character of it. */
export function redactionMark(kind: string): string {
  return `[redacted: ${kind.replace(/[^A-Za-z0-9 ._()-]/g, "")}]`;
}

function kindOf(message: { messageId: string; data?: object }): string {
  const data = message.data as { typeName?: unknown } | undefined;
  return typeof data?.typeName === "string" ? data.typeName : message.messageId;
}

/** Masks every secret secretlint finds, after `redactSecrets` masked the known tokens. */
export async function scrubSecrets(text: string, env: Record<string, string | undefined> = process.env): Promise<Scrubbed> {
  const first = redactSecrets(text, env);
  const counts = new Map<string, number>();
  if (first !== text) counts.set("token", 1);
  const result = await lintSource({ source: { content: first, filePath: "/text", ext: "", contentType: "text" }, options: { config: CONFIG, maskSecrets: false } });
  // A rule's range is not always the secret's (the AWS rule's starts at the key's name), so the
  // secret's own value, which the rule reports in its data, is masked wherever it appears as well.
  const hits: { start: number; end: number; kind: string }[] = [];
  for (const m of result.messages) {
    const kind = kindOf(m);
    hits.push({ start: m.range[0], end: m.range[1], kind });
    for (const value of Object.entries(m.data ?? {}).flatMap(([k, v]) => (k !== "typeName" && typeof v === "string" && v.length >= 8 ? [v] : []))) {
      for (let i = first.indexOf(value); i >= 0; i = first.indexOf(value, i + value.length)) hits.push({ start: i, end: i + value.length, kind });
    }
  }
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let at = 0;
  let open: { end: number; kind: string } | null = null;
  for (const hit of hits) {
    if (open && hit.start <= open.end) {
      open.end = Math.max(open.end, hit.end);
      continue;
    }
    if (open) at = open.end;
    out += first.slice(at, hit.start) + redactionMark(hit.kind);
    open = { end: hit.end, kind: hit.kind };
    counts.set(hit.kind, (counts.get(hit.kind) ?? 0) + 1);
  }
  if (open) at = open.end;
  out += first.slice(at);
  return { text: out, found: [...counts].map(([kind, count]) => ({ kind, count })) };
}

function merge(into: Map<string, number>, found: Scrubbed["found"]): void {
  for (const f of found) into.set(f.kind, (into.get(f.kind) ?? 0) + f.count);
}

/** Scrubs every string inside a JSON value (keys too), so a secret split by JSON escapes (`\n` in a private key) is still seen. */
export async function scrubJsonValue<T>(value: T, env: Record<string, string | undefined> = process.env): Promise<{ value: T; found: Scrubbed["found"] }> {
  const counts = new Map<string, number>();
  const walk = async (v: unknown): Promise<unknown> => {
    if (typeof v === "string") {
      const s = await scrubSecrets(v, env);
      merge(counts, s.found);
      return s.text;
    }
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) out[(await walk(k)) as string] = await walk(inner);
      return out;
    }
    return v;
  };
  const value2 = (await walk(value)) as T;
  return { value: value2, found: [...counts].map(([kind, count]) => ({ kind, count })) };
}

/**
 * Scrubs a transcript (.jsonl: each line's JSON strings; a line that is not JSON as text) and, when it
 * masked anything, ends it with one `ticket_runner_redaction` line saying what and how often.
 */
export async function scrubTranscript(text: string, env: Record<string, string | undefined> = process.env): Promise<Scrubbed> {
  const counts = new Map<string, number>();
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    let parsed: unknown;
    try {
      parsed = line.trim() ? JSON.parse(line) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || typeof parsed !== "object" || parsed === null) {
      const s = await scrubSecrets(line, env);
      merge(counts, s.found);
      lines.push(s.text);
      continue;
    }
    const s = await scrubJsonValue(parsed, env);
    merge(counts, s.found);
    lines.push(s.found.length > 0 ? JSON.stringify(s.value) : line);
  }
  const found = [...counts].map(([kind, count]) => ({ kind, count }));
  if (found.length === 0) return { text, found };
  const note = JSON.stringify({ type: "ticket_runner_redaction", note: "Secrets were masked before this file left the machine.", redacted: found });
  const body = lines.join("\n");
  return { text: body.endsWith("\n") ? `${body}${note}\n` : `${body}\n${note}\n`, found };
}
