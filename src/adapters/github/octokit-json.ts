/**
 * The JSON reader Octokit's requests use, in our bundles (ADR 0508; scripts/octokit-json.mjs puts it
 * where @octokit/request imports `json-with-bigint`). That library reads an integer beyond 2^53 as a
 * BigInt; on Node 20 (no `context.source` in a reviver) it does so by rewriting the whole answer
 * with a regular expression and parsing it again with a reviver, a JavaScript call for every value:
 * ~2.5 % of a Run's own CPU, for the ~37 answers a ticket reads. An answer with no run of 16 digits
 * anywhere (in a number or in a string) has no integer beyond 2^53 − 1 (16 digits, 9007199254740991),
 * so the library would give exactly what `JSON.parse` gives: it is read by `JSON.parse` alone.
 * Any other answer, and any call with a reviver, goes to the library as before.
 */
import { JSONParse as parseKeepingBigInts } from "json-with-bigint";

export { JSONStringify } from "json-with-bigint";

/** Sixteen digits in a row: where an unsafe integer could be. */
const LONG_DIGITS = /\d{16}/;

export const JSONParse: typeof JSON.parse = (text, reviver) => {
  if (reviver === undefined && typeof text === "string" && text !== "" && !LONG_DIGITS.test(text)) return JSON.parse(text) as unknown;
  return parseKeepingBigInts(text, reviver) as unknown;
};
