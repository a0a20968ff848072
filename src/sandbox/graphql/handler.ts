/**
 * POST /graphql (https://docs.github.com/graphql/guides/forming-calls-with-graphql).
 * Always needs a token, as on GitHub. Queries read the lagged view when read lag is on;
 * mutations act on live state and count as writes for the secondary rate limit.
 */
import { execute, getOperationAST, parse, validate } from "graphql";
import type { DocumentNode, GraphQLError } from "graphql";
import { z } from "zod";
import { HttpError, ok, parseBody } from "../http";
import type { Router } from "../router";
import { rootValue } from "./resolvers";
import { noIssueDependenciesRule } from "./no-dependencies";
import { sandboxSchema } from "./schema";
import type { GqlCtx } from "./models";

const requestSchema = z
  .object({ query: z.string(), variables: z.record(z.unknown()).nullable().optional(), operationName: z.string().nullable().optional() })
  .strict();

const root = rootValue();
const documents = new Map<string, DocumentNode>();
const httpTypes: Record<number, string> = { 403: "FORBIDDEN", 404: "NOT_FOUND", 422: "UNPROCESSABLE", 409: "UNPROCESSABLE", 405: "UNPROCESSABLE" };

function shape(errors: readonly GraphQLError[]): Record<string, unknown>[] {
  return errors.map((e) => {
    const original = e.originalError;
    const fromHttp = original instanceof HttpError ? (httpTypes[original.status] ?? "UNPROCESSABLE") : undefined;
    const type = typeof e.extensions.type === "string" ? e.extensions.type : fromHttp;
    // A schema error GitHub-style (see no-dependencies.ts): the path of the field, and a code.
    const { path, ...extensions } = e.extensions;
    if (typeof extensions.code === "string") return { path, extensions, locations: e.locations, message: e.message };
    return { ...(type ? { type } : {}), path: e.path, locations: e.locations, message: e.message };
  });
}

export function registerGraphql(router: Router): void {
  router.add("POST", "/graphql", async (ctx) => {
    if (!ctx.user) throw new HttpError(401, "This endpoint requires you to be authenticated.");
    const body = parseBody(requestSchema, ctx.body, "GraphQL");
    let document = documents.get(body.query);
    if (!document) {
      try {
        document = parse(body.query);
      } catch (e) {
        return ok({ errors: shape([e as GraphQLError]) });
      }
      const problems = validate(sandboxSchema, document);
      if (problems.length) return ok({ errors: shape(problems) });
      // Clients send the same few documents over and over; parse and validate each once.
      if (documents.size >= 200) documents.clear();
      documents.set(body.query, document);
    }
    if (ctx.app.faults.faults.issueDependencies === false) {
      const problems = validate(sandboxSchema, document, [noIssueDependenciesRule]);
      if (problems.length) return ok({ errors: shape(problems) });
    }
    const operation = getOperationAST(document, body.operationName ?? undefined);
    if (!operation) return ok({ errors: [{ message: "No operation given, or the operation name does not match." }] });
    const isMutation = operation.operation === "mutation";
    if (isMutation) ctx.app.faults.countWrite(ctx.user.login);
    const gctx: GqlCtx = { app: ctx.app, state: isMutation ? ctx.app.store.state : ctx.app.store.view(), viewer: ctx.user };
    const result = await execute({
      schema: sandboxSchema,
      document,
      rootValue: root,
      contextValue: gctx,
      variableValues: body.variables ?? {},
      operationName: body.operationName ?? undefined,
    });
    const reply = ok(result.errors?.length ? { data: result.data ?? null, errors: shape(result.errors) } : { data: result.data });
    // A query reads the lagged view and changes nothing: saving the whole state for it is waste.
    return isMutation ? reply : { ...reply, readOnly: true };
  });
}
