/**
 * Optional GitHub features a server may lack. github.com has them all; a GitHub Enterprise Server
 * may predate one (issue dependencies: `Issue.blockedBy`). Each is learnt once per client, so once
 * per Target and connection: the first query that names the feature either works, or is refused
 * because the server's schema lacks the field. Then every later caller (the board, the Run's
 * Frontier check) asks the fallback at once. A new client (new token or API URL) asks again.
 * See ADR 0131.
 */

export type OptionalFeature = "issueDependencies";

interface FeatureField {
  /** The feature, as GitHub's docs name it. */
  name: string;
  typeName: string;
  fieldName: string;
  /** What a person loses without it, for the one warning. */
  without: string;
}

const FIELDS: Record<OptionalFeature, FeatureField> = {
  issueDependencies: {
    name: "issue dependencies",
    typeName: "Issue",
    fieldName: "blockedBy",
    without: "blocked issues are not shown on the board and do not hold a ticket back",
  },
};

const lacking = new WeakMap<object, Set<OptionalFeature>>();

export function lacks(client: object, feature: OptionalFeature): boolean {
  return lacking.get(client)?.has(feature) ?? false;
}

interface GraphqlErrorLike {
  type?: unknown;
  message?: unknown;
  path?: unknown;
  extensions?: { code?: unknown; fieldName?: unknown; typeName?: unknown };
}

/**
 * True when GitHub refused the document only because the feature's field is not in its schema.
 * GitHub says so with `extensions.code: "undefinedField"` and `fieldName`; an older answer may carry
 * only a `type` and the field's path. Any other error is a real failure.
 */
function refusesFeature(e: unknown, feature: OptionalFeature): boolean {
  const { typeName, fieldName } = FIELDS[feature];
  const errors = typeof e === "object" && e !== null ? (e as { errors?: unknown }).errors : undefined;
  if (!Array.isArray(errors) || errors.length === 0) return false;
  return (errors as GraphqlErrorLike[]).every((x) => {
    const code = x.extensions?.code ?? x.type;
    const field = x.extensions?.fieldName ?? (Array.isArray(x.path) ? x.path[x.path.length - 1] : undefined);
    if (code === "undefinedField") return field === fieldName && (x.extensions?.typeName ?? typeName) === typeName;
    return typeof x.message === "string" && saysFieldIsUnknown(x.message, typeName, fieldName);
  });
}

/**
 * The last resort, for a server that names the problem only in words (no code, no path): the
 * message GitHub and graphql-js give for a field missing from the schema. Text only here.
 */
function saysFieldIsUnknown(message: string, typeName: string, fieldName: string): boolean {
  return (
    message.startsWith(`Field '${fieldName}' doesn't exist on type '${typeName}'`) ||
    message.startsWith(`Cannot query field "${fieldName}" on type "${typeName}"`)
  );
}

/** The API host for the warning (no path, no token). */
function serverOf(client: object): string {
  const url = (client as { request?: { endpoint?: { DEFAULTS?: { baseUrl?: unknown } } } }).request?.endpoint?.DEFAULTS?.baseUrl;
  return typeof url === "string" ? url : "this API URL";
}

/**
 * Runs `withIt`, unless the client's server is known to lack `feature`; when the server refuses the
 * feature's field, remembers that for the client, warns once, and runs `without`.
 */
export async function withOptionalFeature<T>(
  client: object,
  feature: OptionalFeature,
  log: { warn(message: string): void } | undefined,
  withIt: () => Promise<T>,
  without: () => Promise<T>,
): Promise<T> {
  if (lacks(client, feature)) return without();
  try {
    return await withIt();
  } catch (e) {
    if (!refusesFeature(e, feature)) throw e;
  }
  const set = lacking.get(client) ?? new Set<OptionalFeature>();
  lacking.set(client, set);
  if (!set.has(feature)) {
    set.add(feature);
    const f = FIELDS[feature];
    log?.warn(`the GitHub server at ${serverOf(client)} has no ${f.name} (${f.typeName}.${f.fieldName}; an older GitHub Enterprise Server?): ${f.without}`);
  }
  return without();
}
