import assert from "node:assert/strict";
import { tokenFrom } from "../../../src/app/target";
import { githubBlobLink, parseRemoteUrl, parseRepo, remoteHost, remoteMatchesApi } from "../../../src/core/remote-url";

// One reading of a remote URL for both front doors: the cases the CLI's `origin` parser and the
// extension's folder parser each had, in one table.
describe("app: the Target from a remote URL", () => {
  const acme = (repo: string) => ({ owner: "acme", repo });

  it("infers owner/name and the API URL (the CLI's cases)", () => {
    assert.deepEqual(parseRemoteUrl("https://github.com/acme/widgets.git"), { repo: acme("widgets"), apiUrl: "https://api.github.com" });
    assert.deepEqual(parseRemoteUrl("git@github.com:acme/widgets.git"), { repo: acme("widgets"), apiUrl: "https://api.github.com" });
    assert.deepEqual(parseRemoteUrl("http://127.0.0.1:4567/acme/widgets.git"), { repo: acme("widgets"), apiUrl: "http://127.0.0.1:4567" });
    assert.deepEqual(parseRemoteUrl("https://ghe.example.com/acme/widgets"), { repo: acme("widgets"), apiUrl: "https://ghe.example.com/api/v3" });
    assert.equal(parseRemoteUrl("not a url"), null);
  });

  it("reads owner/repo from every remote form (the extension's cases)", () => {
    assert.deepEqual(parseRemoteUrl("git@github.com:acme/shop.git")?.repo, acme("shop"));
    assert.deepEqual(parseRemoteUrl("https://github.com/acme/shop")?.repo, acme("shop"));
    assert.deepEqual(parseRemoteUrl("ssh://git@ghe.example.com:2222/acme/shop.git")?.repo, acme("shop"));
    assert.deepEqual(parseRemoteUrl("http://127.0.0.1:4000/acme/shop.git")?.repo, acme("shop"));
    assert.equal(parseRemoteUrl("/srv/git/shop.git"), null);
  });

  it("where the two parsers disagreed, keeps the stricter rule", () => {
    // The extension refused names GitHub cannot have; the CLI took them.
    assert.equal(parseRemoteUrl("https://github.com/acme/sh%20op"), null);
    assert.equal(parseRemoteUrl("git@github.com:acme/$(id).git"), null);
    // The extension read the last two segments of a longer scp path; the CLI read none.
    assert.deepEqual(parseRemoteUrl("git@ghe.example.com:mirror/acme/shop.git")?.repo, acme("shop"));
    // An ssh port is the ssh server's, not the API's (the CLI put it into the API URL).
    assert.equal(parseRemoteUrl("ssh://git@ghe.example.com:2222/acme/shop.git")?.apiUrl, "https://ghe.example.com/api/v3");
    assert.equal(parseRemoteUrl("git@ssh.github.com:acme/shop.git")?.apiUrl, "https://api.github.com");
    // The sandbox under a path prefix keeps the prefix.
    assert.equal(parseRemoteUrl("http://localhost:4000/git/acme/shop.git")?.apiUrl, "http://localhost:4000/git");
  });

  it("finds the host of scp-like, ssh and http remotes", () => {
    assert.equal(remoteHost("git@github.com:acme/shop.git"), "github.com");
    assert.equal(remoteHost("ssh://git@github.com/acme/shop.git"), "github.com");
    assert.equal(remoteHost("https://x-access-token:t@GHE.example/acme/shop"), "ghe.example");
    assert.equal(remoteHost("http://127.0.0.1:4010/acme/shop.git"), "127.0.0.1:4010");
    assert.equal(remoteHost("/srv/git/shop.git"), null);
  });

  it("matches remotes to github.com, GitHub Enterprise and the sandbox", () => {
    assert.equal(remoteMatchesApi("git@github.com:acme/shop.git", "https://api.github.com"), true);
    assert.equal(remoteMatchesApi("https://gitlab.com/acme/shop.git", "https://api.github.com"), false);
    assert.equal(remoteMatchesApi("https://ghe.example/acme/shop.git", "https://ghe.example/api/v3"), true);
    assert.equal(remoteMatchesApi("http://127.0.0.1:4010/acme/shop.git", "http://127.0.0.1:4010"), true);
    assert.equal(remoteMatchesApi("http://127.0.0.1:4011/acme/shop.git", "http://127.0.0.1:4010"), false);
    assert.equal(remoteMatchesApi("/srv/git/shop.git", "https://api.github.com"), false);
  });

  it("reads --repo owner/name, and the token from the environment only, most specific first", () => {
    assert.equal(parseRepo("acme/widgets")?.repo, "widgets");
    assert.equal(parseRepo("acme"), null);
    assert.equal(tokenFrom({ GITHUB_TOKEN: "g", GH_TOKEN: "h", TICKET_RUNNER_TOKEN: "t" }), "t");
    assert.equal(tokenFrom({ GITHUB_TOKEN: "g", GH_TOKEN: "h" }), "h");
    assert.equal(tokenFrom({ GITHUB_TOKEN: "g" }), "g");
    assert.equal(tokenFrom({}), null);
  });
});

describe("core: a file's link on github.com from the remote URL (the same reading)", () => {
  it("links a github.com remote in any of its forms, ssh's port 443 too", () => {
    const link = "https://github.com/acme/widgets/blob/ticket-runner/lock/lock.json";
    for (const url of [
      "https://github.com/acme/widgets.git",
      "git@github.com:acme/widgets.git",
      "ssh://git@ssh.github.com:443/acme/widgets.git",
      "https://github.com/acme/widgets/",
    ]) {
      assert.equal(githubBlobLink(url, "ticket-runner/lock", "lock.json"), link, url);
    }
  });

  it("gives no link for GitHub Enterprise, the sandbox, a URL naming no repository, or none", () => {
    for (const url of [
      "https://ghe.example.com/acme/widgets.git",
      "http://127.0.0.1:4000/acme/widgets.git",
      "https://github.com/acme",
      "https://evil.example/github.com/acme/widgets.git",
      null,
    ]) {
      assert.equal(githubBlobLink(url, "main", "lock.json"), undefined, String(url));
    }
  });
});
