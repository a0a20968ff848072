/**
 * Text from GitHub (titles, labels, host names in leases) is shown in one-line labels and in
 * tooltips. Anyone who can open an issue chooses its title, so it is cleaned before it is shown:
 * no control characters or newlines (one row stays one row), no bidi overrides or invisible
 * characters (they can make a title read as something else), and a length cap.
 */

// C0 and C1 controls, including newlines and tabs.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001F\u007F-\u009F]+/g;
// Bidi embeddings/overrides/isolates, marks, zero-width characters and the BOM.
const INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;
// Strong right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms).
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
const FSI = "\u2068";
const PDI = "\u2069";

/** One line, at most `max` code points (an ellipsis marks the cut); never empty. */
export function sanitizeInline(raw: string, max: number, empty = "(untitled)"): string {
  const flat = raw.replace(CONTROLS, " ").replace(INVISIBLE, "").replace(/\s+/g, " ").trim();
  if (flat.length === 0) return empty;
  const points = Array.from(flat);
  const cut =
    points.length > max
      ? points
          .slice(0, Math.max(1, max - 1))
          .join("")
          .trimEnd() + "…"
      : flat;
  // A right-to-left title is isolated so it cannot reorder the `#42` written before it.
  return RTL.test(cut) ? FSI + cut + PDI : cut;
}

// The same controls, less the line feed and tab a block of text keeps.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]+/g;
// INVISIBLE less FSI and PDI: an isolate cannot reorder what is around it, and the lines may hold
// the isolates sanitizeInline put round a right-to-left title (anyone's own ones are gone by then).
const INVISIBLE_BUT_ISOLATES = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2067\uFEFF]/g;

/**
 * A block of text for a terminal (everything the CLI prints): its lines kept, every other control
 * (escape sequences, carriage returns that overwrite a line) and every bidi or invisible character
 * dropped, so text from GitHub or an agent cannot redraw, retitle or reorder what a person reads.
 */
export function sanitizeLines(raw: string): string {
  return raw.replace(CONTROLS_BUT_LINES, " ").replace(INVISIBLE_BUT_ISOLATES, "");
}

/** One line of words that quote text from elsewhere (a lock's command, a lease's host): cleaned whole. */
export function sanitizeSentence(raw: string): string {
  return sanitizeInline(raw, FULL_TITLE_MAX, "?");
}

export const TITLE_MAX = 120;
const FULL_TITLE_MAX = 1000;

export function sanitizeTitle(raw: string): string {
  return sanitizeInline(raw, TITLE_MAX);
}

export function sanitizeFullTitle(raw: string): string {
  return sanitizeInline(raw, FULL_TITLE_MAX);
}

/** Host names, logins and label names: short, one line. */
export function sanitizeName(raw: string): string {
  return sanitizeInline(raw, 60, "?");
}
