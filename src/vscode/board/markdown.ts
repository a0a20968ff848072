// No `vscode` import: builds the Markdown text of tooltips, with every untrusted string escaped.

/** Escapes text so Markdown shows it literally (titles, host names, notes come from strangers). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, "\\$&").replace(/\r?\n/g, " ");
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
