// Kept-alive connections: only the client ends an idle one. A server that also closes idle
// connections on a timer races every client that reuses one at the same moment: the request goes
// out as the server's FIN does and the client sees "other side closed" (a test's issue creation
// failed this way at load 15). So the sandbox sends no `Keep-Alive: timeout` hint and sets no idle
// timer of its own; its stop still ends every connection.
import { strict as assert } from "node:assert";
import { connect } from "node:net";
import type { Socket } from "node:net";
import { closeWorld, makeWorld } from "./support";
import type { World } from "./support";

/** Node's own idle keep-alive timeout, which the sandbox used to close connections on. */
const NODE_DEFAULT_KEEP_ALIVE_MS = 5_000;

function readResponse(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      if (length && text.length < end + 4 + Number(length[1])) return;
      cleanup();
      resolve(text);
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error(`the sandbox closed the connection; read so far: ${JSON.stringify(text.slice(0, 200))}`));
    };
    const cleanup = (): void => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", onEnd);
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("error", onEnd);
  });
}

describe("sandbox keep-alive", function () {
  this.timeout(60_000);
  let w: World;
  before(async () => {
    w = await makeWorld();
  });
  after(async () => closeWorld(w));

  function open(): Promise<Socket> {
    const u = new URL(w.sb.apiUrl);
    return new Promise((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () => resolve(s));
      s.once("error", reject);
    });
  }

  function get(socket: Socket): Promise<string> {
    const answer = readResponse(socket);
    socket.write(`GET /user HTTP/1.1\r\nHost: sandbox\r\nAuthorization: token ${w.tokens.bob}\r\nConnection: keep-alive\r\n\r\n`);
    return answer;
  }

  it("answers a kept-alive request with no idle-timeout hint", async () => {
    const socket = await open();
    try {
      const answer = await get(socket);
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.doesNotMatch(
        answer.split("\r\n\r\n")[0] ?? "",
        /\r\nkeep-alive: *timeout=/i,
        "a timeout hint tells clients the server closes idle connections itself",
      );
    } finally {
      socket.destroy();
    }
  });

  it("keeps an idle connection open past Node's default idle timeout, so a reuse is never met by the server's close", async () => {
    const socket = await open();
    let closedAt: number | undefined;
    socket.once("close", () => (closedAt = Date.now()));
    try {
      assert.match(await get(socket), /^HTTP\/1\.1 200 /);
      const idleSince = Date.now();
      // The one fixed wait here is the point of the case: the connection must outlive the idle
      // timer the sandbox used to run (Node's default), so it waits past that timer once.
      await new Promise((resolve) => setTimeout(resolve, NODE_DEFAULT_KEEP_ALIVE_MS + 1_500));
      assert.equal(closedAt, undefined, `the sandbox closed the idle connection after ${closedAt === undefined ? 0 : closedAt - idleSince} ms`);
      assert.match(await get(socket), /^HTTP\/1\.1 200 /, "the same connection answers a second request");
    } finally {
      socket.destroy();
    }
  });

  it("stop ends a connection a client keeps open", async () => {
    const own = await makeWorld();
    const u = new URL(own.sb.apiUrl);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () => resolve(s));
      s.once("error", reject);
    });
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => undefined);
    await closeWorld(own);
    await closed;
  });
});
