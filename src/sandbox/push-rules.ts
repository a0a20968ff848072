/**
 * Pushes github.com refuses and plain git would take, modelled by a `pre-receive` hook that every
 * receive-pack of the sandbox runs (`core.hooksPath`, set per request):
 * - a push that creates or changes a file under `.github/workflows/` with a token lacking the
 *   `workflow` scope. GitHub: "refusing to allow an OAuth App to create or update workflow
 *   `<path>` without `workflow` scope"
 *   (https://docs.github.com/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps).
 * A user made without `scopes` has every scope, as a token made for the sandbox always had.
 * GitHub puts its words in the ref's rejection reason; a hook's words arrive as `remote:` lines and
 * the reason reads "pre-receive hook declined" (docs/sandbox.md, fidelity).
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { App } from "./app";

const PRE_RECEIVE = `#!/bin/sh
# Written by the Ticket Runner sandbox (src/sandbox/push-rules.ts). Runs the repository's own
# pre-receive hook afterwards, when it has one, with the same input.
zero=0000000000000000000000000000000000000000
input=$(cat)
case " $SANDBOX_TOKEN_SCOPES " in
  *" workflow "*|*" all "*) ;;
  *)
    printf '%s\\n' "$input" | while read old new ref; do
      [ -z "$ref" ] && continue
      [ "$new" = "$zero" ] && continue
      if [ "$old" = "$zero" ]; then
        files=$(git log --format= --name-only "$new" --not --all -- .github/workflows/ | sed '/^$/d' | head -n 1)
      else
        files=$(git diff --name-only "$old" "$new" -- .github/workflows/ | head -n 1)
      fi
      if [ -n "$files" ]; then
        echo "refusing to allow an OAuth App to create or update workflow \\\`$files\\\` without \\\`workflow\\\` scope" >&2
        exit 1
      fi
    done || exit 1
    ;;
esac
own="$(git rev-parse --absolute-git-dir)/hooks/pre-receive"
if [ -x "$own" ]; then
  printf '%s\\n' "$input" | "$own"
  exit $?
fi
exit 0
`;

const written = new WeakMap<App, Promise<string>>();

function hooksDir(app: App): Promise<string> {
  let dir = written.get(app);
  if (!dir) {
    const where = path.join(app.spoolDir, "hooks");
    dir = (async () => {
      await mkdir(where, { recursive: true });
      const file = path.join(where, "pre-receive");
      await writeFile(file, PRE_RECEIVE);
      await chmod(file, 0o755);
      return where;
    })();
    written.set(app, dir);
  }
  return dir;
}

/** The environment a receive-pack needs for the rules: the hook, and the pusher's token scopes. */
export async function pushRuleEnv(app: App, login: string): Promise<Record<string, string>> {
  const scopes = app.store.user(login)?.scopes;
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.hooksPath",
    GIT_CONFIG_VALUE_0: await hooksDir(app),
    SANDBOX_TOKEN_SCOPES: scopes ? scopes.join(" ") : "all",
  };
}
