/** Reading and parsing request bodies, with GitHub's size limit. */
import type { IncomingMessage } from "node:http";
import { HttpError } from "./http";

/** GitHub refuses request bodies above 25 MB (it documents this for REST payloads and webhooks). */
const MAX_REQUEST_BYTES = 25 * 1024 * 1024;

export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) return Promise.reject(new HttpError(413, "Payload Too Large"));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new HttpError(413, "Payload Too Large"));
        req.removeAllListeners("data");
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new HttpError(400, "Problems parsing JSON");
  }
}
