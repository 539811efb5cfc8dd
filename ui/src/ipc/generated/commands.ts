// Generated from src-tauri/src/command_table.rs by tests/wire_types.rs: do not edit.
import type { Channel } from '@tauri-apps/api/core';
import type { AppInfo } from './AppInfo';
import type { ArchivePreview } from './ArchivePreview';
import type { BranchComparison } from './BranchComparison';
import type { BranchEntry } from './BranchEntry';
import type { BranchPage } from './BranchPage';
import type { CloneForm } from './CloneForm';
import type { CloneProgress } from './CloneProgress';
import type { CommitResult } from './CommitResult';
import type { CustomEndpoint } from './CustomEndpoint';
import type { DocumentAttachment } from './DocumentAttachment';
import type { ElicitationAction } from './ElicitationAction';
import type { ElicitationContent } from './ElicitationContent';
import type { FileMatch } from './FileMatch';
import type { FilePreview } from './FilePreview';
import type { FilesRestored } from './FilesRestored';
import type { FolderListing } from './FolderListing';
import type { ImageContent } from './ImageContent';
import type { KeyCheck } from './KeyCheck';
import type { KeyStatusList } from './KeyStatusList';
import type { McpComposerItems } from './McpComposerItems';
import type { McpScope } from './McpScope';
import type { McpServerConfig } from './McpServerConfig';
import type { McpServerReview } from './McpServerReview';
import type { McpServersView } from './McpServersView';
import type { McpToolsReview } from './McpToolsReview';
import type { MergeOutcome } from './MergeOutcome';
import type { ModelGroup } from './ModelGroup';
import type { NodeDiff } from './NodeDiff';
import type { NodeVisit } from './NodeVisit';
import type { OpenedProject } from './OpenedProject';
import type { PermissionDecision } from './PermissionDecision';
import type { PermissionMode } from './PermissionMode';
import type { PermissionsView } from './PermissionsView';
import type { ProjectInfo } from './ProjectInfo';
import type { PushResult } from './PushResult';
import type { RecentProject } from './RecentProject';
import type { RestoreInfo } from './RestoreInfo';
import type { RestorePreview } from './RestorePreview';
import type { RuleEffect } from './RuleEffect';
import type { RuleSource } from './RuleSource';
import type { SearchHit } from './SearchHit';
import type { SessionActivity } from './SessionActivity';
import type { SessionEvent } from './SessionEvent';
import type { SessionListItem } from './SessionListItem';
import type { SessionState } from './SessionState';
import type { SessionTreeDelta } from './SessionTreeDelta';
import type { SessionTreeView } from './SessionTreeView';
import type { SessionView } from './SessionView';
import type { Settings } from './Settings';
import type { SetupOutcome } from './SetupOutcome';
import type { ThinkingLevel } from './ThinkingLevel';
import type { ToolList } from './ToolList';
import type { ToolReview } from './ToolReview';
import type { ToolRun } from './ToolRun';
import type { WorktreeCreated } from './WorktreeCreated';
import type { WorktreeFork } from './WorktreeFork';
import type { WorktreeReview } from './WorktreeReview';
import type { WorktreeSetup } from './WorktreeSetup';
import type { WorktreeView } from './WorktreeView';

/** Every command the shell registers: its arguments and its answer. */
export interface Commands {
  app_info: { args: Record<never, never>; response: AppInfo };
  open_project: { args: { path: string }; response: OpenedProject };
  current_project: { args: Record<never, never>; response: ProjectInfo | null };
  close_project: { args: Record<never, never>; response: void };
  recent_projects: { args: Record<never, never>; response: Array<RecentProject> };
  open_external: { args: { url: string }; response: void };
  start_session: { args: { sessionId: string | null; events: Channel<SessionEvent> }; response: SessionView };
  session_view: { args: Record<never, never>; response: SessionView };
  open_session: { args: { sessionId: string | null; worktree: string | null; events: Channel<SessionEvent> }; response: SessionView };
  watch_sessions: { args: { events: Channel<SessionActivity> }; response: void };
  background_sessions: { args: Record<never, never>; response: Array<SessionActivity> };
  list_worktrees: { args: Record<never, never>; response: Array<WorktreeView> };
  create_worktree: { args: { name: string | null; base: string | null }; response: WorktreeCreated };
  approve_worktree_setup: { args: { hash: string }; response: WorktreeSetup };
  run_worktree_setup: { args: { name: string; output: Channel<string> }; response: SetupOutcome };
  archive_preview: { args: { name: string }; response: ArchivePreview };
  archive_worktree: { args: { name: string }; response: WorktreeView };
  restore_worktree: { args: { name: string }; response: WorktreeView };
  review_worktree: { args: { name: string }; response: WorktreeReview };
  discard_change: { args: { name: string; path: string; hunk: string | null }; response: WorktreeReview };
  commit_worktree: { args: { name: string; message: string }; response: CommitResult };
  merge_worktree: { args: { name: string }; response: MergeOutcome };
  push_worktree: { args: { name: string }; response: PushResult };
  fork_into_worktree: { args: { nodeId: string; name: string | null }; response: WorktreeFork };
  session_state: { args: Record<never, never>; response: SessionState };
  prompt: { args: { message: string; images: Array<ImageContent>; documents: Array<DocumentAttachment> }; response: void };
  read_document: { args: { name: string; data: string }; response: DocumentAttachment };
  project_prompt: { args: Record<never, never>; response: string };
  set_project_prompt: { args: { text: string }; response: void };
  export_session: { args: { format: string }; response: string | null };
  import_session: { args: Record<never, never>; response: string | null };
  compact_now: { args: { focus: string | null }; response: SessionView };
  set_plan_mode: { args: { on: boolean }; response: boolean };
  find_files: { args: { query: string; limit: number }; response: Array<FileMatch> };
  list_folder: { args: { path: string }; response: FolderListing };
  preview_file: { args: { path: string }; response: FilePreview };
  mention_file: { args: { path: string }; response: DocumentAttachment };
  steer: { args: { message: string }; response: void };
  follow_up: { args: { message: string }; response: void };
  abort: { args: Record<never, never>; response: Array<string> };
  unqueue: { args: { followUp: boolean; text: string }; response: boolean };
  edit_message: { args: { nodeId: string; message: string }; response: void };
  regenerate: { args: { nodeId: string | null }; response: void };
  open_branch: { args: { nodeId: string }; response: SessionView };
  earlier_entries: { args: { before: string; count: number }; response: BranchPage };
  session_tree: { args: Record<never, never>; response: SessionTreeView };
  session_tree_since: { args: { since: number }; response: SessionTreeDelta };
  visit_node: { args: { nodeId: string }; response: NodeVisit };
  label_node: { args: { nodeId: string; label: string }; response: SessionTreeView };
  fork_at: { args: { nodeId: string }; response: SessionView };
  node_preview: { args: { nodeId: string }; response: BranchEntry };
  compare_branches: { args: { left: string; right: string }; response: BranchComparison };
  export_branch: { args: { nodeId: string; format: string }; response: string | null };
  summarize_left: { args: { oldLeaf: string }; response: SessionView };
  preview_restore: { args: { nodeId: string }; response: RestorePreview };
  restore_files: { args: { nodeId: string; overwrite: boolean; visit: boolean }; response: FilesRestored };
  undo_restore: { args: { overwrite: boolean }; response: RestoreInfo };
  can_undo_restore: { args: Record<never, never>; response: boolean };
  diff_nodes: { args: { from: string; to: string }; response: NodeDiff };
  list_tools: { args: Record<never, never>; response: ToolList };
  review_tool: { args: { approvalId: string }; response: ToolReview };
  approve_tool: { args: { approvalId: string }; response: ToolList };
  reject_tool: { args: { approvalId: string; reason: string | null }; response: ToolList };
  revoke_tool: { args: { name: string }; response: ToolList };
  tool_history: { args: { name: string | null }; response: Array<ToolRun> };
  get_permissions: { args: Record<never, never>; response: PermissionsView };
  set_permission_mode: { args: { mode: PermissionMode }; response: PermissionsView };
  trust_project: { args: Record<never, never>; response: PermissionsView };
  answer_permission: { args: { requestId: string; decision: PermissionDecision; reason: string | null }; response: void };
  add_permission_rule: { args: { rule: string; effect: RuleEffect; scope: RuleSource }; response: PermissionsView };
  remove_permission_rule: { args: { rule: string; effect: RuleEffect; source: RuleSource }; response: PermissionsView };
  set_secret_paths: { args: { paths: Array<string> }; response: PermissionsView };
  set_model: { args: { provider: string; model: string }; response: SessionState };
  set_thinking_level: { args: { level: ThinkingLevel }; response: SessionState };
  list_models: { args: Record<never, never>; response: Array<ModelGroup> };
  list_sessions: { args: Record<never, never>; response: Array<SessionListItem> };
  new_session: { args: Record<never, never>; response: SessionView };
  switch_session: { args: { sessionId: string; nodeId: string | null }; response: SessionView };
  rename_session: { args: { sessionId: string; title: string }; response: void };
  delete_session: { args: { sessionId: string }; response: void };
  search_sessions: { args: { query: string }; response: Array<SearchHit> };
  key_statuses: { args: Record<never, never>; response: KeyStatusList };
  set_api_key: { args: { provider: string; key: string; runOnly: boolean }; response: KeyStatusList };
  remove_api_key: { args: { provider: string }; response: KeyStatusList };
  test_api_key: { args: { provider: string }; response: KeyCheck };
  get_settings: { args: Record<never, never>; response: Settings };
  save_settings: { args: { settings: Settings }; response: Settings };
  add_custom_endpoint: { args: { endpoint: CustomEndpoint; key: string | null }; response: KeyStatusList };
  mcp_servers: { args: Record<never, never>; response: McpServersView };
  add_mcp_server: { args: { config: McpServerConfig }; response: McpServersView };
  remove_mcp_server: { args: { name: string }; response: McpServersView };
  set_mcp_server_enabled: { args: { scope: McpScope; name: string; enabled: boolean }; response: McpServersView };
  mcp_server_review: { args: { name: string }; response: McpServerReview };
  approve_mcp_server: { args: { name: string; hash: string }; response: McpServersView };
  mcp_tools_review: { args: { scope: McpScope; name: string }; response: McpToolsReview };
  approve_mcp_tools: { args: { scope: McpScope; name: string; hash: string }; response: McpServersView };
  mcp_server_log: { args: { scope: McpScope; name: string }; response: Array<string> };
  mcp_sign_in: { args: { scope: McpScope; name: string }; response: McpServersView };
  mcp_composer_items: { args: Record<never, never>; response: McpComposerItems };
  mcp_read_resource: { args: { scope: McpScope; server: string; uri: string }; response: DocumentAttachment };
  mcp_get_prompt: { args: { scope: McpScope; server: string; name: string; arguments: { [key in string]: string } }; response: string };
  set_mcp_secret: { args: { name: string; value: string }; response: void };
  answer_elicitation: { args: { requestId: string; action: ElicitationAction; content: ElicitationContent | null }; response: void };
  clone_destination: { args: { form: CloneForm }; response: string };
  clone_repository: { args: { form: CloneForm; progress: Channel<CloneProgress> }; response: OpenedProject };
  cancel_clone: { args: Record<never, never>; response: void };
}

/** The same names at run time (a UI test checks each is called). */
export const COMMAND_NAMES = [
  'app_info',
  'open_project',
  'current_project',
  'close_project',
  'recent_projects',
  'open_external',
  'start_session',
  'session_view',
  'open_session',
  'watch_sessions',
  'background_sessions',
  'list_worktrees',
  'create_worktree',
  'approve_worktree_setup',
  'run_worktree_setup',
  'archive_preview',
  'archive_worktree',
  'restore_worktree',
  'review_worktree',
  'discard_change',
  'commit_worktree',
  'merge_worktree',
  'push_worktree',
  'fork_into_worktree',
  'session_state',
  'prompt',
  'read_document',
  'project_prompt',
  'set_project_prompt',
  'export_session',
  'import_session',
  'compact_now',
  'set_plan_mode',
  'find_files',
  'list_folder',
  'preview_file',
  'mention_file',
  'steer',
  'follow_up',
  'abort',
  'unqueue',
  'edit_message',
  'regenerate',
  'open_branch',
  'earlier_entries',
  'session_tree',
  'session_tree_since',
  'visit_node',
  'label_node',
  'fork_at',
  'node_preview',
  'compare_branches',
  'export_branch',
  'summarize_left',
  'preview_restore',
  'restore_files',
  'undo_restore',
  'can_undo_restore',
  'diff_nodes',
  'list_tools',
  'review_tool',
  'approve_tool',
  'reject_tool',
  'revoke_tool',
  'tool_history',
  'get_permissions',
  'set_permission_mode',
  'trust_project',
  'answer_permission',
  'add_permission_rule',
  'remove_permission_rule',
  'set_secret_paths',
  'set_model',
  'set_thinking_level',
  'list_models',
  'list_sessions',
  'new_session',
  'switch_session',
  'rename_session',
  'delete_session',
  'search_sessions',
  'key_statuses',
  'set_api_key',
  'remove_api_key',
  'test_api_key',
  'get_settings',
  'save_settings',
  'add_custom_endpoint',
  'mcp_servers',
  'add_mcp_server',
  'remove_mcp_server',
  'set_mcp_server_enabled',
  'mcp_server_review',
  'approve_mcp_server',
  'mcp_tools_review',
  'approve_mcp_tools',
  'mcp_server_log',
  'mcp_sign_in',
  'mcp_composer_items',
  'mcp_read_resource',
  'mcp_get_prompt',
  'set_mcp_secret',
  'answer_elicitation',
  'clone_destination',
  'clone_repository',
  'cancel_clone',
] as const satisfies readonly (keyof Commands)[];
