// The one folder through which the UI talks to the Rust side. Components import from here and
// never from `@tauri-apps/*` directly, so tests can replace this module wholesale. Every shape
// that crosses the wire is a generated type (`./wire`), never a hand-written copy.
import { Channel, invoke } from '@tauri-apps/api/core';
import { open } from '@tauri-apps/plugin-dialog';
import type {
  AppInfo,
  ArchivePreview,
  CommitResult,
  MergeOutcome,
  PushResult,
  SessionActivity,
  SetupOutcome,
  WorktreeCreated,
  WorktreeFork,
  WorktreeReview,
  WorktreeSetup,
  WorktreeView,
  ToolList,
  ToolReview,
  ToolRun,
  FilesRestored,
  NodeDiff,
  RestoreInfo,
  RestorePreview,
  BranchComparison,
  BranchEntry,
  BranchPage,
  NodeVisit,
  SessionTreeDelta,
  SessionTreeView,
  CloneForm,
  CloneProgress,
  CustomEndpoint,
  DocumentAttachment,
  ElicitationAction,
  ElicitationContent,
  FileMatch,
  FilePreview,
  FolderListing,
  KeyCheck,
  KeyStatusList,
  McpComposerItems,
  McpScope,
  McpServerConfig,
  McpServerReview,
  McpServersView,
  McpToolsReview,
  Settings,
  ImageContent,
  ModelGroup,
  OpenedProject,
  PermissionDecision,
  PermissionMode,
  PermissionsView,
  ProjectInfo,
  RecentProject,
  RuleEffect,
  RuleSource,
  SearchHit,
  SessionEvent,
  SessionListItem,
  SessionState,
  SessionView,
  ThinkingLevel,
} from './wire';
import type { Commands } from './generated/commands';
import type { ErrorCode } from './generated/ErrorCode';

export type * from './wire';

/**
 * A failure's code: one of Rust's `ErrorCode`s (generated, so `tsc` checks every comparison),
 * or `unknown` for a failure that did not come from Rust as `{code, message}`.
 */
export type FailureCode = ErrorCode | 'unknown';

/** Every failed call into Rust surfaces as an `ArborError` with a stable `code`. */
export class ArborError extends Error {
  readonly code: FailureCode;

  constructor(code: FailureCode, message: string) {
    super(message);
    this.name = 'ArborError';
    this.code = code;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Turns whatever a rejected call produced into an `ArborError`. */
export function toArborError(raw: unknown): ArborError {
  if (raw instanceof ArborError) return raw;
  if (isRecord(raw) && typeof raw.code === 'string' && typeof raw.message === 'string') {
    // Rust's `CommandError` always sends one of its `ErrorCode`s.
    return new ArborError(raw.code as ErrorCode, raw.message);
  }
  if (typeof raw === 'string') {
    return new ArborError('unknown', raw || 'Unknown error');
  }
  if (raw instanceof Error) {
    return new ArborError('unknown', raw.message || raw.name);
  }
  if (isRecord(raw) && typeof raw.message === 'string' && raw.message) {
    return new ArborError('unknown', raw.message);
  }
  let detail: string;
  try {
    detail = JSON.stringify(raw) ?? String(raw);
  } catch {
    detail = String(raw);
  }
  return new ArborError('unknown', `Unexpected error: ${detail}`);
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (raw) {
    throw toArborError(raw);
  }
}

/**
 * How the functions below reach Rust: a command of the table by name, and the Channel a command
 * streams over. In the app it is always Tauri's.
 */
export interface Transport {
  invoke<K extends keyof Commands>(
    name: K,
    args: Commands[K]['args'] | undefined,
  ): Promise<Commands[K]['response']>;
  channel<T>(onmessage: (message: T) => void): Channel<T>;
}

const tauri: Transport = {
  invoke: (name, args) => invoke(name, args),
  channel: (onmessage) => new Channel(onmessage),
};

let transport: Transport = tauri;

/**
 * The test seam, for `ui/src/test-ipc.ts` only: jsdom has no Tauri, so component tests run these
 * very functions over a fake transport that answers from the command table. `null` puts Tauri's
 * back. The app never calls it.
 */
export function setTransport(fake: Transport | null): void {
  transport = fake ?? tauri;
}

/**
 * Calls a command of the shell's table (`generated/commands.ts`, made from
 * `src-tauri/src/command_table.rs`): `tsc` checks its name, its arguments and its answer.
 */
function command<K extends keyof Commands>(
  name: K,
  ...args: keyof Commands[K]['args'] extends never ? [] : [Commands[K]['args']]
): Promise<Commands[K]['response']> {
  return call(() => transport.invoke(name, args[0]));
}

export function appInfo(): Promise<AppInfo> {
  return command('app_info');
}

/** Opens a folder as a project: in this window, or in another one (`window: 'other'`). */
export function openProject(path: string): Promise<OpenedProject> {
  return command('open_project', { path });
}

/** The project this window was opened for, if any (a new project window asks on start). */
export function currentProject(): Promise<ProjectInfo | null> {
  return command('current_project');
}

/** Closes this window's project (aborting a run) and returns the window to the start view. */
export function closeProject(): Promise<void> {
  return command('close_project');
}

export function recentProjects(): Promise<RecentProject[]> {
  return command('recent_projects');
}

/** Opens an http(s) link in the system browser; the webview never navigates. */
export function openExternal(url: string): Promise<void> {
  return command('open_external', { url });
}

/** Shows the native folder picker; resolves to the chosen path, or `null` when cancelled. */
export function pickFolder(): Promise<string | null> {
  return call(async () => {
    const picked = await open({ directory: true, multiple: false, title: 'Open folder' });
    return typeof picked === 'string' ? picked : null;
  });
}

/**
 * Opens the window's chat on a session (`null`: the project's most recent one) and streams its
 * events to `onevent` until the next `startSession`.
 */
export function startSession(
  sessionId: string | null,
  onevent: (event: SessionEvent) => void,
): Promise<SessionView> {
  const events = transport.channel(onevent);
  return command('start_session', { sessionId, events });
}

/**
 * Opens the window's chat on a stored session, or (`sessionId` null) on a new one — in
 * `worktree` when given; a stored session's worktree is found by Rust. A session the window
 * showed that still runs goes on in the background; opening a session running in the background
 * shows it again with its live stream. Its events reach `onevent` until the next open.
 */
export function openSession(
  sessionId: string | null,
  worktree: string | null,
  onevent: (event: SessionEvent) => void,
): Promise<SessionView> {
  const events = transport.channel(onevent);
  return command('open_session', { sessionId, worktree, events });
}

/**
 * From now on every live session of the window (shown or in the background) reports its
 * activity to `onactivity` whenever it changes. Called once, when the window opens the project.
 */
export function watchSessions(onactivity: (activity: SessionActivity) => void): Promise<void> {
  const events = transport.channel(onactivity);
  return command('watch_sessions', { events });
}

/** The window's sessions running in the background, with their worktrees. */
export function backgroundSessions(): Promise<SessionActivity[]> {
  return command('background_sessions');
}

export function sessionView(): Promise<SessionView> {
  return command('session_view');
}

/** The chat header's figures alone (cost, context use), e.g. after a run. */
export function sessionState(): Promise<SessionState> {
  return command('session_state');
}

/**
 * Sends a message: its text, its images, and the documents `readDocument` read (each becomes a
 * text part of its own after the typed text).
 */
export function prompt(
  message: string,
  images: ImageContent[] = [],
  documents: DocumentAttachment[] = [],
): Promise<void> {
  return command('prompt', { message, images, documents });
}

/**
 * Reads a file the user attached (`data`: its bytes as base64) as a document for a message:
 * PDF, DOCX, PPTX, XLSX/XLS/ODS. Fails with `unsupported`, `document_too_large`,
 * `invalid_document` or `time_limit`, each message fit to show the user.
 */
export function readDocument(name: string, data: string): Promise<DocumentAttachment> {
  return command('read_document', { name, data });
}

export function steer(message: string): Promise<void> {
  return command('steer', { message });
}

export function followUp(message: string): Promise<void> {
  return command('follow_up', { message });
}

/** Stops the run; answers the queued messages it had not delivered (steering first), which
 * go back to the composer. */
export function abort(): Promise<string[]> {
  return command('abort');
}

/** Takes a queued steer (`followUp` false) or follow-up back before it is delivered: whether
 * it was still queued. */
export function unqueue(followUp: boolean, text: string): Promise<boolean> {
  return command('unqueue', { followUp, text });
}

/** The project's own system-prompt text (empty when it has none). */
export function projectPrompt(): Promise<string> {
  return command('project_prompt');
}

/** Saves the project's own system-prompt text (blank clears it); new chats use it. */
export function setProjectPrompt(text: string): Promise<void> {
  return command('set_project_prompt', { text });
}

/** Enters or leaves plan mode: whether it is on. */
export function setPlanMode(on: boolean): Promise<boolean> {
  return command('set_plan_mode', { on });
}

/** Summarises the older conversation now; answers the chat as it then is. */
export function compactNow(focus: string | null = null): Promise<SessionView> {
  return command('compact_now', { focus });
}

/** The whole session (every branch) to a file picked in a save dialog Rust opens: the path, or
 * null when cancelled. */
export function exportSession(format: 'markdown' | 'jsonl' | 'html'): Promise<string | null> {
  return command('export_session', { format });
}

/** A JSONL export picked in an open dialog Rust opens, stored as a new session of the project:
 * its id, or null when cancelled. */
export function importSession(): Promise<string | null> {
  return command('import_session');
}

/** The composer's `@` finder: the project's files matching `query`, best first. */
export function findFiles(query: string, limit = 50): Promise<FileMatch[]> {
  return command('find_files', { query, limit });
}

/** One folder of the files panel (`''`: the project itself). */
export function listFolder(path: string): Promise<FolderListing> {
  return command('list_folder', { path });
}

/** The files panel's read-only preview of a file. */
export function previewFile(path: string): Promise<FilePreview> {
  return command('preview_file', { path });
}

/** A mentioned file, read to go with the message as a text part of its own. */
export function mentionFile(path: string): Promise<DocumentAttachment> {
  return command('mention_file', { path });
}

/** Sends an edited user message as a sibling branch of `nodeId`. */
export function editMessage(nodeId: string, message: string): Promise<void> {
  return command('edit_message', { nodeId, message });
}

/** Asks again for the answer `nodeId` (`null`: the branch's last answer). */
export function regenerate(nodeId: string | null): Promise<void> {
  return command('regenerate', { nodeId });
}

/** Up to `count` entries of the branch shown just before the node `before` (scrolling back). */
export function earlierEntries(before: string, count: number): Promise<BranchPage> {
  return command('earlier_entries', { before, count });
}

/** Moves to another branch: the leaf of the subtree under `nodeId`. */
export function openBranch(nodeId: string): Promise<SessionView> {
  return command('open_branch', { nodeId });
}

export function setModel(provider: string, model: string): Promise<SessionState> {
  return command('set_model', { provider, model });
}

export function setThinkingLevel(level: ThinkingLevel): Promise<SessionState> {
  return command('set_thinking_level', { level });
}

export function listModels(): Promise<ModelGroup[]> {
  return command('list_models');
}

export function listSessions(): Promise<SessionListItem[]> {
  return command('list_sessions');
}

export function newSession(): Promise<SessionView> {
  return command('new_session');
}

/** Makes a stored session current, at `nodeId` when given (a search hit). */
export function switchSession(
  sessionId: string,
  nodeId: string | null = null,
): Promise<SessionView> {
  return command('switch_session', { sessionId, nodeId });
}

export function renameSession(sessionId: string, title: string): Promise<void> {
  return command('rename_session', { sessionId, title });
}

export function deleteSession(sessionId: string): Promise<void> {
  return command('delete_session', { sessionId });
}

export function searchSessions(query: string): Promise<SearchHit[]> {
  return command('search_sessions', { query });
}

/** Where every provider's key comes from (never the key itself). */
export function keyStatuses(): Promise<KeyStatusList> {
  return command('key_statuses');
}

/**
 * Keeps a provider's key in the OS keychain (`runOnly`: in memory until the app exits, the offer
 * made when no keychain is reachable). The key crosses the bridge once and is never sent back.
 */
export function setApiKey(provider: string, key: string, runOnly = false): Promise<KeyStatusList> {
  return command('set_api_key', { provider, key, runOnly });
}

export function removeApiKey(provider: string): Promise<KeyStatusList> {
  return command('remove_api_key', { provider });
}

/** One cheap request with the provider's key: whether it works, and the error class if not. */
export function testApiKey(provider: string): Promise<KeyCheck> {
  return command('test_api_key', { provider });
}

export function getSettings(): Promise<Settings> {
  return command('get_settings');
}

export function saveSettings(settings: Settings): Promise<Settings> {
  return command('save_settings', { settings });
}

/** Adds an endpoint to models.json (checked first) and its key, if any, to the keychain. */
export function addCustomEndpoint(
  endpoint: CustomEndpoint,
  key: string | null,
): Promise<KeyStatusList> {
  return command('add_custom_endpoint', { endpoint, key });
}

/** The project's MCP servers (the user's and its `.mcp.json`'s) with their status, and what
 * was wrong with its `.mcp.json`. */
export function mcpServers(): Promise<McpServersView> {
  return command('mcp_servers');
}

/** Adds (or replaces, by name) one of the user's MCP servers, saved in the settings for every
 * project; the new list. Fails with `invalid_mcp_server`, saying what is wrong. */
export function addMcpServer(config: McpServerConfig): Promise<McpServersView> {
  return command('add_mcp_server', { config });
}

/** Removes one of the user's MCP servers (and stops it); the new list. A project's servers are
 * removed by editing its `.mcp.json`. */
export function removeMcpServer(name: string): Promise<McpServersView> {
  return command('remove_mcp_server', { name });
}

/** Switches an MCP server on or off (off: stopped, its tools not offered); the new list. */
export function setMcpServerEnabled(
  scope: McpScope,
  name: string,
  enabled: boolean,
): Promise<McpServersView> {
  return command('set_mcp_server_enabled', { scope, name, enabled });
}

/** A project server's definition as the user approves it (with the change since the last
 * approval, when it changed). */
export function mcpServerReview(name: string): Promise<McpServerReview> {
  return command('mcp_server_review', { name });
}

/** Approves a project server's definition exactly as reviewed (`hash`); the new list. */
export function approveMcpServer(name: string, hash: string): Promise<McpServersView> {
  return command('approve_mcp_server', { name, hash });
}

/** Starts the server if needed (it may take seconds) and compares its tools with the approved
 * ones: added, changed (with their diffs), removed, unchanged. */
export function mcpToolsReview(scope: McpScope, name: string): Promise<McpToolsReview> {
  return command('mcp_tools_review', { scope, name });
}

/** Approves a server's tools exactly as reviewed (`hash`): offered from the next request on. */
export function approveMcpTools(
  scope: McpScope,
  name: string,
  hash: string,
): Promise<McpServersView> {
  return command('approve_mcp_tools', { scope, name, hash });
}

/** A server's stderr and Arbor's lines about it (empty before it first started). */
export function mcpServerLog(scope: McpScope, name: string): Promise<string[]> {
  return command('mcp_server_log', { scope, name });
}

/**
 * Signs in to an HTTP MCP server: Rust opens its authorization page in the system browser and
 * waits (up to five minutes) for the redirect on a loopback port; the tokens go to the keychain,
 * never to the webview. The new list.
 */
export function mcpSignIn(scope: McpScope, name: string): Promise<McpServersView> {
  return command('mcp_sign_in', { scope, name });
}

/**
 * What the project's usable MCP servers offer the composer: resources (the `@` menu) and
 * prompts (the `/` menu), with `server: why` for each server that did not answer. Starts the
 * servers as needed, so it may take seconds.
 */
export function mcpComposerItems(): Promise<McpComposerItems> {
  return command('mcp_composer_items');
}

/** A server's resource, read to go with the message as a document of its own (as `@` mentions
 * go). */
export function mcpReadResource(
  scope: McpScope,
  server: string,
  uri: string,
): Promise<DocumentAttachment> {
  return command('mcp_read_resource', { scope, server, uri });
}

/** A server's prompt filled with `args` (by argument name): the text the composer shows for the
 * person to read and edit before sending. */
export function mcpGetPrompt(
  scope: McpScope,
  server: string,
  name: string,
  args: Record<string, string>,
): Promise<string> {
  return command('mcp_get_prompt', { scope, server, name, arguments: args });
}

/** Keeps a secret a server definition names as `${keychain:NAME}` in the keychain; it crosses
 * the bridge once and is never sent back. */
export function setMcpSecret(name: string, value: string): Promise<void> {
  return command('set_mcp_secret', { name, value });
}

/** Where a clone of `form` would go (the workspaces folder unless a destination is given). */
export function cloneDestination(form: CloneForm): Promise<string> {
  return command('clone_destination', { form });
}

/**
 * Clones `form`, calling `onProgress` with each report; when done the clone opens as a project by
 * the start window's rules (this window when it has none).
 */
export function cloneRepository(
  form: CloneForm,
  onProgress: (progress: CloneProgress) => void,
): Promise<OpenedProject> {
  const progress = transport.channel(onProgress);
  return command('clone_repository', { form, progress });
}

/** Cancels this window's clone; nothing is left behind. */
export function cancelClone(): Promise<void> {
  return command('cancel_clone');
}

/** The window's session as a tree (the tree panel). */
export function sessionTree(): Promise<SessionTreeView> {
  return command('session_tree');
}

/** The nodes stored since the panel read `since` of them, with the current leaf. */
export function sessionTreeSince(since: number): Promise<SessionTreeDelta> {
  return command('session_tree_since', { since });
}

/** Goes to a node: the branch it is on is shown; a user message's text comes back for editing. */
export function visitNode(nodeId: string): Promise<NodeVisit> {
  return command('visit_node', { nodeId });
}

/** Labels a node (an empty label removes it); answers with the tree. */
export function labelNode(nodeId: string, label: string): Promise<SessionTreeView> {
  return command('label_node', { nodeId, label });
}

/** Copies the path to a node into a new session, which this window then shows. */
export function forkAt(nodeId: string): Promise<SessionView> {
  return command('fork_at', { nodeId });
}

/** One node with its message (the tree's preview of a turn, and Copy). */
export function nodePreview(nodeId: string): Promise<BranchEntry> {
  return command('node_preview', { nodeId });
}

/** The branches ending at `left` and `right`, side by side from where they part. */
export function compareBranches(left: string, right: string): Promise<BranchComparison> {
  return command('compare_branches', { left, right });
}

/** Every tool: built-in, approved, pending (with its approval id), invalid (with why). */
export function listTools(): Promise<ToolList> {
  return command('list_tools');
}

/** What the approval dialog shows for `approvalId`. */
export function reviewTool(approvalId: string): Promise<ToolReview> {
  return command('review_tool', { approvalId });
}

/** Approves a pending tool (written, pinned, offered from the next request); the new list. */
export function approveTool(approvalId: string): Promise<ToolList> {
  return command('approve_tool', { approvalId });
}

/** Rejects a pending tool; the reason reaches the model. The new list. */
export function rejectTool(approvalId: string, reason: string | null): Promise<ToolList> {
  return command('reject_tool', { approvalId, reason });
}

/** Takes a tool's approval back; the new list. */
export function revokeTool(name: string): Promise<ToolList> {
  return command('revoke_tool', { name });
}

/** The runs of the model's tools (of `name`), newest first. */
export function toolHistory(name: string | null): Promise<ToolRun[]> {
  return command('tool_history', { name });
}

/** The project's permissions: its mode, whether it is trusted, the rules, secret paths, sandbox. */
export function getPermissions(): Promise<PermissionsView> {
  return command('get_permissions');
}

/** Sets the project's permission mode (read-only, workspace, full); the new view. */
export function setPermissionMode(mode: PermissionMode): Promise<PermissionsView> {
  return command('set_permission_mode', { mode });
}

/** Trusts a cloned repository (and switches it to workspace mode); the new view. */
export function trustProject(): Promise<PermissionsView> {
  return command('trust_project');
}

/**
 * Answers a tool call waiting for permission (`requestId` of its `permission_requested`); a
 * denial's `reason` reaches the model.
 */
export function answerPermission(
  requestId: string,
  decision: PermissionDecision,
  reason: string | null,
): Promise<void> {
  return command('answer_permission', { requestId, decision, reason });
}

/**
 * Answers an MCP server's question (`requestId` of its `elicitation_requested`): `accept` with
 * the form's `content`, `decline` or `cancel` with none. Rust checks the content against the
 * form again (`invalid_request`, every problem in the message); `not_found` when the question no
 * longer waits.
 */
export function answerElicitation(
  requestId: string,
  action: ElicitationAction,
  content: ElicitationContent | null,
): Promise<void> {
  return command('answer_elicitation', { requestId, action, content });
}

/** Adds a rule (`Bash(cargo test *)`) for the user or this project (`scope`); the new view. */
export function addPermissionRule(
  rule: string,
  effect: RuleEffect,
  scope: RuleSource,
): Promise<PermissionsView> {
  return command('add_permission_rule', { rule, effect, scope });
}

/** Removes a user or project rule, named as the view lists it; the new view. */
export function removePermissionRule(
  rule: string,
  effect: RuleEffect,
  source: RuleSource,
): Promise<PermissionsView> {
  return command('remove_permission_rule', { rule, effect, source });
}

/** Sets the paths hidden from commands and refused to the file tools; the new view. */
export function setSecretPaths(paths: string[]): Promise<PermissionsView> {
  return command('set_secret_paths', { paths });
}

/** What bringing a node's files back would write and delete (nothing is written yet). */
export function previewRestore(nodeId: string): Promise<RestorePreview> {
  return command('preview_restore', { nodeId });
}

/**
 * Brings a node's files back. `overwrite`: also files changed outside Arbor (only after the
 * preview showed them to the user). `visit`: the conversation goes to the node too.
 */
export function restoreFiles(
  nodeId: string,
  overwrite: boolean,
  visit: boolean,
): Promise<FilesRestored> {
  return command('restore_files', { nodeId, overwrite, visit });
}

/** Brings back the files as they were before the last restore (undoing twice redoes). */
export function undoRestore(overwrite: boolean): Promise<RestoreInfo> {
  return command('undo_restore', { overwrite });
}

/** Whether the project has a restore to undo (also after a restart). */
export function canUndoRestore(): Promise<boolean> {
  return command('can_undo_restore');
}

/** The files that differ between two nodes' states, with their patches. */
export function diffNodes(from: string, to: string): Promise<NodeDiff> {
  return command('diff_nodes', { from, to });
}

/**
 * Exports the path to a node into a file picked in the system's save dialog (Rust opens it; the
 * webview never names a path). Answers with the file written, or null when the dialog was
 * cancelled.
 */
export function exportBranch(
  nodeId: string,
  format: 'markdown' | 'jsonl' | 'html',
): Promise<string | null> {
  return command('export_branch', { nodeId, format });
}

/**
 * Summarises the branch that ended at `oldLeaf` into the current branch (offered after going
 * elsewhere in the tree); asks the model, and Stop (`abort`) cancels it.
 */
export function summarizeLeft(oldLeaf: string): Promise<SessionView> {
  return command('summarize_left', { oldLeaf });
}

/** The project's worktrees, active and archived. */
export function listWorktrees(): Promise<WorktreeView[]> {
  return command('list_worktrees');
}

/**
 * Makes a worktree on `arbor/<name>` from `base` (null: a generated name, the current branch);
 * answers it with the `.worktreeinclude` files copied and the project's setup command, if any.
 */
export function createWorktree(name: string | null, base: string | null): Promise<WorktreeCreated> {
  return command('create_worktree', { name, base });
}

/** Approves the project's setup command, pinned by its `hash` (a changed command asks again). */
export function approveWorktreeSetup(hash: string): Promise<WorktreeSetup> {
  return command('approve_worktree_setup', { hash });
}

/** Runs the approved setup command in the worktree `name`; each output line reaches `online`. */
export function runWorktreeSetup(
  name: string,
  online: (line: string) => void,
): Promise<SetupOutcome> {
  const output = transport.channel(online);
  return command('run_worktree_setup', { name, output });
}

/** What archiving the worktree `name` keeps (a snapshot of what is not committed) and loses. */
export function archivePreview(name: string): Promise<ArchivePreview> {
  return command('archive_preview', { name });
}

/** Snapshots the worktree `name` and removes its folder; the branch stays. */
export function archiveWorktree(name: string): Promise<WorktreeView> {
  return command('archive_worktree', { name });
}

/** Brings an archived worktree's folder back, with what was not committed. */
export function restoreWorktree(name: string): Promise<WorktreeView> {
  return command('restore_worktree', { name });
}

/** What the worktree `name` changed against its base: committed and not, per file and hunk. */
export function reviewWorktree(name: string): Promise<WorktreeReview> {
  return command('review_worktree', { name });
}

/**
 * Throws away an uncommitted change of `path` in the worktree `name`: one hunk (its header as
 * the review showed it; a stale one is refused) or, with `hunk` null, the whole file. The new
 * review.
 */
export function discardChange(
  name: string,
  path: string,
  hunk: string | null,
): Promise<WorktreeReview> {
  return command('discard_change', { name, path, hunk });
}

/** Commits every uncommitted change of the worktree `name` on its branch. */
export function commitWorktree(name: string, message: string): Promise<CommitResult> {
  return command('commit_worktree', { name, message });
}

/** Merges the worktree's branch into its base (a conflict changes nothing). */
export function mergeWorktree(name: string): Promise<MergeOutcome> {
  return command('merge_worktree', { name });
}

/** Pushes the worktree's branch to its remote. */
export function pushWorktree(name: string): Promise<PushResult> {
  return command('push_worktree', { name });
}

/** "Continue in a new worktree": a worktree at the node's files and a session with its branch. */
export function forkIntoWorktree(nodeId: string, name: string | null): Promise<WorktreeFork> {
  return command('fork_into_worktree', { nodeId, name });
}
