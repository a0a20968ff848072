/**
 * The fallback for agents with no structured-output mechanism (Gemini CLI, ADR 0200): the prompt
 * asks for the answer as JSON in one fenced block named `ticket-runner-answer`, and the last such
 * block of the session's final text is the answer. Still `unknown`: the Stage validates it.
 */

export const ANSWER_FENCE = "ticket-runner-answer";

/** Appended to a Stage's prompt when the agent cannot be given the schema any other way. */
export function fencedAnswerInstruction(jsonSchema: object): string {
  return [
    "",
    `End your final message with your answer as JSON in one fenced block that starts with the line \`\`\`${ANSWER_FENCE} and ends with the line \`\`\`.`,
    "The JSON must match this JSON schema:",
    JSON.stringify(jsonSchema),
  ].join("\n");
}

export type FencedAnswer = { ok: true; value: unknown } | { ok: false; why: string };

/** The last `ticket-runner-answer` block of `text`, parsed as JSON. */
export function readFencedAnswer(text: string): FencedAnswer {
  const re = new RegExp(`^[ \\t]*\`\`\`${ANSWER_FENCE}[ \\t]*\\r?\\n([\\s\\S]*?)\\r?\\n[ \\t]*\`\`\`[ \\t]*$`, "gm");
  let last: string | null = null;
  for (const m of text.matchAll(re)) last = m[1]!;
  if (last === null) return { ok: false, why: `the final message has no \`\`\`${ANSWER_FENCE} block` };
  try {
    return { ok: true, value: JSON.parse(last) };
  } catch (error) {
    return { ok: false, why: `the \`\`\`${ANSWER_FENCE} block is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}
