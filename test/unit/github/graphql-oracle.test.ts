/** The GraphQL oracle itself can fail: GitHub's rules, each broken once (test/support/github-reference.ts). */
import assert from "node:assert/strict";
import { checkDocument } from "../../support/github-reference";

describe("the GraphQL oracle (GitHub's schema, deprecations, node limits)", function () {
  this.timeout(30_000);
  const repo = (inner: string) => `query($n: Int!) { repository(owner: "a", name: "b") { issue(number: $n) { ${inner} } } }`;

  it("passes a document GitHub takes, including the Issue.blockedBy extension", () => {
    assert.deepEqual(
      checkDocument(repo("fullDatabaseId blockedBy(first: 20) { nodes { number } } comments(last: 5) { nodes { fullDatabaseId } }"), { n: 1 }),
      [],
    );
  });

  it("names an unknown field, a bad variable value, and a deprecated field", () => {
    assert.match(checkDocument(repo("nope"), { n: 1 }).join(), /Cannot query field "nope"/);
    assert.match(checkDocument(repo("number"), { n: "one" }).join(), /variables: .*Int cannot represent/);
    assert.match(checkDocument(repo("timeline(first: 1) { totalCount }"), { n: 1 }).join(), /deprecated/);
  });

  it("holds GitHub's node limit: first/last within 1-100 on every connection, 500,000 nodes in all", () => {
    assert.match(checkDocument(repo("comments { totalCount }"), { n: 1 }).join(), /needs a `first` or `last`/);
    assert.match(checkDocument(repo("comments(first: 101) { totalCount }"), { n: 1 }).join(), /first\/last is 101/);
    const deep = `{ repository(owner: "a", name: "b") { issues(first: 100) { nodes { comments(first: 100) { nodes { reactions(first: 100) { totalCount } } } } } } }`;
    assert.match(checkDocument(deep).join(), /up to 1010100 nodes; GitHub's limit is 500000/);
    const fine = `{ repository(owner: "a", name: "b") { issues(first: 100) { nodes { comments(first: 100) { nodes { reactions(first: 40) { totalCount } } } } } } }`;
    assert.deepEqual(checkDocument(fine), []);
  });
});
