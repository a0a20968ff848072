/** REST pagination: per_page (default 30, max 100), page, and GitHub's Link header. */
import { validationFailed } from "./http";
import type { Ctx } from "./router";

function intParam(ctx: Ctx, name: string, fallback: number): number {
  const raw = ctx.query.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw validationFailed([{ resource: "Search", field: name, code: "invalid" }], `Invalid value for ${name}: ${raw}`);
  return n;
}

export function paginate<T>(ctx: Ctx, items: T[]): { page: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, intParam(ctx, "per_page", 30)));
  const page = Math.max(1, intParam(ctx, "page", 1));
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (p: number, rel: string): string => {
    const q = new URLSearchParams(ctx.query);
    q.set("per_page", String(perPage));
    q.set("page", String(p));
    return `<${ctx.app.urls.api}${ctx.path}?${q.toString()}>; rel="${rel}"`;
  };
  const parts: string[] = [];
  if (page > 1) parts.push(link(page - 1, "prev"));
  if (page < last) parts.push(link(page + 1, "next"), link(last, "last"));
  if (page > 1) parts.push(link(1, "first"));
  return { page: slice, headers: parts.length ? { link: parts.join(", ") } : {} };
}
