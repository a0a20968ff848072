/**
 * A GitHub Enterprise Server without issue dependencies (fault `issueDependencies: false`): its
 * schema has no `Issue.blockedBy`, so any query naming it is rejected whole, before it runs. GitHub
 * reports that as `extensions: { code: "undefinedField", typeName, fieldName }` with the field's
 * path; this rule answers the same way so a client can branch on the code, not the message.
 */
import { GraphQLError, Kind } from "graphql";
import type { ASTNode, ValidationContext, ASTVisitor } from "graphql";

const REMOVED: Record<string, string[]> = { Issue: ["blockedBy"] };

export function noIssueDependenciesRule(context: ValidationContext): ASTVisitor {
  return {
    Field(node, _key, _parent, _path, ancestors) {
      const parent = context.getParentType()?.name;
      if (!parent || !REMOVED[parent]?.includes(node.name.value)) return;
      context.reportError(
        new GraphQLError(`Field '${node.name.value}' doesn't exist on type '${parent}'`, {
          nodes: node,
          extensions: { code: "undefinedField", typeName: parent, fieldName: node.name.value, path: pathOf(ancestors, node.name.value) },
        }),
      );
    },
  };
}

/** GitHub's path for a validation error: the operation, then each field down to the bad one. */
function pathOf(ancestors: readonly (ASTNode | readonly ASTNode[])[], field: string): string[] {
  const path: string[] = [];
  for (const a of ancestors) {
    if (Array.isArray(a)) continue;
    const n = a as ASTNode;
    if (n.kind === Kind.OPERATION_DEFINITION) path.push(`${n.operation}${n.name ? ` ${n.name.value}` : ""}`);
    if (n.kind === Kind.FIELD) path.push(n.alias?.value ?? n.name.value);
  }
  return [...path, field];
}
