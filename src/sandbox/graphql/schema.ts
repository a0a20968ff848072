/**
 * The subset of GitHub's GraphQL schema the sandbox serves (https://docs.github.com/graphql).
 * Names and shapes follow GitHub's public schema so client queries run unchanged.
 */
import { buildSchema } from "graphql";
import { withCheapIntErrors } from "./int-fields";

// One line per type, as GitHub's own schema reads compactly enough to check by eye against it.
// prettier-ignore
const sdl = /* GraphQL */ `
scalar DateTime
scalar URI
scalar GitObjectID
scalar BigInt

interface Node { id: ID! }
interface Actor { login: String! avatarUrl: URI! url: URI! }
interface RepositoryOwner { id: ID! login: String! avatarUrl: URI! url: URI! }
interface GitObject { oid: GitObjectID! }
interface Labelable { labels(first: Int, after: String, last: Int, before: String): LabelConnection }
interface Assignable { assignees(first: Int, after: String, last: Int, before: String): UserConnection! }

enum IssueState { OPEN CLOSED }
enum IssueStateReason { COMPLETED NOT_PLANNED REOPENED DUPLICATE }
enum IssueClosedStateReason { COMPLETED NOT_PLANNED DUPLICATE }
enum PullRequestState { OPEN CLOSED MERGED }
enum MergeableState { MERGEABLE CONFLICTING UNKNOWN }
enum CommentAuthorAssociation { OWNER MEMBER COLLABORATOR CONTRIBUTOR FIRST_TIMER FIRST_TIME_CONTRIBUTOR MANNEQUIN NONE }
enum IssueOrderField { CREATED_AT UPDATED_AT COMMENTS }
enum OrderDirection { ASC DESC }
enum PullRequestMergeMethod { MERGE SQUASH REBASE }
enum RepositoryPermission { ADMIN MAINTAIN WRITE TRIAGE READ }
enum IssueTimelineItemsItemType { LABELED_EVENT UNLABELED_EVENT ASSIGNED_EVENT UNASSIGNED_EVENT CLOSED_EVENT REOPENED_EVENT ISSUE_COMMENT RENAMED_TITLE_EVENT }

input IssueOrder { field: IssueOrderField! direction: OrderDirection! }
input IssueFilters { assignee: String createdBy: String labels: [String!] since: DateTime states: [IssueState!] }

type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
type RateLimit { limit: Int! cost: Int! remaining: Int! resetAt: DateTime! used: Int! nodeCount: Int! }

type User implements Node & Actor & RepositoryOwner { id: ID! databaseId: Int login: String! name: String avatarUrl: URI! url: URI! }
type Bot implements Node & Actor { id: ID! login: String! avatarUrl: URI! url: URI! }
union Assignee = User | Bot
type UserEdge { cursor: String! node: User }
type UserConnection { nodes: [User] edges: [UserEdge] totalCount: Int! pageInfo: PageInfo! }

type Label implements Node { id: ID! name: String! color: String! description: String url: URI! isDefault: Boolean! }
type LabelEdge { cursor: String! node: Label }
type LabelConnection { nodes: [Label] edges: [LabelEdge] totalCount: Int! pageInfo: PageInfo! }

type IssueComment implements Node {
  id: ID! databaseId: Int fullDatabaseId: BigInt body: String! author: Actor authorAssociation: CommentAuthorAssociation!
  url: URI! createdAt: DateTime! updatedAt: DateTime! lastEditedAt: DateTime issue: Issue! viewerCanUpdate: Boolean!
}
type IssueCommentEdge { cursor: String! node: IssueComment }
type IssueCommentConnection { nodes: [IssueComment] edges: [IssueCommentEdge] totalCount: Int! pageInfo: PageInfo! }

type LabeledEvent implements Node { id: ID! actor: Actor label: Label! createdAt: DateTime! }
type UnlabeledEvent implements Node { id: ID! actor: Actor label: Label! createdAt: DateTime! }
type AssignedEvent implements Node { id: ID! actor: Actor assignee: Assignee createdAt: DateTime! }
type UnassignedEvent implements Node { id: ID! actor: Actor assignee: Assignee createdAt: DateTime! }
type ClosedEvent implements Node { id: ID! actor: Actor createdAt: DateTime! }
type ReopenedEvent implements Node { id: ID! actor: Actor createdAt: DateTime! }
type RenamedTitleEvent implements Node { id: ID! actor: Actor createdAt: DateTime! previousTitle: String! currentTitle: String! }
union IssueTimelineItems = LabeledEvent | UnlabeledEvent | AssignedEvent | UnassignedEvent | ClosedEvent | ReopenedEvent | RenamedTitleEvent | IssueComment
type IssueTimelineItemsEdge { cursor: String! node: IssueTimelineItems }
type IssueTimelineItemsConnection { nodes: [IssueTimelineItems] edges: [IssueTimelineItemsEdge] totalCount: Int! pageInfo: PageInfo! }

type UserContentEdit implements Node { id: ID! createdAt: DateTime! updatedAt: DateTime! editedAt: DateTime! editor: Actor diff: String deletedAt: DateTime deletedBy: Actor }
type UserContentEditEdge { cursor: String! node: UserContentEdit }
type UserContentEditConnection { nodes: [UserContentEdit] edges: [UserContentEditEdge] totalCount: Int! pageInfo: PageInfo! }

type Issue implements Node & Labelable & Assignable {
  id: ID! databaseId: Int fullDatabaseId: BigInt number: Int! title: String! body: String! state: IssueState! stateReason: IssueStateReason
  url: URI! createdAt: DateTime! updatedAt: DateTime! closedAt: DateTime closed: Boolean!
  author: Actor authorAssociation: CommentAuthorAssociation! repository: Repository!
  labels(first: Int, after: String, last: Int, before: String): LabelConnection
  assignees(first: Int, after: String, last: Int, before: String): UserConnection!
  comments(first: Int, after: String, last: Int, before: String): IssueCommentConnection!
  timelineItems(first: Int, after: String, last: Int, before: String, itemTypes: [IssueTimelineItemsItemType!], since: DateTime): IssueTimelineItemsConnection!
  blockedBy(first: Int, after: String, last: Int, before: String): IssueConnection!
  userContentEdits(first: Int, after: String, last: Int, before: String): UserContentEditConnection
  viewerCanUpdate: Boolean!
}
type IssueEdge { cursor: String! node: Issue }
type IssueConnection { nodes: [Issue] edges: [IssueEdge] totalCount: Int! pageInfo: PageInfo! }

type Commit implements GitObject { oid: GitObjectID! }
type PullRequest implements Node & Labelable & Assignable {
  id: ID! databaseId: Int fullDatabaseId: BigInt number: Int! title: String! body: String! state: PullRequestState!
  url: URI! permalink: URI! createdAt: DateTime! updatedAt: DateTime! closedAt: DateTime closed: Boolean!
  author: Actor authorAssociation: CommentAuthorAssociation! repository: Repository!
  isDraft: Boolean! merged: Boolean! mergedAt: DateTime mergeable: MergeableState! mergeCommit: Commit
  headRefName: String! headRefOid: GitObjectID! baseRefName: String!
  labels(first: Int, after: String, last: Int, before: String): LabelConnection
  assignees(first: Int, after: String, last: Int, before: String): UserConnection!
  comments(first: Int, after: String, last: Int, before: String): IssueCommentConnection!
}
type PullRequestEdge { cursor: String! node: PullRequest }
type PullRequestConnection { nodes: [PullRequest] edges: [PullRequestEdge] totalCount: Int! pageInfo: PageInfo! }
union IssueOrPullRequest = Issue | PullRequest

type Ref { name: String! prefix: String! target: GitObject }
type Repository implements Node {
  id: ID! databaseId: Int name: String! nameWithOwner: String! owner: RepositoryOwner! url: URI! isPrivate: Boolean!
  defaultBranchRef: Ref viewerPermission: RepositoryPermission
  deleteBranchOnMerge: Boolean! squashMergeAllowed: Boolean! mergeCommitAllowed: Boolean! rebaseMergeAllowed: Boolean!
  issues(first: Int, after: String, last: Int, before: String, states: [IssueState!], labels: [String!], orderBy: IssueOrder, filterBy: IssueFilters): IssueConnection!
  issue(number: Int!): Issue
  pullRequest(number: Int!): PullRequest
  issueOrPullRequest(number: Int!): IssueOrPullRequest
  pullRequests(first: Int, after: String, last: Int, before: String, states: [PullRequestState!], headRefName: String, baseRefName: String, labels: [String!]): PullRequestConnection!
  labels(first: Int, after: String, last: Int, before: String, query: String): LabelConnection
  label(name: String!): Label
  assignableUsers(first: Int, after: String, last: Int, before: String, query: String): UserConnection!
}

type Query {
  viewer: User!
  rateLimit(dryRun: Boolean): RateLimit
  repository(owner: String!, name: String!): Repository
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  user(login: String!): User
}

input AddCommentInput { subjectId: ID! body: String! clientMutationId: String }
type AddCommentPayload { clientMutationId: String commentEdge: IssueCommentEdge subject: Node }
input UpdateIssueCommentInput { id: ID! body: String! clientMutationId: String }
type UpdateIssueCommentPayload { clientMutationId: String issueComment: IssueComment }
input DeleteIssueCommentInput { id: ID! clientMutationId: String }
type DeleteIssueCommentPayload { clientMutationId: String }
input AddLabelsToLabelableInput { labelableId: ID! labelIds: [ID!]! clientMutationId: String }
type AddLabelsToLabelablePayload { clientMutationId: String labelable: Labelable }
input RemoveLabelsFromLabelableInput { labelableId: ID! labelIds: [ID!]! clientMutationId: String }
type RemoveLabelsFromLabelablePayload { clientMutationId: String labelable: Labelable }
input AddAssigneesToAssignableInput { assignableId: ID! assigneeIds: [ID!]! clientMutationId: String }
type AddAssigneesToAssignablePayload { clientMutationId: String assignable: Assignable }
input RemoveAssigneesFromAssignableInput { assignableId: ID! assigneeIds: [ID!]! clientMutationId: String }
type RemoveAssigneesFromAssignablePayload { clientMutationId: String assignable: Assignable }
input CloseIssueInput { issueId: ID! stateReason: IssueClosedStateReason clientMutationId: String }
type CloseIssuePayload { clientMutationId: String issue: Issue }
input ReopenIssueInput { issueId: ID! clientMutationId: String }
type ReopenIssuePayload { clientMutationId: String issue: Issue }
input UpdateIssueInput { id: ID! title: String body: String state: IssueState clientMutationId: String }
type UpdateIssuePayload { clientMutationId: String issue: Issue }
input ConvertPullRequestToDraftInput { pullRequestId: ID! clientMutationId: String }
type ConvertPullRequestToDraftPayload { clientMutationId: String pullRequest: PullRequest }
input MarkPullRequestReadyForReviewInput { pullRequestId: ID! clientMutationId: String }
type MarkPullRequestReadyForReviewPayload { clientMutationId: String pullRequest: PullRequest }
input MergePullRequestInput { pullRequestId: ID! expectedHeadOid: GitObjectID mergeMethod: PullRequestMergeMethod commitHeadline: String commitBody: String authorEmail: String clientMutationId: String }
type MergePullRequestPayload { clientMutationId: String pullRequest: PullRequest }

type Mutation {
  addComment(input: AddCommentInput!): AddCommentPayload
  updateIssueComment(input: UpdateIssueCommentInput!): UpdateIssueCommentPayload
  deleteIssueComment(input: DeleteIssueCommentInput!): DeleteIssueCommentPayload
  addLabelsToLabelable(input: AddLabelsToLabelableInput!): AddLabelsToLabelablePayload
  removeLabelsFromLabelable(input: RemoveLabelsFromLabelableInput!): RemoveLabelsFromLabelablePayload
  addAssigneesToAssignable(input: AddAssigneesToAssignableInput!): AddAssigneesToAssignablePayload
  removeAssigneesFromAssignable(input: RemoveAssigneesFromAssignableInput!): RemoveAssigneesFromAssignablePayload
  closeIssue(input: CloseIssueInput!): CloseIssuePayload
  reopenIssue(input: ReopenIssueInput!): ReopenIssuePayload
  updateIssue(input: UpdateIssueInput!): UpdateIssuePayload
  convertPullRequestToDraft(input: ConvertPullRequestToDraftInput!): ConvertPullRequestToDraftPayload
  markPullRequestReadyForReview(input: MarkPullRequestReadyForReviewInput!): MarkPullRequestReadyForReviewPayload
  mergePullRequest(input: MergePullRequestInput!): MergePullRequestPayload
}
`;

export const sandboxSchema = withCheapIntErrors(buildSchema(sdl));
