// Unit tests for the sandbox's pure helpers: names, refs, closing keywords, node ids, cursors,
// GraphQL connections, GitHub-shaped validation errors, and the router.
import { strict as assert } from "node:assert";
import fc from "fast-check";
import { z } from "zod";
import { isSafeName, isSafeRefName } from "../../../src/sandbox/git";
import { connection } from "../../../src/sandbox/graphql/connection";
import { HttpError, parseBody } from "../../../src/sandbox/http";
import { cursorFor, indexFromCursor, nodeId, parseNodeId } from "../../../src/sandbox/ids";
import { closingReferences } from "../../../src/sandbox/pull-ops";
import { Router } from "../../../src/sandbox/router";

describe("sandbox helpers", () => {
  it("refuses owner/repo names that could escape the repositories folder", () => {
    for (const bad of ["..", ".", "a/b", "a\\b", "", "x.git", "a b", "%2e%2e"]) assert.equal(isSafeName(bad), false, bad);
    for (const good of ["acme", "my-repo", "a.b", "under_score"]) assert.equal(isSafeName(good), true, good);
  });

  it("refuses ref names git check-ref-format refuses", () => {
    for (const bad of ["../x", "a/../b", "/a", "a/", "a.lock", "a..b", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[", "@", "a@{1}", ".hidden", "a//b"])
      assert.equal(isSafeRefName(bad), false, bad);
    for (const good of ["main", "feature/x", "agent/12-add-a-thing", "ticket-runner/state"]) assert.equal(isSafeRefName(good), true, good);
  });

  it("finds closing keywords the way GitHub documents them", () => {
    assert.deepEqual(closingReferences("Fixes #12 and closes #3, resolved: #4"), [12, 3, 4]);
    assert.deepEqual(closingReferences("FIX #7\nclose #8"), [7, 8]);
    assert.deepEqual(closingReferences("see #5, prefix#6, fixing #9"), []);
    // Another repository's issue, or this one's named in full (GitHub closes both forms for its own repository).
    const repo = { owner: "demo", name: "shop" };
    assert.deepEqual(closingReferences("fixes demo/shop#2, closes Demo/Shop#3, resolves other/shop#4", repo), [2, 3]);
    assert.deepEqual(closingReferences("fixed https://github.com/demo/shop/issues/5 and fixes https://github.com/x/y/issues/6", repo), [5]);
    assert.deepEqual(closingReferences("f\u200Bixes #7, fixes #\u200B8"), []);
  });

  it("node ids and cursors round-trip and reject garbage", () => {
    fc.assert(
      fc.property(fc.constantFrom("U", "R", "I", "PR", "IC", "LA"), fc.nat(), (kind, id) => {
        const parsed = parseNodeId(nodeId(kind as "U", id));
        return parsed?.kind === kind && parsed.dbId === id;
      }),
    );
    assert.equal(parseNodeId("I_notbase64!!"), null);
    assert.equal(parseNodeId("XX_abc"), null);
    assert.equal(parseNodeId(nodeId("I", 5).replace(/^I_/, "PR_")), null);
    fc.assert(fc.property(fc.nat(), (i) => indexFromCursor(cursorFor(i)) === i));
  });

  it("connections page forwards and backwards without gaps or overlaps", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 7 }), (n, size) => {
        const items = Array.from({ length: n }, (_, i) => i);
        const seen: number[] = [];
        let after: string | null = null;
        for (;;) {
          const page: ReturnType<typeof connection<number, number>> = connection("items", items, { first: size, after }, (x) => x);
          seen.push(...page.nodes);
          if (!page.pageInfo.hasNextPage) break;
          after = page.pageInfo.endCursor;
        }
        const last = connection("items", items, { last: size }, (x) => x);
        return JSON.stringify(seen) === JSON.stringify(items) && JSON.stringify(last.nodes) === JSON.stringify(items.slice(-size)) && last.totalCount === n;
      }),
    );
    assert.throws(() => connection("issues", [1], {}, (x) => x), /must provide a `first` or `last`/);
    assert.throws(() => connection("issues", [1], { first: 101 }, (x) => x), /exceeds the `first` limit of 100/);
  });

  it("validation errors use GitHub's wording and shape", () => {
    const schema = z.object({ title: z.string(), labels: z.array(z.string()).optional() }).strict();
    const caught = (body: unknown): HttpError => {
      try {
        parseBody(schema, body, "Issue");
      } catch (e) {
        if (e instanceof HttpError) return e;
      }
      throw new Error("expected an HttpError");
    };
    assert.match(caught({}).message, /"title" wasn't supplied/);
    assert.match(caught({ title: "t", nope: 1 }).message, /"nope" is not a permitted key/);
    const wrong = caught({ title: 5 });
    assert.equal(wrong.status, 422);
    assert.ok(Array.isArray(wrong.extra.errors));
  });

  it("the router matches params, wildcards and tells 404 from wrong method", () => {
    const r = new Router();
    r.add("GET", "/repos/:owner/:repo/git/ref/*ref", () => ({ status: 200 }));
    const m = r.match("GET", "/repos/a/b/git/ref/heads/feature/x");
    assert.ok(m && "params" in m);
    assert.deepEqual(m.params, { owner: "a", repo: "b", ref: "heads/feature/x" });
    assert.deepEqual(r.match("POST", "/repos/a/b/git/ref/heads/x"), { methodNotAllowed: true });
    assert.equal(r.match("GET", "/nope"), null);
  });
});
