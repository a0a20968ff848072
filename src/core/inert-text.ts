/**
 * Text an issue author or an agent wrote, made inert before it goes into Markdown that Ticket Runner
 * posts (PR bodies and titles, comments) or shows (VS Code notifications). ADR 0161.
 *
 * - Closing keywords followed by a reference (`fixes #6`, `Closes other/repo#6`, `resolves GH-6`,
 *   `fixed https://…/issues/6`) would close that issue when the PR merges; a zero-width space inside
 *   the keyword leaves it readable and no longer a keyword. Only the ticket's own `Closes #n`, which
 *   Ticket Runner writes itself, stays live.
 * - `@name` would notify someone, `owner/repo#6` would write into another repository's timeline:
 *   a zero-width space after `@` and `#` keeps them as text.
 * - Markdown and HTML (images that load a beacon, links, `command:` links in VS Code) are escaped,
 *   and bare URLs are broken so they are not made links. VS Code's theme icons (`$(name)`, drawn
 *   after the Markdown is rendered, so a backslash does not stop them) get a zero-width space.
 * - VS Code's notifications and dialogs are plain text where only `[label](target)` is live (a
 *   `command:` target runs a command): `inertLinkedText` breaks that one form (ADR 0231).
 */

const ZWSP = "\u200B";

const REFERENCE = String.raw`(?:#\d+|[\w.-]+\/[\w.-]+#\d+|GH-\d+|https?:\/\/\S+?\/(?:issues|pull)\/\d+)`;
const KEYWORD = new RegExp(String.raw`\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(\s*:?\s*${REFERENCE})`, "gi");
const MENTION = /(^|[^\w`])@(?=[A-Za-z0-9])/g;
const CROSS_REPO = /([\w.-]+\/[\w.-]+)#(?=\d)/g;

/** Closing keywords, @mentions and cross-repository references made plain text; nothing else changes. */
export function inertReferences(text: string): string {
  return text
    .replace(KEYWORD, (_m, word: string, rest: string) => `${word.slice(0, 1)}${ZWSP}${word.slice(1)}${rest}`)
    .replace(MENTION, (_m, before: string) => `${before}@${ZWSP}`)
    .replace(CROSS_REPO, (_m, repo: string) => `${repo}#${ZWSP}`);
}

// ASCII punctuation that starts Markdown or HTML: emphasis, code, links, images, headings, tables, entities.
const MARKDOWN = /[\\`*_{}[\]()<>#!|~&+]/g;

/** Markdown-inert: every character reads as itself, no link, image, HTML, mention or closing keyword. */
export function inertMarkdown(text: string): string {
  return inertReferences(text)
    .replace(/\$\(/g, `$${ZWSP}(`)
    .replace(MARKDOWN, (c) => `\\${c}`)
    .replace(/:\/\//g, `:/${ZWSP}/`)
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}${ZWSP}.`);
}

/**
 * Plain text VS Code decorates: notifications and modal dialogs make `[label](https:…|command:…|file:…)`
 * a link (a `command:` one runs the command), quick picks draw `$(name)` as a theme icon. A
 * zero-width space between `]` and `(`, and between `$` and `(`, makes both text; everything reads
 * as written (a backslash would show there).
 */
export function inertLinkedText(text: string): string {
  return text.replace(/\](?=\s*\()/g, `]${ZWSP}`).replace(/\$\(/g, `$${ZWSP}(`);
}
