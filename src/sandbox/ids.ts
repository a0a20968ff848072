/**
 * Global node ids, shaped like GitHub's current ones: a type prefix, an underscore, then an
 * opaque base64url blob. Clients must treat them as opaque; we decode them to find the record.
 */

export type NodeKind = "U" | "R" | "I" | "PR" | "IC" | "LA" | "CR" | "LE" | "UCE";

const kinds = new Set<string>(["U", "R", "I", "PR", "IC", "LA", "CR", "LE", "UCE"]);

export function nodeId(kind: NodeKind, dbId: number): string {
  return `${kind}_${Buffer.from(`sbx:${kind}:${dbId}`).toString("base64url")}`;
}

/**
 * A commit's node id: GitHub's are opaque like the others (`C_kwDO…`), named by the commit rather than
 * a database row, so this one wraps the sha. No GraphQL lookup of the sandbox resolves it.
 */
export function commitNodeId(sha: string): string {
  return `C_${Buffer.from(`sbx:C:${sha}`).toString("base64url")}`;
}

export function parseNodeId(id: string): { kind: NodeKind; dbId: number } | null {
  const underscore = id.indexOf("_");
  if (underscore <= 0) return null;
  const kind = id.slice(0, underscore);
  if (!kinds.has(kind)) return null;
  const decoded = Buffer.from(id.slice(underscore + 1), "base64url").toString("utf8");
  const m = /^sbx:([A-Z]+):(\d+)$/.exec(decoded);
  if (!m || m[1] !== kind) return null;
  return { kind: kind as NodeKind, dbId: Number(m[2]) };
}

export function cursorFor(index: number): string {
  return Buffer.from(`cursor:v2:${index}`).toString("base64");
}

export function indexFromCursor(cursor: string): number | null {
  const m = /^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  return m ? Number(m[1]) : null;
}
