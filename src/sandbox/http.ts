/** HTTP plumbing shared by every route: replies, GitHub-shaped errors, body validation. */
import type { z } from "zod";

const DOCS = "https://docs.github.com/rest";

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A POST that changed nothing (a GraphQL query): the store is not saved for it. */
  readOnly?: true;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function ok(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return headers ? { status, body, headers } : { status, body };
}

export function noContent(): Reply {
  return { status: 204 };
}

export function notFound(): HttpError {
  return new HttpError(404, "Not Found");
}

export interface FieldError {
  resource: string;
  field?: string;
  code: string;
  message?: string;
}

/** GitHub's 422 "Validation Failed" with an `errors` array. */
export function validationFailed(errors: FieldError[], message = "Validation Failed"): HttpError {
  return new HttpError(422, message, { errors });
}

export function errorBody(err: HttpError): Record<string, unknown> {
  return { message: err.message, ...err.extra, documentation_url: DOCS, status: String(err.status) };
}

/**
 * Validates a JSON body the way GitHub's schema layer does: wrong types and unknown keys are
 * 422 "Invalid request." with a sentence per problem.
 */
export function parseBody<T extends z.ZodTypeAny>(schema: T, body: unknown, resource: string): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data as z.infer<T>;
  const lines: string[] = [];
  const errors: FieldError[] = [];
  for (const issue of result.error.issues) {
    const field = issue.path.join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        lines.push(`"${key}" is not a permitted key.`);
        errors.push({ resource, field: key, code: "invalid" });
      }
    } else if (valueAt(body, issue.path) === undefined && issue.path.length > 0) {
      lines.push(`"${field}" wasn't supplied.`);
      errors.push({ resource, field, code: "missing_field" });
    } else {
      lines.push(`For '${field || "body"}': ${JSON.stringify(valueAt(body, issue.path)) ?? "null"} is not valid (${issue.message}).`);
      errors.push({ resource, field, code: "invalid", message: issue.message });
    }
  }
  throw new HttpError(422, `Invalid request.\n\n${lines.join("\n")}`, { errors });
}

function valueAt(body: unknown, path: (string | number)[]): unknown {
  let v: unknown = body;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

/** GitHub's limit on issue and comment bodies. */
const MAX_BODY_CHARS = 65536;

export function checkBodyLength(body: string | null | undefined, resource: string): void {
  if (body && body.length > MAX_BODY_CHARS) {
    throw validationFailed([{ resource, field: "body", code: "custom", message: `body is too long (maximum is ${MAX_BODY_CHARS} characters)` }]);
  }
}
