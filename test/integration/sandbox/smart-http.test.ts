/**
 * The sandbox answers git's four smart HTTP requests without `git http-backend` (ADR 0391): each
 * answer here is held against the one git 2.39's own http-backend gives for the same request on
 * the same repository, run as the CGI program it is: the same status, content type and cache
 * headers, and the same bytes of body. Protocol v0 and v2 advertisements, a v2 ls-refs request,
 * plain and gzip, and the refusals of a wrong content type and a wrong method. The receive-pack
 * advertisement is written by the sandbox (ADR 0474; its own test holds it to receive-pack's on
 * many more repositories). The v2 upload-pack
 * advertisement is upload-pack's own output kept per repository (ADR 0474): asked again it starts
 * no process, and a change to the repository's config makes it anew. upload-pack's v0/v1
 * advertisement and v2 ls-refs answers are written by the sandbox (ADR 0479; upload-pack-refs.test.ts
 * holds them to git's on many more repositories): no upload-pack runs for them.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { watchGitProcesses } from "../../../src/adapters/git/git-process";
import { gitEnv } from "../../../src/sandbox/git";
import { watchServices } from "../../../src/sandbox/service-watch";
import { startSandbox } from "../../../src/sandbox/start";
import type { SandboxHandle } from "../../../src/sandbox/start";

const OWNER = "acme";
const REPO = "widgets";

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface Ask {
  method: "GET" | "POST";
  rest: string;
  query?: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

function pkt(text: string): string {
  return (text.length + 4).toString(16).padStart(4, "0") + text;
}

const LS_REFS = Buffer.from(
  `${pkt("command=ls-refs\n")}${pkt("agent=git/2.39.5\n")}0001${pkt("peel\n")}${pkt("symrefs\n")}${pkt("ref-prefix refs/heads/\n")}0000`,
);
const V2 = { "git-protocol": "version=2" };
const KEPT = ["content-type", "expires", "pragma", "cache-control"];

describe("sandbox smart HTTP without http-backend (integration)", function () {
  let sb: SandboxHandle;
  let data: string;
  let token: string;

  before(async () => {
    data = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-smart-"));
    sb = await startSandbox({ quiet: true, dataDir: data });
    await sb.admin.createRepo({ owner: OWNER, name: REPO, files: { "README.md": "# widgets\n" } });
    token = (await sb.admin.addUser({ login: "bob", repos: { [`${OWNER}/${REPO}`]: "write" } })).token;
  });

  after(async () => {
    await sb.stop();
    await fsp.rm(data, { recursive: true, force: true });
  });

  async function fromSandbox(a: Ask): Promise<Answer> {
    const res = await fetch(`${sb.apiUrl}/${OWNER}/${REPO}.git${a.rest}${a.query ? `?${a.query}` : ""}`, {
      method: a.method,
      headers: { authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`, ...a.headers },
      ...(a.body ? { body: a.body } : {}),
    });
    const headers: Record<string, string> = {};
    for (const key of KEPT) {
      const v = res.headers.get(key);
      if (v !== null) headers[key] = v;
    }
    return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
  }

  /** git http-backend itself, as a CGI program, on the sandbox's repository. */
  function fromHttpBackend(a: Ask): Promise<Answer> {
    const env = gitEnv({
      GIT_PROJECT_ROOT: path.join(data, "repos"),
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: `/${OWNER}/${REPO}.git${a.rest}`,
      REQUEST_METHOD: a.method,
      QUERY_STRING: a.query ?? "",
      REMOTE_USER: "bob",
      REMOTE_ADDR: "127.0.0.1",
      CONTENT_TYPE: a.headers?.["content-type"] ?? "",
      ...(a.body ? { CONTENT_LENGTH: String(a.body.length) } : {}),
      ...(a.headers?.["git-protocol"] ? { GIT_PROTOCOL: a.headers["git-protocol"] } : {}),
      ...(a.headers?.["content-encoding"] ? { HTTP_CONTENT_ENCODING: a.headers["content-encoding"] } : {}),
    });
    return new Promise((resolve, reject) => {
      const child = execFile("git", ["http-backend"], { env, encoding: "buffer" }, (error, stdout) => {
        if (error && !stdout.length) return reject(error);
        const end = stdout.indexOf("\r\n\r\n");
        const headers: Record<string, string> = {};
        let status = 200;
        for (const line of stdout.subarray(0, end).toString("latin1").split("\r\n")) {
          const colon = line.indexOf(":");
          const key = line.slice(0, colon).toLowerCase();
          const value = line.slice(colon + 1).trim();
          if (key === "status") status = Number(value.split(" ")[0]);
          else if (KEPT.includes(key)) headers[key] = value;
        }
        resolve({ status, headers, body: stdout.subarray(end + 4) });
      });
      child.stdin?.end(a.body ?? Buffer.alloc(0));
    });
  }

  const cases: [string, Ask][] = [
    ["upload-pack advertisement, protocol v0", { method: "GET", rest: "/info/refs", query: "service=git-upload-pack" }],
    ["upload-pack advertisement, protocol v2", { method: "GET", rest: "/info/refs", query: "service=git-upload-pack", headers: V2 }],
    ["receive-pack advertisement, protocol v0", { method: "GET", rest: "/info/refs", query: "service=git-receive-pack" }],
    [
      "receive-pack advertisement, protocol v1",
      { method: "GET", rest: "/info/refs", query: "service=git-receive-pack", headers: { "git-protocol": "version=1" } },
    ],
    [
      "receive-pack advertisement, protocol v2 asked (receive-pack has none)",
      { method: "GET", rest: "/info/refs", query: "service=git-receive-pack", headers: V2 },
    ],
    [
      "a v2 ls-refs request",
      { method: "POST", rest: "/git-upload-pack", headers: { ...V2, "content-type": "application/x-git-upload-pack-request" }, body: LS_REFS },
    ],
    [
      "a v2 ls-refs request, gzip",
      {
        method: "POST",
        rest: "/git-upload-pack",
        headers: { ...V2, "content-type": "application/x-git-upload-pack-request", "content-encoding": "gzip" },
        body: gzipSync(LS_REFS),
      },
    ],
  ];
  for (const [name, ask] of cases) {
    it(`${name}: the same answer as git http-backend's`, async () => {
      const ours = await fromSandbox(ask);
      const theirs = await fromHttpBackend(ask);
      assert.equal(ours.status, 200);
      assert.ok(ours.body.length > 0);
      assert.deepEqual(ours.headers, theirs.headers);
      assert.equal(ours.body.toString("latin1"), theirs.body.toString("latin1"));
    });
  }

  it("the v2 upload-pack advertisement: one upload-pack a repository, made anew when its config changes, http-backend's bytes each time", async () => {
    const ask: Ask = { method: "GET", rest: "/info/refs", query: "service=git-upload-pack", headers: V2 };
    const gitDir = path.join(data, "repos", OWNER, `${REPO}.git`);
    const started: string[] = [];
    const stop = watchGitProcesses((args) => started.push(args.join(" ")));
    const made = (): number => started.filter((a) => a === "upload-pack --http-backend-info-refs .").length;
    try {
      // A setting the capability list shows (`filter`), on then off: each time a copy made before is stale.
      for (const [allowFilter, fetchLine] of [
        ["true", "fetch=shallow wait-for-done filter\n"],
        ["false", "fetch=shallow wait-for-done\n"],
      ] as const) {
        await new Promise<void>((resolve, reject) =>
          execFile("git", ["--git-dir", gitDir, "config", "uploadpack.allowFilter", allowFilter], { env: gitEnv() }, (e) => (e ? reject(e) : resolve())),
        );
        const before = made();
        const theirs = await fromHttpBackend(ask);
        assert.ok(theirs.body.toString("latin1").includes(fetchLine), theirs.body.toString("latin1"));
        for (let i = 0; i < 3; i++) {
          const ours = await fromSandbox(ask);
          assert.equal(ours.status, 200);
          assert.deepEqual(ours.headers, theirs.headers);
          assert.equal(ours.body.toString("latin1"), theirs.body.toString("latin1"));
        }
        assert.equal(made() - before, 1, "one upload-pack for three requests");
      }
    } finally {
      stop();
    }
  });

  it("upload-pack's v0/v1 advertisement and v2 ls-refs requests (ADR 0479): http-backend's bytes with no upload-pack; git's own ls-remote and fetch run one only to fetch", async () => {
    const upload = { "content-type": "application/x-git-upload-pack-request" };
    // As git 2.39's fetch sends it: the capability lines without a newline.
    const asGit = Buffer.from(
      `${pkt("command=ls-refs\n")}${pkt("agent=git/2.39.5")}${pkt("object-format=sha1")}0001${pkt("peel\n")}${pkt("symrefs\n")}${pkt("unborn\n")}${pkt("ref-prefix HEAD\n")}0000`,
    );
    const asks: Ask[] = [
      { method: "GET", rest: "/info/refs", query: "service=git-upload-pack" },
      { method: "GET", rest: "/info/refs", query: "service=git-upload-pack", headers: { "git-protocol": "version=1" } },
      { method: "POST", rest: "/git-upload-pack", headers: { ...V2, ...upload }, body: LS_REFS },
      { method: "POST", rest: "/git-upload-pack", headers: { ...V2, ...upload }, body: asGit },
    ];
    // The capabilities are cut from upload-pack's own answer once per config: made here, before counting.
    await fromSandbox(asks[0]!);
    const started: string[] = [];
    const stops = [watchGitProcesses((args) => started.push(args.join(" "))), watchServices((args) => started.push(args.join(" ")))];
    const url = `${sb.apiUrl}/${OWNER}/${REPO}.git`;
    const auth = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    const client = (args: string[]): Promise<string> =>
      new Promise((resolve, reject) =>
        execFile("git", ["-c", `http.extraHeader=${auth}`, ...args], { env: gitEnv(), encoding: "utf8" }, (e, out) => (e ? reject(e) : resolve(out))),
      );
    try {
      for (const ask of asks) {
        const ours = await fromSandbox(ask);
        const theirs = await fromHttpBackend(ask);
        assert.equal(ours.status, 200);
        assert.deepEqual(ours.headers, theirs.headers);
        assert.equal(ours.body.toString("latin1"), theirs.body.toString("latin1"));
      }
      assert.deepEqual(started, [], "no upload-pack for the listings");
      for (const version of ["0", "2"]) assert.match(await client(["-c", `protocol.version=${version}`, "ls-remote", url]), /\tHEAD\n/);
      assert.deepEqual(started, [], "no upload-pack for git's ls-remote, v0 or v2");
      const into = await fsp.mkdtemp(path.join(os.tmpdir(), "sbx-smart-clone-"));
      try {
        await client(["-c", "protocol.version=2", "clone", "--quiet", url, into]);
      } finally {
        await fsp.rm(into, { recursive: true, force: true });
      }
      // (`git --exec-path`: asked once per sandbox process, for the first service it starts.)
      assert.deepEqual(
        started.filter((a) => a !== "--exec-path"),
        ["upload-pack --stateless-rpc ."],
        "a clone: upload-pack for its fetch only",
      );
    } finally {
      for (const stop of stops) stop();
    }
  });

  it("a request with the wrong content type, or the wrong method: refused as http-backend refuses it", async () => {
    const wrongType: Ask = { method: "POST", rest: "/git-upload-pack", headers: { ...V2, "content-type": "text/plain" }, body: LS_REFS };
    const wrongMethod: Ask = { method: "GET", rest: "/git-upload-pack" };
    for (const [ask, status] of [
      [wrongType, 415],
      [wrongMethod, 400],
    ] as const) {
      const ours = await fromSandbox(ask);
      const theirs = await fromHttpBackend(ask);
      assert.equal(theirs.status, status);
      assert.deepEqual(ours, theirs);
    }
  });
});
