/**
 * The ref updates a push asks for, read from the head of its request body (git's pack protocol:
 * pkt-lines `<old> <new> <ref>` up to a flush, before the pack). The sandbox learns from them what
 * a push changed with one look at those refs afterwards, not a listing of every ref before and
 * after (ADR 0432). null when the head is not plain commands (a signed push, a body cut short, more
 * commands than fit in the first read): the caller lists the refs as before.
 */
import { open } from "node:fs/promises";

export interface PushRequest {
  commands: PushCommand[];
  /** The client asked for its report in side-band channel 1 (side-band, side-band-64k). */
  sideBand: boolean;
  /** The capabilities after the first command's NUL, as sent. */
  capabilities: string[];
  /** The request had `shallow` lines before its commands. */
  shallow: boolean;
  /** Where the pack starts: the byte after the commands' flush. */
  packAt: number;
}

export interface PushCommand {
  ref: string;
  /** null: the ref is created (old) or deleted (new). */
  old: string | null;
  new: string | null;
}

const HEAD_BYTES = 256 * 1024;
const COMMAND = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (refs\/[^\0\n ]+)$/;
const ZERO = /^0+$/;

const MAX_COMMANDS = 1000;

/** The commands at the head of a receive-pack request body (already inflated). */
export function parsePushCommands(head: Buffer): PushRequest | null {
  const commands: PushCommand[] = [];
  let capabilities: string[] = [];
  let shallow = false;
  for (let at = 0; at + 4 <= head.length;) {
    const len = Number.parseInt(head.subarray(at, at + 4).toString("latin1"), 16);
    if (!Number.isInteger(len) || !/^[0-9a-f]{4}$/.test(head.subarray(at, at + 4).toString("latin1"))) return null;
    if (len === 0) {
      const sideBand = capabilities.some((c) => c === "side-band" || c === "side-band-64k");
      return commands.length > 0 ? { commands, sideBand, capabilities, shallow, packAt: at + 4 } : null;
    }
    if (len < 4 || at + len > head.length) return null;
    const [line = "", caps] = head
      .subarray(at + 4, at + len)
      .toString("latin1")
      .replace(/\n$/, "")
      .split("\0");
    at += len;
    if (commands.length === 0 && caps !== undefined) capabilities = caps.split(" ").filter((c) => c !== "");
    if (line.startsWith("shallow ")) {
      shallow = true;
      continue;
    }
    const m = COMMAND.exec(line);
    if (!m) return null;
    commands.push({ ref: m[3]!, old: ZERO.test(m[1]!) ? null : m[1]!, new: ZERO.test(m[2]!) ? null : m[2]! });
    if (commands.length > MAX_COMMANDS) return null;
  }
  return null;
}

/** parsePushCommands over the first bytes of a spooled body. */
export async function readPushCommands(file: string): Promise<PushRequest | null> {
  const handle = await open(file, "r");
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    return parsePushCommands(buf.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** pkt-lines of `data` (stops at a flush, or at anything that is not one); null when malformed. */
function pktLines(data: Buffer): Buffer[] | null {
  const lines: Buffer[] = [];
  for (let at = 0; at + 4 <= data.length;) {
    const hex = data.subarray(at, at + 4).toString("latin1");
    if (!/^[0-9a-f]{4}$/.test(hex)) return null;
    const len = Number.parseInt(hex, 16);
    if (len === 0) {
      at += 4;
      continue;
    }
    if (len < 4 || at + len > data.length) return null;
    lines.push(data.subarray(at + 4, at + len));
    at += len;
  }
  return lines;
}

/**
 * The refs receive-pack reports it updated (`ok <ref>` in its report-status, side-band channel 1
 * when the client asked for it), from its whole answer; null when the answer has no report that
 * reads whole (the caller then looks at the refs).
 */
export function updatedRefs(answer: Buffer, sideBand: boolean): Set<string> | null {
  const outer = pktLines(answer);
  if (!outer) return null;
  const report = sideBand ? pktLines(Buffer.concat(outer.filter((l) => l[0] === 1).map((l) => l.subarray(1)))) : outer;
  if (!report) return null;
  const lines = report.map((l) => l.toString("latin1").replace(/\n$/, ""));
  if (lines[0] !== "unpack ok" && !lines[0]?.startsWith("unpack ")) return null;
  const ok = new Set<string>();
  for (const line of lines.slice(1)) {
    if (line.startsWith("ok ")) ok.add(line.slice(3));
    else if (!line.startsWith("ng ") && !line.startsWith("option ")) return null;
  }
  return ok;
}
