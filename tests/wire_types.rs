//! The UI's wire types are generated from the Rust types with ts-rs into
//! `ui/src/ipc/generated/` (checked in; `ui/src/ipc/wire.ts` re-exports them). This test
//! generates them again into a temporary folder and fails when the checked-in copy is stale.
//! After changing a wire type, regenerate with
//! `ARBOR_UPDATE_WIRE_TYPES=1 cargo test -p arbor-desktop --test wire_types`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use ts_rs::{Config, TS};

fn generate(dir: &Path) -> Result<()> {
    // JavaScript numbers hold every count and timestamp Arbor sends (all below 2^53).
    let cfg = Config::new().with_large_int("number").with_out_dir(dir);
    arbor_protocol::SessionEvent::export_all(&cfg)?;
    arbor_protocol::ErrorCode::export_all(&cfg)?;
    arbor_protocol::views::permissions::PermissionsView::export_all(&cfg)?;
    arbor_protocol::views::worktrees::WorktreeView::export_all(&cfg)?;
    arbor_protocol::views::worktrees::WorktreeCreated::export_all(&cfg)?;
    arbor_protocol::views::worktrees::ArchivePreview::export_all(&cfg)?;
    arbor_protocol::views::worktrees::WorktreeReview::export_all(&cfg)?;
    arbor_protocol::views::worktrees::MergeOutcome::export_all(&cfg)?;
    arbor_protocol::views::worktrees::CommitResult::export_all(&cfg)?;
    arbor_protocol::views::worktrees::PushResult::export_all(&cfg)?;
    arbor_protocol::views::worktrees::SetupOutcome::export_all(&cfg)?;
    arbor_protocol::views::worktrees::SessionActivity::export_all(&cfg)?;
    arbor_protocol::views::worktrees::WorktreeSetup::export_all(&cfg)?;
    arbor_protocol::views::worktrees::WorktreeFork::export_all(&cfg)?;
    arbor_app::SessionView::export_all(&cfg)?;
    arbor_app::BranchPage::export_all(&cfg)?;
    arbor_app::SessionListItem::export_all(&cfg)?;
    arbor_app::SessionTreeView::export_all(&cfg)?;
    arbor_app::SessionTreeDelta::export_all(&cfg)?;
    arbor_app::NodeVisit::export_all(&cfg)?;
    arbor_app::BranchComparison::export_all(&cfg)?;
    arbor_app::FilesRestored::export_all(&cfg)?;
    arbor_app::sessions::RestorePreview::export_all(&cfg)?;
    arbor_app::sessions::NodeDiff::export_all(&cfg)?;
    arbor_app::skills::ToolList::export_all(&cfg)?;
    arbor_app::skills::ToolReview::export_all(&cfg)?;
    arbor_app::views::tools::ToolRun::export_all(&cfg)?;
    arbor_app::ModelGroup::export_all(&cfg)?;
    arbor_app::RecentProject::export_all(&cfg)?;
    arbor_app::KeyStatusList::export_all(&cfg)?;
    arbor_app::KeyCheck::export_all(&cfg)?;
    arbor_app::Settings::export_all(&cfg)?;
    arbor_app::CustomEndpoint::export_all(&cfg)?;
    arbor_app::clone::CloneProgress::export_all(&cfg)?;
    arbor_app::views::clone::CloneForm::export_all(&cfg)?;
    arbor_app::views::branch::SearchHit::export_all(&cfg)?;
    arbor_protocol::ThinkingLevel::export_all(&cfg)?;
    arbor_protocol::ImageContent::export_all(&cfg)?;
    arbor_app::views::attachments::DocumentAttachment::export_all(&cfg)?;
    arbor_app::views::files::FileMatch::export_all(&cfg)?;
    arbor_app::views::files::FolderListing::export_all(&cfg)?;
    arbor_app::views::files::FilePreview::export_all(&cfg)?;
    arbor_app::views::OpenedProject::export_all(&cfg)?;
    arbor_app::views::mcp::McpServersView::export_all(&cfg)?;
    arbor_app::views::mcp::McpServerConfig::export_all(&cfg)?;
    arbor_app::views::mcp::McpServerReview::export_all(&cfg)?;
    arbor_app::views::mcp::McpToolsReview::export_all(&cfg)?;
    arbor_app::views::mcp::McpComposerItems::export_all(&cfg)?;
    arbor_app::views::elicitation::ElicitationContent::export_all(&cfg)?;
    arbor_app::views::AppInfo::export_all(&cfg)?;
    std::fs::write(dir.join("commands.ts"), commands_ts(&cfg, dir)?)?;
    Ok(())
}

/// `commands.ts`: the shell's command table (`src-tauri/src/command_table.rs`) as a TypeScript
/// interface, name → `{ args, response }`, which `ui/src/ipc/index.ts` calls through; every
/// type it names is imported from the generated files (one that was not generated is an error
/// here, not a silent `any` there).
fn commands_ts(cfg: &Config, dir: &Path) -> Result<String> {
    let table = arbor_desktop::command_table(cfg);
    ensure!(
        table.len() > 40,
        "only {} commands in the table",
        table.len()
    );
    let mut imports = std::collections::BTreeSet::new();
    let mut rows = String::new();
    for command in &table {
        let args = if command.args.is_empty() {
            "Record<never, never>".to_owned()
        } else {
            let fields: Vec<String> = command
                .args
                .iter()
                .map(|(name, ty)| format!("{name}: {ty}"))
                .collect();
            format!("{{ {} }}", fields.join("; "))
        };
        // `()` answers nothing: `void` in TypeScript.
        let response = if command.response == "null" {
            "void"
        } else {
            &command.response
        };
        rows.push_str(&format!(
            "  {}: {{ args: {args}; response: {response} }};\n",
            command.name
        ));
        let named = command
            .args
            .iter()
            .map(|(_, ty)| ty.as_str())
            .chain([response]);
        for ty in named {
            for word in ty.split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
                let is_type = word.starts_with(|c: char| c.is_ascii_uppercase());
                if !is_type || matches!(word, "Array" | "Record" | "Channel") {
                    continue;
                }
                ensure!(
                    dir.join(format!("{word}.ts")).exists(),
                    "command {} names {word}, which is not generated: export it in generate()",
                    command.name
                );
                imports.insert(word.to_owned());
            }
        }
    }
    let mut out = String::from(
        "// Generated from src-tauri/src/command_table.rs by tests/wire_types.rs: do not edit.\n\
         import type { Channel } from '@tauri-apps/api/core';\n",
    );
    for name in &imports {
        out.push_str(&format!("import type {{ {name} }} from './{name}';\n"));
    }
    out.push_str("\n/** Every command the shell registers: its arguments and its answer. */\n");
    out.push_str("export interface Commands {\n");
    out.push_str(&rows);
    out.push_str("}\n\n/** The same names at run time (a UI test checks each is called). */\n");
    out.push_str("export const COMMAND_NAMES = [\n");
    for command in &table {
        out.push_str(&format!("  '{}',\n", command.name));
    }
    out.push_str("] as const satisfies readonly (keyof Commands)[];\n");
    Ok(out)
}

/// Every file under `dir`, by its path relative to `dir`.
fn files(dir: &Path) -> Result<BTreeMap<PathBuf, String>> {
    let mut found = BTreeMap::new();
    if !dir.exists() {
        return Ok(found);
    }
    let mut stack = vec![dir.to_owned()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                found.insert(path.strip_prefix(dir)?.to_owned(), text);
            }
        }
    }
    Ok(found)
}

#[test]
fn the_generated_typescript_wire_types_are_up_to_date() -> Result<()> {
    let checked_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/ipc/generated");
    let fresh = tempfile::tempdir()?;
    generate(fresh.path())?;
    let wanted = files(fresh.path())?;
    ensure!(
        wanted.len() > 20,
        "only {} types were generated",
        wanted.len()
    );
    if std::env::var_os("ARBOR_UPDATE_WIRE_TYPES").is_some() {
        if checked_in.exists() {
            std::fs::remove_dir_all(&checked_in)?;
        }
        generate(&checked_in)?;
        return Ok(());
    }
    let present = files(&checked_in)?;
    let stale: Vec<String> = wanted
        .iter()
        .filter(|(path, text)| present.get(*path) != Some(text))
        .map(|(path, _)| path.display().to_string())
        .chain(
            present
                .keys()
                .filter(|path| !wanted.contains_key(*path))
                .map(|path| format!("{} (no longer generated)", path.display())),
        )
        .collect();
    ensure!(
        stale.is_empty(),
        "ui/src/ipc/generated is stale ({}): run ARBOR_UPDATE_WIRE_TYPES=1 cargo test -p \
         arbor-desktop --test wire_types",
        stale.join(", ")
    );
    Ok(())
}
