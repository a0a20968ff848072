/**
 * The sandbox's GraphQL schema against GitHub's published one (test/support/github-reference.ts):
 * every type, field, argument, enum value and input field the sandbox defines exists on GitHub with
 * the same kind, type and nullability. The sandbox may define less than GitHub; never something else.
 */
import assert from "node:assert/strict";
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isScalarType, isUnionType } from "graphql";
import type { GraphQLNamedType } from "graphql";
import { sandboxSchema } from "../../../src/sandbox/graphql/schema";
import { githubGraphqlSchema } from "../../support/github-reference";

function kind(t: GraphQLNamedType): string {
  if (isObjectType(t)) return "object";
  if (isInterfaceType(t)) return "interface";
  if (isUnionType(t)) return "union";
  if (isEnumType(t)) return "enum";
  if (isInputObjectType(t)) return "input";
  if (isScalarType(t)) return "scalar";
  return "?";
}

function differences(): string[] {
  const github = githubGraphqlSchema();
  const out: string[] = [];
  for (const [name, ours] of Object.entries(sandboxSchema.getTypeMap())) {
    if (name.startsWith("__")) continue;
    const theirs = github.getType(name);
    if (!theirs) {
      out.push(`type ${name}: GitHub has no such type`);
      continue;
    }
    if (kind(ours) !== kind(theirs)) {
      out.push(`type ${name}: ours is ${kind(ours)}, GitHub's is ${kind(theirs)}`);
      continue;
    }
    if ((isObjectType(ours) || isInterfaceType(ours)) && (isObjectType(theirs) || isInterfaceType(theirs))) {
      const theirFields = theirs.getFields();
      const theirInterfaces = new Set(theirs.getInterfaces().map((i) => i.name));
      for (const i of ours.getInterfaces()) if (!theirInterfaces.has(i.name)) out.push(`${name} implements ${i.name}: GitHub's does not`);
      for (const [fname, f] of Object.entries(ours.getFields())) {
        const g = theirFields[fname];
        if (!g) {
          out.push(`${name}.${fname}: GitHub has no such field`);
          continue;
        }
        if (String(f.type) !== String(g.type)) out.push(`${name}.${fname}: ours is ${String(f.type)}, GitHub's is ${String(g.type)}`);
        for (const a of f.args) {
          const ga = g.args.find((x) => x.name === a.name);
          if (!ga) out.push(`${name}.${fname}(${a.name}): GitHub has no such argument`);
          else if (String(a.type) !== String(ga.type)) out.push(`${name}.${fname}(${a.name}): ours is ${String(a.type)}, GitHub's is ${String(ga.type)}`);
        }
        // An argument GitHub requires that we do not define would let a client leave it out here only.
        for (const ga of g.args)
          if (String(ga.type).endsWith("!") && ga.defaultValue === undefined && !f.args.some((a) => a.name === ga.name))
            out.push(`${name}.${fname}(${ga.name}): GitHub requires it; ours does not define it`);
      }
    }
    if (isUnionType(ours) && isUnionType(theirs)) {
      const members = new Set(theirs.getTypes().map((t) => t.name));
      for (const t of ours.getTypes()) if (!members.has(t.name)) out.push(`union ${name}: GitHub's has no member ${t.name}`);
    }
    if (isEnumType(ours) && isEnumType(theirs)) {
      const values = new Set(theirs.getValues().map((v) => v.name));
      for (const v of ours.getValues()) if (!values.has(v.name)) out.push(`enum ${name}.${v.name}: GitHub has no such value`);
    }
    if (isInputObjectType(ours) && isInputObjectType(theirs)) {
      const theirFields = theirs.getFields();
      for (const [fname, f] of Object.entries(ours.getFields())) {
        const g = theirFields[fname];
        if (!g) out.push(`input ${name}.${fname}: GitHub has no such field`);
        else if (String(f.type) !== String(g.type)) out.push(`input ${name}.${fname}: ours is ${String(f.type)}, GitHub's is ${String(g.type)}`);
      }
      for (const [fname, g] of Object.entries(theirFields))
        if (String(g.type).endsWith("!") && g.defaultValue === undefined && !ours.getFields()[fname])
          out.push(`input ${name}.${fname}: GitHub requires it; ours does not define it`);
    }
  }
  return out;
}

describe("the sandbox's GraphQL schema agrees with GitHub's (@octokit/graphql-schema)", function () {
  this.timeout(30_000);

  it("every type, field, argument, enum value and input field it defines is GitHub's, with GitHub's type and nullability", () => {
    assert.deepEqual(differences(), []);
  });

  it("the check can fail: a field GitHub types differently is named", () => {
    const github = githubGraphqlSchema();
    const comment = github.getType("IssueComment");
    assert.ok(isObjectType(comment));
    assert.equal(String(comment.getFields().databaseId?.type), "Int", "GitHub's databaseId is a 32-bit Int");
    assert.equal(String(comment.getFields().fullDatabaseId?.type), "BigInt");
  });
});
