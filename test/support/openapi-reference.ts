/**
 * GitHub's REST OpenAPI description (`@octokit/openapi`, pinned; see ./github-reference.ts for the
 * version and date) as an oracle: a response's status and body are checked against the operation's
 * documented response schema with ajv. OpenAPI 3.0's `nullable` is understood by ajv; GitHub's
 * extension keywords (`x-github`, examples) are ignored.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import type { ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

const ROOT = "https://api.github.com/openapi.json";

interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: unknown }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, Response>;
}
interface Spec {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Response>; schemas: Record<string, unknown> };
}

let loaded: { spec: Spec; ajv: Ajv } | null = null;

/**
 * OpenAPI 3.0 lets `nullable: true` stand beside `allOf`/`anyOf`/`$ref` without a `type`; ajv wants
 * a type there. The same meaning in JSON Schema: this, or null.
 */
function nullableAnywhere<T>(value: T): T {
  if (Array.isArray(value)) return value.map(nullableAnywhere) as T;
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = nullableAnywhere(v);
  // A nullable enum takes null too (OpenAPI 3.0.3: `nullable` adds null to the allowed values).
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  if (out.nullable === true && out.type === undefined) {
    const { nullable: _n, ...rest } = out;
    return { anyOf: [rest, { type: "null" }] } as T;
  }
  return out as T;
}

function load(): { spec: Spec; ajv: Ajv } {
  if (loaded) return loaded;
  const file = join(__dirname, "..", "..", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json");
  const spec = JSON.parse(readFileSync(file, "utf8")) as Spec;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: ROOT, components: nullableAnywhere(spec.components) });
  loaded = { spec, ajv };
  return loaded;
}

export function openapiVersion(): string {
  return load().spec.info.version;
}

/** The documented operation for a route as Octokit spells it ("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"). */
export function operation(route: string): Operation {
  const [method, path] = route.split(" ");
  const op = load().spec.paths[path ?? ""]?.[(method ?? "").toLowerCase()];
  if (!op) throw new Error(`GitHub's OpenAPI description has no operation ${route}`);
  return op;
}

const compiled = new Map<string, ValidateFunction | null>();

function responseOf(op: Operation, status: number): Response | undefined {
  const r = op.responses[String(status)];
  if (!r?.$ref) return r;
  return load().spec.components.responses[r.$ref.replace("#/components/responses/", "")];
}

function validatorFor(route: string, status: number): ValidateFunction | null {
  const key = `${route} ${status}`;
  if (compiled.has(key)) return compiled.get(key)!;
  const r = responseOf(operation(route), status);
  const schema = r?.content?.["application/json"]?.schema;
  const fn = schema
    ? load().ajv.compile(nullableAnywhere(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${ROOT}#/components/`))) as object)
    : null;
  compiled.set(key, fn);
  return fn;
}

/**
 * What is wrong with this answer according to GitHub's description: an undocumented status, or a
 * body its schema refuses (each problem with its JSON path). 304 has no body to check. Statuses
 * GitHub documents for every operation without listing them (401, 403/429 for rate limits; see
 * https://docs.github.com/rest/using-the-rest-api/troubleshooting-the-rest-api) are checked against
 * the shared `basic-error` schema.
 */
export function checkResponse(route: string, status: number, body: unknown): string[] {
  const op = operation(route);
  if (status === 304) return op.responses["304"] || route.startsWith("GET ") ? [] : [`${route}: 304 is not documented`];
  const documented = responseOf(op, status);
  if (!documented) {
    if ([401, 403, 429].includes(status)) return checkAgainst(`${ROOT}#/components/schemas/basic-error`, body, `${route} ${status}`);
    return [`${route}: status ${status} is not documented (documented: ${Object.keys(op.responses).join(", ")})`];
  }
  const fn = validatorFor(route, status);
  if (!fn) return [];
  if (fn(body)) return [];
  return (fn.errors ?? []).slice(0, 10).map((e) => `${route} ${status}: ${e.instancePath || "(body)"} ${e.message ?? "invalid"} ${JSON.stringify(e.params)}`);
}

function checkAgainst(ref: string, body: unknown, what: string): string[] {
  const fn = load().ajv.getSchema(ref) ?? load().ajv.compile({ $ref: ref });
  if (fn(body)) return [];
  return (fn.errors ?? []).map((e) => `${what}: ${e.instancePath || "(body)"} ${e.message ?? "invalid"}`);
}

/** The headers GitHub documents on the response (names, lower case). */
export function documentedHeaders(route: string, status: number): string[] {
  return Object.keys(responseOf(operation(route), status)?.headers ?? {}).map((h) => h.toLowerCase());
}
