/**
 * Branch names from issue titles. A title is anyone's text: shell metacharacters, unicode, emoji,
 * a leading dash that git would read as an option. The slug keeps only [a-z0-9-], so it is safe on
 * any command line and in any ref, and it is cut at a word boundary so it still reads.
 */
export const SLUG_MAX = 40;

/** Letters NFKD does not decompose into ASCII. */
const SPECIAL: Record<string, string> = {
  ß: "ss",
  æ: "ae",
  Æ: "ae",
  œ: "oe",
  Œ: "oe",
  ø: "o",
  Ø: "o",
  ł: "l",
  Ł: "l",
  đ: "d",
  Đ: "d",
  ð: "d",
  Ð: "d",
  þ: "th",
  Þ: "th",
  ı: "i",
  ħ: "h",
  Ħ: "h",
  ŋ: "n",
  Ŋ: "n",
};

/** Folds unicode letters to ASCII where a plain reading exists; everything else becomes a separator. */
function toAscii(text: string): string {
  let out = "";
  for (const ch of text.normalize("NFKD")) {
    if (/\p{M}/u.test(ch)) continue; // combining accents: é -> e
    out += SPECIAL[ch] ?? ch;
  }
  return out;
}

export function slugify(title: string): string {
  const words = toAscii(title)
    .toLowerCase()
    .replace(/'/g, "") // "don't" -> "dont", not "don-t"
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
  let slug = "";
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > SLUG_MAX) {
      // A first word longer than the limit is cut; otherwise stop at the last whole word.
      if (!slug) slug = word.slice(0, SLUG_MAX);
      break;
    }
    slug = next;
  }
  return slug || "ticket";
}

/** `agent/<n>-<slug>`: the branch a Ticket's work lives on. */
export function branchFor(ticket: number, title: string): string {
  if (!Number.isInteger(ticket) || ticket <= 0) throw new RangeError(`not a ticket number: ${ticket}`);
  return `agent/${ticket}-${slugify(title)}`;
}

const TICKET_BRANCH = /^agent\/([1-9][0-9]*)-[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Whether `branch` is one branchFor could have made for `ticket`: the only branch a record read
 * from the remote (a State file) may send the Run's commits to. Never the base, never another's.
 */
export function isTicketBranch(ticket: number, branch: string): boolean {
  const m = TICKET_BRANCH.exec(branch);
  return m !== null && Number(m[1]) === ticket;
}

/** The ticket whose branch this is, or null when it is no ticket's branch. */
export function ticketOfBranch(branch: string): number | null {
  const m = TICKET_BRANCH.exec(branch);
  return m ? Number(m[1]) : null;
}
