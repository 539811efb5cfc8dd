//! The command table: every command the webview may call, written once — name, the arguments
//! it takes over IPC and what it answers. From it come the handler Tauri registers
//! ([`invoke_handler`]), a compile-time check that each command's Rust signature takes exactly
//! those arguments and answers that type, and the table the UI's IPC functions are typed
//! against ([`command_table`] → `ui/src/ipc/generated/commands.ts`, written and checked by
//! `tests/wire_types.rs`). A command added here but not in the UI, or called by the UI with
//! other arguments, fails `tsc`; one whose Rust signature drifts from its row fails to compile.
//!
//! Row syntax: `module::name [injected] (argument: Type, channel => EventType) -> Answer;` where
//! `injected` lists what Tauri supplies and the webview does not send (`app`, `window`,
//! `state`), in the order the function takes them first; `=>` marks a `Channel` argument.

use std::collections::BTreeMap;
use std::future::Future;

use tauri::ipc::Channel;
use ts_rs::{Config, TS};

use crate::clone_commands;
use crate::code_commands;
use crate::commands;
use crate::error::CommandError;
use crate::file_commands;
use crate::mcp_commands;
use crate::permission_commands;
use crate::session_commands;
use crate::session_file_commands;
use crate::session_open;
use crate::settings_commands;
use crate::tool_commands;
use crate::tree_commands;
use crate::worktree_commands;
use arbor_app::clone::CloneProgress;
use arbor_app::sessions::{NodeDiff, RestoreInfo, RestorePreview};
use arbor_app::skills::{ToolList, ToolReview};
use arbor_app::views::attachments::DocumentAttachment;
use arbor_app::views::branch::SearchHit;
use arbor_app::views::clone::CloneForm;
use arbor_app::views::elicitation::{ElicitationAction, ElicitationContent};
use arbor_app::views::files::{FileMatch, FilePreview, FolderListing};
use arbor_app::views::mcp::{
    McpComposerItems, McpScope, McpServerConfig, McpServerReview, McpServersView, McpToolsReview,
};
use arbor_app::views::permissions::{
    PermissionDecision, PermissionMode, PermissionsView, RuleEffect, RuleSource,
};
use arbor_app::views::tools::ToolRun;
use arbor_app::views::worktrees::{
    ArchivePreview, CommitResult, MergeOutcome, PushResult, SessionActivity, SetupOutcome,
    WorktreeCreated, WorktreeFork, WorktreeReview, WorktreeSetup, WorktreeView,
};
use arbor_app::views::{AppInfo, OpenedProject};
use arbor_app::{
    BranchComparison, BranchEntry, BranchPage, CustomEndpoint, FilesRestored, KeyCheck,
    KeyStatusList, ModelGroup, NodeVisit, ProjectInfo, RecentProject, SessionListItem,
    SessionState, SessionTreeDelta, SessionTreeView, SessionView, Settings,
};
use arbor_protocol::{ImageContent, SessionEvent, ThinkingLevel};

/// One row of the table as the UI sees it: argument names as the webview sends them
/// (camelCase, as Tauri expects), TypeScript types as ts-rs names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    pub name: &'static str,
    pub args: Vec<(String, String)>,
    pub response: String,
}

/// What Tauri injects into a command: the webview never sends these.
macro_rules! injected {
    (app) => { tauri::AppHandle };
    (window) => { tauri::Window };
    (state) => { tauri::State<'static, crate::state::DesktopState> };
}

/// An argument's Rust type (`=>`: a channel of that event type).
macro_rules! argument_type {
    (: $ty:ty) => { $ty };
    (=> $ty:ty) => { Channel<$ty> };
}

/// An argument's TypeScript type.
macro_rules! argument_ts {
    ($cfg:expr, : $ty:ty) => {
        <$ty as TS>::name($cfg)
    };
    ($cfg:expr, => $ty:ty) => {
        format!("Channel<{}>", <$ty as TS>::name($cfg))
    };
}

macro_rules! command_table {
    ($(
        $module:ident :: $name:ident [$($injected:ident)*] ($($arg:ident $kind:tt $ty:ty),* $(,)?) -> $response:ty;
    )*) => {
        /// The handler Tauri registers: exactly the table's commands.
        pub(crate) fn invoke_handler(
        ) -> impl Fn(tauri::ipc::Invoke<tauri::Wry>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($module::$name),*]
        }

        /// Every command's row, in the table's order.
        pub fn command_table(cfg: &Config) -> Vec<CommandSpec> {
            vec![$(
                CommandSpec {
                    name: stringify!($name),
                    args: vec![$((camel_case(stringify!($arg)), argument_ts!(cfg, $kind $ty))),*],
                    response: <$response as TS>::name(cfg),
                }
            ),*]
        }

        /// Compile-time only: each command takes the row's arguments and answers its type.
        #[allow(dead_code, clippy::too_many_arguments)]
        mod signatures {
            use super::*;
            $(
                pub(super) fn $name(
                    $($injected: injected!($injected),)*
                    $($arg: argument_type!($kind $ty)),*
                ) -> impl Future<Output = Result<$response, CommandError>> {
                    $module::$name($($injected,)* $($arg),*)
                }
            )*
        }
    };
}

command_table! {
    commands::app_info [] () -> AppInfo;
    commands::open_project [app window state] (path: String) -> OpenedProject;
    commands::current_project [window state] () -> Option<ProjectInfo>;
    commands::close_project [window state] () -> ();
    commands::recent_projects [state] () -> Vec<RecentProject>;
    commands::open_external [app] (url: String) -> ();
    session_commands::start_session [window state] (session_id: Option<String>, events => SessionEvent) -> SessionView;
    session_commands::session_view [window state] () -> SessionView;
    session_open::open_session [window state] (session_id: Option<String>, worktree: Option<String>, events => SessionEvent) -> SessionView;
    session_open::watch_sessions [window state] (events => SessionActivity) -> ();
    session_open::background_sessions [window state] () -> Vec<SessionActivity>;
    worktree_commands::list_worktrees [window state] () -> Vec<WorktreeView>;
    worktree_commands::create_worktree [window state] (name: Option<String>, base: Option<String>) -> WorktreeCreated;
    worktree_commands::approve_worktree_setup [window state] (hash: String) -> WorktreeSetup;
    worktree_commands::run_worktree_setup [window state] (name: String, output => String) -> SetupOutcome;
    worktree_commands::archive_preview [window state] (name: String) -> ArchivePreview;
    worktree_commands::archive_worktree [window state] (name: String) -> WorktreeView;
    worktree_commands::restore_worktree [window state] (name: String) -> WorktreeView;
    worktree_commands::review_worktree [window state] (name: String) -> WorktreeReview;
    worktree_commands::discard_change [window state] (name: String, path: String, hunk: Option<String>) -> WorktreeReview;
    worktree_commands::commit_worktree [window state] (name: String, message: String) -> CommitResult;
    worktree_commands::merge_worktree [window state] (name: String) -> MergeOutcome;
    worktree_commands::push_worktree [window state] (name: String) -> PushResult;
    worktree_commands::fork_into_worktree [window state] (node_id: String, name: Option<String>) -> WorktreeFork;
    session_commands::session_state [window state] () -> SessionState;
    session_commands::prompt [window state] (message: String, images: Vec<ImageContent>, documents: Vec<DocumentAttachment>) -> ();
    session_commands::read_document [] (name: String, data: String) -> DocumentAttachment;
    permission_commands::project_prompt [window state] () -> String;
    permission_commands::set_project_prompt [window state] (text: String) -> ();
    session_file_commands::export_session [window state] (format: String) -> Option<String>;
    session_file_commands::import_session [window state] () -> Option<String>;
    session_file_commands::compact_now [window state] (focus: Option<String>) -> SessionView;
    session_file_commands::set_plan_mode [window state] (on: bool) -> bool;
    file_commands::find_files [window state] (query: String, limit: u32) -> Vec<FileMatch>;
    file_commands::list_folder [window state] (path: String) -> FolderListing;
    file_commands::preview_file [window state] (path: String) -> FilePreview;
    file_commands::mention_file [window state] (path: String) -> DocumentAttachment;
    session_commands::steer [window state] (message: String) -> ();
    session_commands::follow_up [window state] (message: String) -> ();
    session_commands::abort [window state] () -> Vec<String>;
    session_commands::unqueue [window state] (follow_up: bool, text: String) -> bool;
    session_commands::edit_message [window state] (node_id: String, message: String) -> ();
    session_commands::regenerate [window state] (node_id: Option<String>) -> ();
    session_commands::open_branch [window state] (node_id: String) -> SessionView;
    session_commands::earlier_entries [window state] (before: String, count: usize) -> BranchPage;
    tree_commands::session_tree [window state] () -> SessionTreeView;
    tree_commands::session_tree_since [window state] (since: usize) -> SessionTreeDelta;
    tree_commands::visit_node [window state] (node_id: String) -> NodeVisit;
    tree_commands::label_node [window state] (node_id: String, label: String) -> SessionTreeView;
    tree_commands::fork_at [window state] (node_id: String) -> SessionView;
    tree_commands::node_preview [window state] (node_id: String) -> BranchEntry;
    tree_commands::compare_branches [window state] (left: String, right: String) -> BranchComparison;
    tree_commands::export_branch [window state] (node_id: String, format: String) -> Option<String>;
    tree_commands::summarize_left [window state] (old_leaf: String) -> SessionView;
    code_commands::preview_restore [window state] (node_id: String) -> RestorePreview;
    code_commands::restore_files [window state] (node_id: String, overwrite: bool, visit: bool) -> FilesRestored;
    code_commands::undo_restore [window state] (overwrite: bool) -> RestoreInfo;
    code_commands::can_undo_restore [window state] () -> bool;
    code_commands::diff_nodes [window state] (from: String, to: String) -> NodeDiff;
    tool_commands::list_tools [window state] () -> ToolList;
    tool_commands::review_tool [window state] (approval_id: String) -> ToolReview;
    tool_commands::approve_tool [window state] (approval_id: String) -> ToolList;
    tool_commands::reject_tool [window state] (approval_id: String, reason: Option<String>) -> ToolList;
    tool_commands::revoke_tool [window state] (name: String) -> ToolList;
    tool_commands::tool_history [window state] (name: Option<String>) -> Vec<ToolRun>;
    permission_commands::get_permissions [window state] () -> PermissionsView;
    permission_commands::set_permission_mode [window state] (mode: PermissionMode) -> PermissionsView;
    permission_commands::trust_project [window state] () -> PermissionsView;
    permission_commands::answer_permission [window state] (request_id: String, decision: PermissionDecision, reason: Option<String>) -> ();
    permission_commands::add_permission_rule [window state] (rule: String, effect: RuleEffect, scope: RuleSource) -> PermissionsView;
    permission_commands::remove_permission_rule [window state] (rule: String, effect: RuleEffect, source: RuleSource) -> PermissionsView;
    permission_commands::set_secret_paths [window state] (paths: Vec<String>) -> PermissionsView;
    session_commands::set_model [window state] (provider: String, model: String) -> SessionState;
    session_commands::set_thinking_level [window state] (level: ThinkingLevel) -> SessionState;
    session_commands::list_models [state] () -> Vec<ModelGroup>;
    session_commands::list_sessions [window state] () -> Vec<SessionListItem>;
    session_commands::new_session [window state] () -> SessionView;
    session_commands::switch_session [window state] (session_id: String, node_id: Option<String>) -> SessionView;
    session_commands::rename_session [state] (session_id: String, title: String) -> ();
    session_commands::delete_session [window state] (session_id: String) -> ();
    session_commands::search_sessions [window state] (query: String) -> Vec<SearchHit>;
    settings_commands::key_statuses [state] () -> KeyStatusList;
    settings_commands::set_api_key [state] (provider: String, key: String, run_only: bool) -> KeyStatusList;
    settings_commands::remove_api_key [state] (provider: String) -> KeyStatusList;
    settings_commands::test_api_key [state] (provider: String) -> KeyCheck;
    settings_commands::get_settings [state] () -> Settings;
    settings_commands::save_settings [state] (settings: Settings) -> Settings;
    settings_commands::add_custom_endpoint [state] (endpoint: CustomEndpoint, key: Option<String>) -> KeyStatusList;
    mcp_commands::mcp_servers [window state] () -> McpServersView;
    mcp_commands::add_mcp_server [window state] (config: McpServerConfig) -> McpServersView;
    mcp_commands::remove_mcp_server [window state] (name: String) -> McpServersView;
    mcp_commands::set_mcp_server_enabled [window state] (scope: McpScope, name: String, enabled: bool) -> McpServersView;
    mcp_commands::mcp_server_review [window state] (name: String) -> McpServerReview;
    mcp_commands::approve_mcp_server [window state] (name: String, hash: String) -> McpServersView;
    mcp_commands::mcp_tools_review [window state] (scope: McpScope, name: String) -> McpToolsReview;
    mcp_commands::approve_mcp_tools [window state] (scope: McpScope, name: String, hash: String) -> McpServersView;
    mcp_commands::mcp_server_log [window state] (scope: McpScope, name: String) -> Vec<String>;
    mcp_commands::mcp_sign_in [app window state] (scope: McpScope, name: String) -> McpServersView;
    mcp_commands::mcp_composer_items [window state] () -> McpComposerItems;
    mcp_commands::mcp_read_resource [window state] (scope: McpScope, server: String, uri: String) -> DocumentAttachment;
    mcp_commands::mcp_get_prompt [window state] (scope: McpScope, server: String, name: String, arguments: BTreeMap<String, String>) -> String;
    mcp_commands::set_mcp_secret [state] (name: String, value: String) -> ();
    mcp_commands::answer_elicitation [window state] (request_id: String, action: ElicitationAction, content: Option<ElicitationContent>) -> ();
    clone_commands::clone_destination [state] (form: CloneForm) -> String;
    clone_commands::clone_repository [app window state] (form: CloneForm, progress => CloneProgress) -> OpenedProject;
    clone_commands::cancel_clone [window state] () -> ();
}

/// `node_id` → `nodeId`: Tauri reads a command's arguments in camelCase.
fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_named_as_the_webview_sends_them() {
        assert_eq!(camel_case("node_id"), "nodeId");
        assert_eq!(camel_case("run_only"), "runOnly");
        assert_eq!(camel_case("path"), "path");
    }

    #[test]
    fn every_command_appears_once() {
        let table = command_table(&Config::new());
        let mut names: Vec<_> = table.iter().map(|c| c.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a command is listed twice");
        let start = table.iter().find(|c| c.name == "start_session").unwrap();
        assert_eq!(
            start.args,
            vec![
                ("sessionId".to_owned(), "string | null".to_owned()),
                ("events".to_owned(), "Channel<SessionEvent>".to_owned()),
            ]
        );
    }
}
