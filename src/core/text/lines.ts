/** Lines of text for people: one line of any text, and the rule that heads a transcript's Stage. */

/** Any text on one line, whitespace runs folded, cut with an ellipsis past `max` characters. */
export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const RULE_WIDTH = 60;

/** `── title ────…`, 60 characters wide, at least three rule characters after the title. */
export function rule(title: string): string {
  const head = `── ${title} `;
  return head + "─".repeat(Math.max(3, RULE_WIDTH - head.length));
}
