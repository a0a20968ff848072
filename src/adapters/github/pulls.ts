/** Pull requests and CI over REST (plus GraphQL for the draft toggle, which REST cannot do). */
import type { CiReport, CiState, MergeInput, MergeResult, PullRequestInfo, RepoRef } from "../../ports/tracker";
import { readMergeRefusal } from "./merge-refusal";
import type { GitHubClient } from "./client";
import { check, restCheckRuns, restCombinedStatus, restMerge, restPull } from "./schemas";

function status(error: unknown): number | undefined {
  return (error as { status?: number }).status;
}

function toPull(raw: unknown): PullRequestInfo {
  const p = check(restPull, raw, "a pull request");
  return {
    number: p.number,
    url: p.html_url,
    state: p.state,
    merged: p.merged ?? !!p.merged_at,
    draft: p.draft ?? false,
    head: p.head.ref,
    headSha: p.head.sha,
    base: p.base.ref,
    title: p.title,
    body: p.body ?? "",
    mergeable: p.mergeable ?? null,
  };
}

export class Pulls {
  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: RepoRef,
  ) {}

  private get base() {
    return { owner: this.repo.owner, repo: this.repo.repo };
  }

  async find(head: string): Promise<PullRequestInfo | null> {
    const res = await this.octokit.request("GET /repos/{owner}/{repo}/pulls", {
      ...this.base,
      head: `${this.repo.owner}:${head}`,
      state: "open",
      per_page: 10,
    });
    const list = Array.isArray(res.data) ? res.data : [];
    return list.length ? toPull(list[0]) : null;
  }

  async get(number: number): Promise<PullRequestInfo | null> {
    try {
      return toPull((await this.octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { ...this.base, pull_number: number })).data);
    } catch (error) {
      if (status(error) === 404) return null;
      throw error;
    }
  }

  async create(input: { head: string; base: string; title: string; body: string; draft: boolean }): Promise<PullRequestInfo> {
    return toPull((await this.octokit.request("POST /repos/{owner}/{repo}/pulls", { ...this.base, ...input })).data);
  }

  async update(number: number, input: { title?: string; body?: string }): Promise<PullRequestInfo> {
    return toPull((await this.octokit.request("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", { ...this.base, pull_number: number, ...input })).data);
  }

  async setDraft(number: number, draft: boolean): Promise<void> {
    const res = await this.octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { ...this.base, pull_number: number });
    const nodeId = check(restPull, res.data, `pull request #${number}`).node_id;
    if (!nodeId) return;
    const m = draft
      ? `mutation($id: ID!) { convertPullRequestToDraft(input: { pullRequestId: $id }) { clientMutationId } }`
      : `mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { clientMutationId } }`;
    await this.octokit.graphql(m, { id: nodeId });
  }

  async ci(ref: string): Promise<CiReport> {
    const [runsRes, statusRes] = await Promise.all([
      this.octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", { ...this.base, ref, per_page: 100 }),
      this.octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/status", { ...this.base, ref }),
    ]);
    const runs = check(restCheckRuns, runsRes.data, `check runs of ${ref}`).check_runs;
    const combined = check(restCombinedStatus, statusRes.data, `combined status of ${ref}`);
    const details = [
      ...runs.map((r) => `check ${r.name}: ${r.status}${r.conclusion ? ` (${r.conclusion})` : ""}`),
      ...combined.statuses.map((s) => `status ${s.context}: ${s.state}`),
    ];
    if (runs.length === 0 && combined.total_count === 0) return { state: "none", details };
    const failed =
      runs.some((r) => r.status === "completed" && !["success", "neutral", "skipped"].includes(r.conclusion ?? "")) ||
      (["failure", "error"].includes(combined.state) && combined.total_count > 0);
    const pending = runs.some((r) => r.status !== "completed") || (combined.total_count > 0 && combined.state === "pending");
    const state: CiState = failed ? "failure" : pending ? "pending" : "success";
    return { state, details };
  }

  async merge(number: number, input: MergeInput): Promise<MergeResult> {
    try {
      const res = await this.octokit.request("PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge", {
        ...this.base,
        pull_number: number,
        sha: input.sha,
        merge_method: input.method,
        ...(input.title ? { commit_title: input.title } : {}),
        ...(input.message !== undefined ? { commit_message: input.message } : {}),
      });
      const m = check(restMerge, res.data, `the merge of #${number}`);
      return { merged: m.merged, sha: m.sha ?? null, reason: m.merged ? undefined : m.message };
    } catch (error) {
      const s = status(error);
      if (s === 405 || s === 409 || s === 422) {
        const said = (error as { response?: { data?: { message?: unknown } } }).response?.data?.message;
        const refusal = s === 405 ? readMergeRefusal(typeof said === "string" ? said : (error as Error).message, number, input.base ?? "the base") : undefined;
        return { merged: false, sha: null, reason: `${s}: ${(error as Error).message}`, ...(refusal ? { refusal } : {}) };
      }
      throw error;
    }
  }
}
