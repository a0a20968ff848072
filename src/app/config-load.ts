/**
 * Reads and validates `ticket-runner.json`, the Target's config. Every error names the file, the
 * key and the fix; an unknown key (a typo) is an error rather than a silent default. A Target
 * without the file has not been set up: `ticket-runner init` makes it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z, type ZodIssue } from "zod";
import { Refusal } from "../core/errors";
import { configSchema } from "../core/schemas/config";
import type { Config } from "../core/schemas/config";

export const CONFIG_FILE = "ticket-runner.json";

type AnySchema = z.ZodTypeAny;

/** The object schema under defaults, optionals and refinements, or null when `schema` is no object. */
function objectShape(schema: AnySchema): Record<string, AnySchema> | null {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodDefault) s = s._def.innerType as AnySchema;
    else if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as AnySchema;
    else if (s instanceof z.ZodEffects) s = s.innerType() as AnySchema;
    else break;
  }
  return s instanceof z.ZodObject ? (s.shape as Record<string, AnySchema>) : null;
}

/** The keys the schema allows at `parent` ("" for the top level, "agent", …): read from the zod schema, so a new key is known once it is in the schema. */
export function knownKeys(parent: string): string[] {
  let shape = objectShape(configSchema);
  for (const key of parent ? parent.split(".") : []) {
    const next = shape?.[key];
    shape = next ? objectShape(next) : null;
  }
  return shape ? Object.keys(shape) : [];
}

/** The closest known key by edit distance, when it is close enough to be a typo. */
function suggest(key: string, known: string[]): string | null {
  const distance = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0]![j] = j;
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
      }
    }
    return d[a.length]![b.length]!;
  };
  let best: { key: string; d: number } | null = null;
  for (const k of known) {
    const d = distance(key, k);
    if (!best || d < best.d) best = { key: k, d };
  }
  return best && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.key : null;
}

function describeIssue(issue: ZodIssue): string {
  const where = issue.path.length ? issue.path.join(".") : "the top level";
  if (issue.code === "unrecognized_keys") {
    const parent = issue.path.join(".");
    const known = knownKeys(parent);
    return issue.keys
      .map((k) => {
        const near = suggest(k, known);
        const full = parent ? `${parent}.${k}` : k;
        return `unknown key "${full}"${near ? ` (did you mean "${parent ? `${parent}.` : ""}${near}"?)` : ""}; the keys allowed ${parent ? `in "${parent}"` : "at the top level"} are ${known.join(", ")}`;
      })
      .join("; ");
  }
  return `"${where}": ${issue.message}`;
}

/** Validates a parsed value; `source` names where it came from in the error. */
export function parseConfig(raw: unknown, source: string): Config {
  const parsed = configSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(describeIssue);
  throw new Refusal(
    "bad-config",
    `${source} is not a valid Ticket Runner config: ${problems.join("; ")}. Fix the file (docs/configuration.md lists every key) and run the command again.`,
    {
      path: source,
      next: `fix ${path.basename(source)} (docs/configuration.md lists every key), then run the command again`,
    },
  );
}

/** The file's text; null when there is no file. */
function readConfigText(root: string): string | null {
  const file = path.join(root, CONFIG_FILE);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Refusal("bad-config", `Could not read ${file}: ${(error as Error).message}.`, { path: file });
  }
}

function parseConfigText(text: string, file: string): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Refusal("bad-config", `${file} is not valid JSON: ${(error as Error).message}. Fix the JSON and run the command again.`, {
      path: file,
      next: `fix the JSON in ${file}, then run the command again`,
    });
  }
  return parseConfig(raw, file);
}

/** The Target's config, for what needs it set up (a Run, `init`'s labels): no file is `ticket-runner init`. */
export function loadConfig(root: string): Config {
  const file = path.join(root, CONFIG_FILE);
  const text = readConfigText(root);
  if (text === null) {
    throw new Refusal(
      "not-a-target",
      `${root} has no ${CONFIG_FILE}, so Ticket Runner has not been set up for this Target. Set it up with \`ticket-runner init\`.`,
      { path: file, next: "ticket-runner init" },
    );
  }
  return parseConfigText(text, file);
}

/**
 * The Target's config for what works without it (the board, a claim, a release: the default
 * labels and lease): outside a checkout, or with no file, the defaults; a file that is there is
 * read and refused exactly as loadConfig does, never silently replaced by the defaults.
 */
export function loadConfigOrDefaults(root: string | null): Config {
  const text = root === null ? null : readConfigText(root);
  if (root === null || text === null) return configSchema.parse({});
  return parseConfigText(text, path.join(root, CONFIG_FILE));
}
