// No `vscode` import: builds the Markdown text of tooltips, with every untrusted string escaped.
import { inertMarkdown } from "../../core/inert-text";

/**
 * Text Markdown shows literally, on one line (titles, host names, notes and GitHub's error messages
 * come from strangers): the project's one inert-Markdown helper, so a trusted tooltip (the board's,
 * the status bar's) renders no link, command link, image, HTML or theme icon from it (ADR 0231).
 */
export function escapeMarkdown(text: string): string {
  return inertMarkdown(text.replace(/\r?\n/g, " "));
}

/** A link only for http(s) URLs, with the characters that would end a Markdown link encoded. */
export function mdLink(text: string, url: string | null | undefined): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
  const safe = parsed.toString().replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
  return `[${escapeMarkdown(text)}](${safe})`;
}

/** Inline code that cannot be broken out of: backticks inside are replaced. */
export function mdCode(text: string): string {
  return "`" + text.replace(/`/g, "ˋ").replace(/\r?\n/g, " ") + "`";
}
