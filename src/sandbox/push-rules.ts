/**
 * Pushes github.com refuses and plain git would take, modelled by a `pre-receive` hook that every
 * receive-pack of the sandbox runs (`core.hooksPath`, set per request):
 * - a push that creates or changes a file under `.github/workflows/` with a token lacking the
 *   `workflow` scope. GitHub: "refusing to allow an OAuth App to create or update workflow
 *   `<path>` without `workflow` scope"
 *   (https://docs.github.com/apps/oauth-apps/building-oauth-apps/scopes-for-oauth-apps).
 * - what the repository's rulesets forbid (force pushes, deletions, updates, pushes to a branch
 *   that takes pull requests only) and, with push protection on, a new commit that adds a GitHub
 *   personal access token: "GH013: Repository rule violations found for <ref>" (./rulesets.ts).
 * A user made without `scopes` has every scope, as a token made for the sandbox always had.
 * GitHub puts its words in the ref's rejection reason; a hook's words arrive as `remote:` lines and
 * the reason reads "pre-receive hook declined" (docs/sandbox.md, fidelity).
 */
import { constants } from "node:fs";
import { access, chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { App } from "./app";
import type { RepoRec } from "./model";
import { hookRules } from "./rulesets";

const PRE_RECEIVE = `#!/bin/sh
# Written by the Ticket Runner sandbox (src/sandbox/push-rules.ts). Runs the repository's own
# pre-receive hook afterwards, when it has one, with the same input.
zero=0000000000000000000000000000000000000000
# Read with the shell's own read, not $(cat): a push runs this hook, so each program it starts
# costs every push (ADR 0391).
nl='
'
input=""
while IFS= read -r line || [ -n "$line" ]; do input="\${input:+$input$nl}$line"; done
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
# Repository rulesets (SANDBOX_RULES, from rulesets.ts) and push protection, in GitHub's words;
# with neither, no program is started for them (ADR 0432: each costs every push).
if [ -n "$SANDBOX_RULES" ] || [ "$SANDBOX_PUSH_PROTECTION" = 1 ]; then
set -f
tab=$(printf '\t')
rule_hit() {
  printf '%s\n' "$SANDBOX_RULES" | while IFS="$tab" read -r rule name inc exc; do
    [ "$rule" = "$1" ] || continue
    printf '%s\n' "$2" | grep -Eq -- "$inc" || continue
    printf '%s\n' "$2" | grep -Eq -- "$exc" && continue
    printf '%s\n' "$name"
    break
  done
}
while read -r old new ref; do
  [ -z "$ref" ] && continue
  case "$ref" in refs/heads/*) branch=\${ref#refs/heads/} ;; *) continue ;; esac
  lines=""
  if [ "$new" = "$zero" ]; then
    [ -n "$(rule_hit deletion "$branch")" ] && lines="$lines\n- Cannot delete this branch\n"
  elif [ "$old" != "$zero" ]; then
    [ -n "$(rule_hit update "$branch")" ] && lines="$lines\n- Cannot update this protected ref.\n"
    # git only where a rule asks: most pushes update a branch no rule names.
    if [ -n "$(rule_hit non_fast_forward "$branch")" ] && ! git merge-base --is-ancestor "$old" "$new" 2>/dev/null; then
      lines="$lines\n- Cannot force-push to this branch\n"
    fi
    [ -n "$(rule_hit pull_request "$branch")" ] && lines="$lines\n- Changes must be made through a pull request.\n"
  fi
  if [ -n "$lines" ]; then
    printf 'error: GH013: Repository rule violations found for %s.\nReview all repository rules at %s\n%b\n' "$ref" "$SANDBOX_RULES_URL" "$lines" >&2
    exit 1
  fi
  if [ "$SANDBOX_PUSH_PROTECTION" = 1 ] && [ "$new" != "$zero" ]; then
    if [ "$old" = "$zero" ]; then range="$new --not --all"; else range="$old..$new"; fi
    found=""; commit=""; file=""
    while IFS= read -r line; do
      case "$line" in
        "commit "*) commit=\${line#commit } ;;
        "+++ b/"*) file=\${line#+++ b/} ;;
        "+"*) found=1; break ;;
      esac
    done <<SCAN
$(git log -p --format='commit %H' $range -- | grep -E '^commit |^\\+\\+\\+ b/|^\\+.*ghp_[A-Za-z0-9]{36}')
SCAN
    if [ -n "$found" ]; then
      printf 'error: GH013: Repository rule violations found for %s.\n\n- GITHUB PUSH PROTECTION\n  —————————————————————————————————————————\n    Resolve the following violations before pushing again\n\n    - Push cannot contain secrets\n\n     (?) Learn how to resolve a blocked push\n     https://docs.github.com/code-security/secret-scanning/working-with-secret-scanning-and-push-protection/working-with-push-protection-from-the-command-line#resolving-a-blocked-push\n\n      —— GitHub Personal Access Token ——————————————————————\n       locations:\n         - commit: %s\n           path: %s\n\n' "$ref" "$commit" "$file" >&2
      exit 1
    fi
  fi
done <<REFS
$input
REFS
set +f
fi
# receive-pack runs hooks in the (bare) repository with GIT_DIR=. (githooks(5)).
case "\${GIT_DIR:-.}" in
  /*) gitdir=$GIT_DIR ;;
  *) gitdir="$PWD/\${GIT_DIR:-.}" ;;
esac
own="$gitdir/hooks/pre-receive"
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

const noHooks = new WeakMap<App, Promise<string>>();

/** A hooks folder with nothing in it: receive-pack finds no hook there and starts none. */
function emptyHooksDir(app: App): Promise<string> {
  let dir = noHooks.get(app);
  if (!dir) {
    const where = path.join(app.spoolDir, "no-hooks");
    dir = mkdir(where, { recursive: true }).then(() => where);
    noHooks.set(app, dir);
  }
  return dir;
}

/**
 * Whether the hook has work in this push: a token without the workflow scope, a ruleset, push
 * protection, or the repository's own pre-receive hook to run after it (the hook's `[ -x "$own" ]`).
 * Without any, it reads its input and exits 0, which is what no hook at all does (ADR 0474).
 */
async function hookHasWork(app: App, repo: RepoRec, scopes: string, rules: string): Promise<boolean> {
  if (!` ${scopes} `.includes(" workflow ") && !` ${scopes} `.includes(" all ")) return true;
  if (rules !== "" || repo.pushProtection) return true;
  return access(path.join(app.gitDir(repo), "hooks", "pre-receive"), constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * What a receive-pack needs for the rules: the hook (config), the pusher's token scopes and the
 * repository's rules (environment). A push the hook would let through without a word gets an empty
 * hooks folder instead: no process, and, as with the hook, none of the repository's other hooks.
 * `hook`: the hook has work (the push cannot be taken in this process: receive-in-process.ts).
 */
export async function pushRules(app: App, repo: RepoRec, login: string): Promise<{ config: [string, string][]; env: Record<string, string>; hook: boolean }> {
  const scopes = app.store.user(login)?.scopes;
  const env = {
    SANDBOX_TOKEN_SCOPES: scopes ? scopes.join(" ") : "all",
    SANDBOX_RULES: hookRules(repo),
    SANDBOX_RULES_URL: `${app.urls.api}/${repo.owner}/${repo.name}/rules`,
    SANDBOX_PUSH_PROTECTION: repo.pushProtection ? "1" : "0",
  };
  const hook = await hookHasWork(app, repo, env.SANDBOX_TOKEN_SCOPES, env.SANDBOX_RULES);
  return { config: [["core.hooksPath", hook ? await hooksDir(app) : await emptyHooksDir(app)]], env, hook };
}
