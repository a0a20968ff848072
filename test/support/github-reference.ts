/**
 * GitHub's own published descriptions of its API, as test oracles nobody here wrote:
 * - `@octokit/graphql-schema` 15.26.1 (published 2025-12-31): GitHub's public GraphQL schema;
 * - `@octokit/openapi` 23.0.2 (published 2026-09-09): GitHub's REST OpenAPI description
 *   (`api.github.com`), from github/rest-api-description.
 * Both are pinned exactly in package.json. When GitHub ships something newer than the package, the
 * reference is extended HERE, and only here, with a link to GitHub's announcement (EXTENSIONS).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildSchema,
  extendSchema,
  getNamedType,
  GraphQLError,
  Kind,
  NoDeprecatedCustomRule,
  parse,
  specifiedRules,
  valueFromAST,
  getVariableValues,
  getOperationAST,
  GraphQLInt,
  validate,
} from "graphql";
import type { ASTVisitor, DocumentNode, FieldNode, GraphQLSchema, ValidationContext } from "graphql";

/** The package exports no file paths; read it where npm put it. */
const SCHEMA_FILE = join(__dirname, "..", "..", "node_modules", "@octokit", "graphql-schema", "schema.graphql");

/**
 * Fields GitHub has shipped that the pinned schema package does not have yet. Each names where
 * GitHub announced it; remove an entry once the package carries the field.
 */
export const EXTENSIONS: { sdl: string; why: string }[] = [
  {
    sdl: "extend type Issue { blockedBy(after: String, before: String, first: Int, last: Int): IssueConnection! }",
    why: "Issue dependencies (blocked by / blocking), generally available on github.com: https://github.blog/changelog/2025-08-21-dependencies-on-issues/ ; GraphQL reference: https://docs.github.com/graphql/reference/objects#issue",
  },
];

let graphqlSchema: GraphQLSchema | null = null;

/** GitHub's GraphQL schema (the pinned package) with EXTENSIONS applied. */
export function githubGraphqlSchema(): GraphQLSchema {
  if (graphqlSchema) return graphqlSchema;
  const sdl = readFileSync(SCHEMA_FILE, "utf8");
  let schema = buildSchema(sdl, { assumeValidSDL: true });
  for (const e of EXTENSIONS) schema = extendSchema(schema, parse(e.sdl), { assumeValidSDL: true });
  graphqlSchema = schema;
  return schema;
}

/** GitHub's documented limits: https://docs.github.com/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api#node-limit */
export const NODE_LIMIT = { perConnection: 100, total: 500_000 };

function intArg(node: FieldNode, name: string, variables: Record<string, unknown>): number | undefined {
  const arg = node.arguments?.find((a) => a.name.value === name);
  if (!arg) return undefined;
  const v = valueFromAST(arg.value, GraphQLInt, variables);
  return typeof v === "number" ? v : undefined;
}

/**
 * GitHub's node limit, as documented: every connection gives `first` or `last`, each within 1-100,
 * and the nodes a call could return (each connection's limit times those of the connections it
 * sits in, summed) stay within 500,000. Named fragments are not followed; the product sends none.
 */
export function nodeLimitRule(variables: Record<string, unknown>): (context: ValidationContext) => ASTVisitor {
  return (context) => {
    const scale: number[] = [];
    let total = 0;
    return {
      OperationDefinition: {
        enter() {
          total = 0;
        },
        leave(node) {
          if (total > NODE_LIMIT.total)
            context.reportError(new GraphQLError(`This query requests up to ${total} nodes; GitHub's limit is ${NODE_LIMIT.total}.`, { nodes: node }));
        },
      },
      Field: {
        enter(node) {
          const outer = scale.at(-1) ?? 1;
          const named = context.getType() ? getNamedType(context.getType()!) : null;
          if (!named?.name.endsWith("Connection")) {
            scale.push(outer);
            return;
          }
          const first = intArg(node, "first", variables);
          const last = intArg(node, "last", variables);
          const limit = first ?? last;
          if (limit === undefined)
            context.reportError(new GraphQLError(`${node.name.value}: GitHub needs a \`first\` or \`last\` on every connection.`, { nodes: node }));
          else if (limit < 1 || limit > NODE_LIMIT.perConnection)
            context.reportError(
              new GraphQLError(`${node.name.value}: first/last is ${limit}; GitHub accepts 1 to ${NODE_LIMIT.perConnection}.`, { nodes: node }),
            );
          const nodes = outer * (limit ?? NODE_LIMIT.perConnection);
          total += nodes;
          scale.push(nodes);
        },
        leave() {
          scale.pop();
        },
      },
    };
  };
}

/**
 * Everything GitHub's schema says about one document and its variables: graphql-js's own
 * validation (fields, arguments, variable types and positions), no deprecated field, argument or
 * enum value, GitHub's node limit, and the variables' values coerced to their declared types.
 */
export function checkDocument(query: string, variables: Record<string, unknown> = {}): string[] {
  const schema = githubGraphqlSchema();
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch (e) {
    return [`does not parse: ${(e as Error).message}`];
  }
  const problems = validate(schema, doc, [...specifiedRules, NoDeprecatedCustomRule, nodeLimitRule(variables)]).map((e) => e.message);
  const op = getOperationAST(doc);
  if (!op) return [...problems, "no single operation"];
  if (problems.length === 0) {
    const coerced = getVariableValues(schema, op.variableDefinitions ?? [], variables);
    if (coerced.errors) problems.push(...coerced.errors.map((e) => `variables: ${e.message}`));
  }
  if (op.kind === Kind.OPERATION_DEFINITION && op.selectionSet.selections.length === 0) problems.push("selects nothing");
  return problems;
}
