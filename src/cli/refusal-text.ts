import type { Refusal } from "../core/errors";

/**
 * What the CLI prints for a refusal: its message, then the holder's link and the next command when
 * the message does not already carry them (a terminal has no buttons, so `details` must be words).
 */
export function refusalText(refusal: Refusal): string {
  const lines = [refusal.message];
  const { link, next } = refusal.details;
  if (link && !refusal.message.includes(link)) lines.push(`See: ${link}`);
  if (next && !refusal.message.includes(next)) lines.push(`Next: ${next}`);
  return lines.join("\n");
}
