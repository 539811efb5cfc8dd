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
    arbor_store::ToolRun::export_all(&cfg)?;
    arbor_app::ModelGroup::export_all(&cfg)?;
    arbor_app::RecentProject::export_all(&cfg)?;
    arbor_app::KeyStatusList::export_all(&cfg)?;
    arbor_app::KeyCheck::export_all(&cfg)?;
    arbor_app::Settings::export_all(&cfg)?;
    arbor_app::CustomEndpoint::export_all(&cfg)?;
    arbor_app::clone::CloneProgress::export_all(&cfg)?;
    arbor_desktop::CloneForm::export_all(&cfg)?;
    arbor_store::SearchHit::export_all(&cfg)?;
    arbor_llm::ThinkingLevel::export_all(&cfg)?;
    arbor_llm::ImageContent::export_all(&cfg)?;
    arbor_desktop::OpenedProject::export_all(&cfg)?;
    arbor_desktop::AppInfo::export_all(&cfg)?;
    Ok(())
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
