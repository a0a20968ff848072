import { z } from "zod";

/**
 * A GitHub database id (comment, issue, pull request), carried as a decimal string end to end.
 * github.com's ids are past 2^31 (GraphQL `Int` cannot hold them; `fullDatabaseId` is a `BigInt`
 * string) and will pass 2^53, where a JavaScript number silently rounds. See ADR 0130.
 */
export type GithubId = string;

const digits = z.string().regex(/^[1-9][0-9]{0,19}$/, "a GitHub id is a decimal string of digits");

/**
 * Reads an id from any record we wrote or GitHub sent: a decimal string, or (records written before
 * ids became strings, and REST's JSON numbers) a positive safe integer, which becomes its string.
 */
export const githubIdSchema = z.union([
  digits,
  z
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .transform((n) => String(n)),
]);
