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
import { secretLintProfiler } from "@secretlint/profiler";
import { rules as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import { redactSecrets } from "../core/redact";
import { LruMemo } from "./lru-memo";

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
function redactionMark(kind: string): string {
  return `[redacted: ${kind.replace(/[^A-Za-z0-9 ._()-]/g, "")}]`;
}

function kindOf(message: { messageId: string; data?: object }): string {
  const data = message.data as { typeName?: unknown } | undefined;
  return typeof data?.typeName === "string" ? data.typeName : message.messageId;
}

interface Finding {
  value: string;
  kind: string;
}

type Counts = Map<string, number>;

function found(counts: Counts): Scrubbed["found"] {
  return [...counts].map(([kind, count]) => ({ kind, count }));
}

// Joins many strings for one scan; no rule's pattern spans a NUL.
const SEPARATOR = "\n\u0000\n";

/**
 * One secretlint pass over `text`. A rule's range is not always the secret's (the AWS rule's starts
 * at the key's name), so the secret's own value, which the rule reports in its data, comes first;
 * then the text of the range. One pass over many strings joined is what keeps this cheap: secretlint
 * costs milliseconds per call, whatever the length.
 */
/**
 * secretlint's profiler (a singleton every scan reports to) puts a `performance.mark` on every
 * rule's start and end, matches each against a pattern, queues a `performance.measure` for it and
 * keeps them all: about half a scan's CPU, for timings nothing reads, and a record that grew
 * quadratic in CPU over a long Run (4.7 of a 4-ticket, 4-Lane Run's 9 CPU-seconds). Its marks are
 * switched off once, here (ADR 0410); the scan's findings do not depend on them.
 */
secretLintProfiler.mark = () => undefined;

/**
 * What one scan found, by the exact text scanned (ADR 0508). The findings are a function of the text
 * alone (the rules and their options are fixed above), and a Run scans the same text many times: the
 * GraphQL variables of every read of a ticket (owner, name, number), a merge's `squash`, a node id.
 * A text seen before is answered from here, not by a new secretlint pass (~0.4 ms of CPU each); a
 * text not seen is scanned as before, so nothing is ever masked less. Small texts only, and the
 * least recently used go first, so it holds at most 256 × MEMO_TEXT_MAX characters.
 */
const MEMO_TEXT_MAX = 4096;
const memo = new LruMemo<string, readonly Finding[]>(256);

async function findSecrets(text: string): Promise<readonly Finding[]> {
  if (text.length > MEMO_TEXT_MAX) return scan(text);
  const known = memo.get(text);
  if (known) return known;
  const findings = Object.freeze(await scan(text));
  memo.set(text, findings);
  return findings;
}

/** How many texts the memo holds and how many scans it answered (for its tests). */
export function scanMemoStats(): { size: number; hits: number } {
  return { size: memo.size, hits: memo.hits };
}

async function scan(text: string): Promise<Finding[]> {
  const result = await lintSource({
    source: { content: text, filePath: "/text", ext: "", contentType: "text" },
    options: { config: CONFIG, maskSecrets: false },
  });
  const exact: Finding[] = [];
  const ranged: Finding[] = [];
  for (const m of result.messages) {
    const kind = kindOf(m);
    for (const [key, v] of Object.entries(m.data ?? {})) if (key !== "typeName" && typeof v === "string" && v.length >= 8) exact.push({ value: v, kind });
    const inRange = text.slice(m.range[0], m.range[1]);
    if (inRange.length >= 8 && !inRange.includes(SEPARATOR)) ranged.push({ value: inRange, kind });
  }
  const longestFirst = (a: Finding, b: Finding) => b.value.length - a.value.length;
  return [...exact.sort(longestFirst), ...ranged.sort(longestFirst)];
}

function maskAll(text: string, findings: readonly Finding[], counts: Counts): string {
  let out = text;
  for (const f of findings) {
    if (!out.includes(f.value)) continue;
    const parts = out.split(f.value);
    counts.set(f.kind, (counts.get(f.kind) ?? 0) + parts.length - 1);
    out = parts.join(redactionMark(f.kind));
  }
  return out;
}

/** Masks the known tokens (`redactSecrets`) and every secret secretlint finds in each of `texts`, with one scan. */
async function scrubMany(texts: string[], env: Record<string, string | undefined>, counts: Counts): Promise<string[]> {
  const first = texts.map((t) => {
    const r = redactSecrets(t, env);
    if (r !== t) counts.set("token", (counts.get("token") ?? 0) + 1);
    return r;
  });
  const findings = await findSecrets(first.join(SEPARATOR));
  return findings.length === 0 ? first : first.map((t) => maskAll(t, findings, counts));
}

/** Masks every secret secretlint finds, after `redactSecrets` masked the known tokens. */
export async function scrubSecrets(text: string, env: Record<string, string | undefined> = process.env): Promise<Scrubbed> {
  const counts: Counts = new Map();
  const [out] = await scrubMany([text], env, counts);
  return { text: out!, found: found(counts) };
}

/** Every string inside a JSON value (keys too), in a fixed walk order. */
function stringsOf(v: unknown, out: string[]): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (v && typeof v === "object") {
    for (const [k, inner] of Object.entries(v)) {
      out.push(k);
      stringsOf(inner, out);
    }
  }
  return out;
}

/** Rebuilds `v` with its strings taken, in the same walk order, from `next`. */
function withStrings(v: unknown, next: () => string): unknown {
  if (typeof v === "string") return next();
  if (Array.isArray(v)) return v.map((x) => withStrings(x, next));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [, inner] of Object.entries(v)) {
      const key = next();
      out[key] = withStrings(inner, next);
    }
    return out;
  }
  return v;
}

function replaceStrings<T>(values: T[], scrubbed: string[]): T[] {
  let i = 0;
  const next = () => scrubbed[i++]!;
  return values.map((v) => withStrings(v, next) as T);
}

/** Scrubs every string inside a JSON value (keys too), so a secret split by JSON escapes (`\n` in a private key) is still seen. */
export async function scrubJsonValue<T>(value: T, env: Record<string, string | undefined> = process.env): Promise<{ value: T; found: Scrubbed["found"] }> {
  const counts: Counts = new Map();
  const strings = stringsOf(value, []);
  if (strings.length === 0) return { value, found: [] };
  const scrubbed = await scrubMany(strings, env, counts);
  if (counts.size === 0) return { value, found: [] };
  return { value: replaceStrings([value], scrubbed)[0]!, found: found(counts) };
}

/**
 * Scrubs a transcript (.jsonl: each line's JSON strings; a line that is not JSON as text) with one
 * scan and, when it masked anything, ends it with one `ticket_runner_redaction` line saying what and how often.
 */
export async function scrubTranscript(text: string, env: Record<string, string | undefined> = process.env): Promise<Scrubbed> {
  const lines = text.split("\n").map((line): { raw: string; json: object | null } => {
    try {
      const parsed: unknown = line.trim() ? JSON.parse(line) : null;
      return { raw: line, json: parsed && typeof parsed === "object" ? parsed : null };
    } catch {
      return { raw: line, json: null };
    }
  });
  const perLine = lines.map((l) => (l.json ? stringsOf(l.json, []) : [l.raw]));
  const counts: Counts = new Map();
  const scrubbed = await scrubMany(perLine.flat(), env, counts);
  if (counts.size === 0) return { text, found: [] };
  let at = 0;
  const out = lines.map((l, i) => {
    const mine = scrubbed.slice(at, at + perLine[i]!.length);
    at += perLine[i]!.length;
    if (mine.every((s, j) => s === perLine[i]![j])) return l.raw;
    return l.json ? JSON.stringify(replaceStrings([l.json], mine)[0]) : mine[0]!;
  });
  const note = JSON.stringify({ type: "ticket_runner_redaction", note: "Secrets were masked before this file left the machine.", redacted: found(counts) });
  const body = out.join("\n");
  return { text: body.endsWith("\n") ? `${body}${note}\n` : `${body}\n${note}\n`, found: found(counts) };
}
