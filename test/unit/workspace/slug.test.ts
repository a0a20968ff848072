import { strict as assert } from "node:assert";
import fc from "fast-check";
import { branchFor, SLUG_MAX, slugify } from "../../../src/adapters/git/slug";

const SLUG_SHAPE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

describe("workspace: slug", () => {
  it("reads like the title", () => {
    assert.equal(slugify("Add a --dry-run flag to `sync`"), "add-a-dry-run-flag-to-sync");
    assert.equal(slugify("Café crème für Straße"), "cafe-creme-fur-strasse");
    assert.equal(slugify("Don't crash on $(rm -rf /); `whoami` | tee >x"), "dont-crash-on-rm-rf-whoami-tee-x");
    assert.equal(branchFor(12, "--force everything"), "agent/12-force-everything");
  });

  it("falls back to 'ticket' when nothing ASCII is left", () => {
    assert.equal(slugify(""), "ticket");
    assert.equal(slugify("修复登录问题"), "ticket");
    assert.equal(slugify("🔥🔥 --- !!!"), "ticket");
  });

  it("cuts at a word boundary, and hard-cuts a single over-long word", () => {
    const s = slugify("release a rate limited ticket and resume it on another host later");
    assert.equal(s, "release-a-rate-limited-ticket-and-resume");
    assert.equal(slugify("x".repeat(100)), "x".repeat(SLUG_MAX));
  });

  it("is ASCII, at most 40 characters, ref-safe, and a whole-word prefix, for any title", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: "grapheme", maxLength: 120 }), fc.string({ unit: "binary", maxLength: 120 })),
        (title) => {
          const s = slugify(title);
          assert.ok(s.length <= SLUG_MAX, s);
          assert.match(s, SLUG_SHAPE);
          // What git forbids in a ref (check-ref-format) cannot appear: no "..", "~^:?*[\\", space, leading "-" or ".".
          assert.ok(!/[.~^:?*[\\\s]/.test(s) && !s.startsWith("-"));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never cuts mid-word unless the first word alone is too long", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9]{1,15}$/), { minLength: 1, maxLength: 12 }), (words) => {
        const s = slugify(words.join(" "));
        const kept = s.split("-");
        if (words[0]!.length > SLUG_MAX) return;
        assert.deepEqual(kept, words.slice(0, kept.length));
      }),
    );
  });
});
