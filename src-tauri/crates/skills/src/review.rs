//! Proposals and what a person reviews before deciding: the files, the permissions, the diff
//! against the approved version; and how a version's files are kept (JSON in the store) and
//! written (a staging folder swapped in).

use std::collections::BTreeMap;
use std::path::Path;

pub use arbor_protocol::views::tools::{ToolFileChange, ToolReview};
use arbor_store::{NewToolApproval, StoreError, ToolApproval};

use super::folder::{check_files, content_hash, ToolFiles, ToolScope};
use super::manifest::{ManifestProblem, SKILL_FILE};
use super::toolbox::{Toolbox, ToolboxError};
use arbor_protocol::CodingEvent;

/// The files that differ between the approved version and the proposed one.
fn file_changes(previous: &ToolFiles, files: &ToolFiles) -> Vec<ToolFileChange> {
    let mut paths: Vec<&String> = previous.keys().chain(files.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|path| {
            let (old, new) = (previous.get(path), files.get(path));
            let status = match (old, new) {
                (None, Some(_)) => "added",
                (Some(_), None) => "deleted",
                (Some(a), Some(b)) if a != b => "modified",
                _ => return None,
            };
            let patch = similar::TextDiff::from_lines(
                old.map_or("", String::as_str),
                new.map_or("", String::as_str),
            )
            .unified_diff()
            .header(&format!("a/{path}"), &format!("b/{path}"))
            .to_string();
            Some(ToolFileChange {
                path: path.clone(),
                status: status.into(),
                patch,
            })
        })
        .collect()
}

impl Toolbox {
    /// Stores a proposal from the model (`create_tool`) as pending and announces it. Refused,
    /// with every problem, when the files are not a valid tool.
    pub fn propose(
        &self,
        name: &str,
        files: ToolFiles,
        reason: &str,
        session_id: Option<String>,
    ) -> Result<ToolReview, ToolboxError> {
        if let Some(message) = super::manifest::name_problem(name) {
            return Err(ToolboxError::Invalid {
                problems: vec![ManifestProblem {
                    file: "create_tool".into(),
                    line: 1,
                    field: "name".into(),
                    message,
                }],
            });
        }
        let builtins: Vec<String> = self
            .builtins
            .lock()
            .map(|b| b.iter().map(|(n, _)| n.clone()).collect())
            .unwrap_or_default();
        if builtins.iter().any(|b| b == name) {
            return Err(ToolboxError::Invalid {
                problems: vec![ManifestProblem {
                    file: "create_tool".into(),
                    line: 1,
                    field: "name".into(),
                    message: format!("`{name}` is a built-in tool's name: choose another"),
                }],
            });
        }
        check_files(name, name, &files).map_err(|problems| ToolboxError::Invalid { problems })?;
        let approval = self.with_store(|s| {
            s.add_tool_approval(NewToolApproval {
                project_id: self.project_id.clone(),
                name: name.to_owned(),
                scope: ToolScope::Project.as_str().to_owned(),
                hash: content_hash(&files),
                files: encode_files(&files),
                reason: reason.to_owned(),
                session_id,
            })
        })?;
        let review = self.review(&approval.id)?;
        if self.is_answerable() {
            // Before the announcement: an answer may come back before `create_tool` waits.
            self.expect_wait(&review.approval_id);
        }
        self.emit(CodingEvent::ApprovalRequested {
            approval_id: review.approval_id.clone(),
            kind: review.kind.clone(),
            name: review.name.clone(),
            skill_md: review.skill_md.clone(),
            files: review.files.clone(),
            allowed_tools: review.allowed_tools.clone(),
            reason: review.reason.clone(),
            previous: review.previous.clone(),
        });
        Ok(review)
    }

    /// Everything to show before deciding on `approval_id`.
    pub fn review(&self, approval_id: &str) -> Result<ToolReview, ToolboxError> {
        let (approval, approved) = self.with_store(|s| {
            let approval = s.tool_approval(approval_id)?;
            let approved = s.approved_tool(&approval.project_id, &approval.name)?;
            Ok::<_, StoreError>((approval, approved))
        })?;
        let files = decode_files(&approval)?;
        let previous = match approved.filter(|a| a.id != approval.id) {
            Some(approved) => Some(decode_files(&approved)?),
            None => None,
        };
        let manifest = check_files(&approval.name, &approval.name, &files).ok();
        let helpers: Vec<arbor_js::Helper> = manifest
            .map(|m| m.allowed_tools.into_iter().collect())
            .unwrap_or_default();
        Ok(ToolReview {
            approval_id: approval.id.clone(),
            kind: if previous.is_some() {
                "edit_tool"
            } else {
                "create_tool"
            }
            .into(),
            name: approval.name.clone(),
            reason: approval.reason.clone(),
            skill_md: files.get(SKILL_FILE).cloned().unwrap_or_default(),
            allowed_tools: helpers.iter().map(|h| h.name().to_owned()).collect(),
            permissions: helpers.iter().map(|h| h.describe().to_owned()).collect(),
            changes: previous
                .as_ref()
                .map(|previous| file_changes(previous, &files))
                .unwrap_or_default(),
            files,
            previous,
            status: approval.status.as_str().to_owned(),
        })
    }
}

pub(crate) fn encode_files(files: &ToolFiles) -> String {
    serde_json::to_string(files).unwrap_or_else(|_| "{}".into())
}

pub(crate) fn decode_files(approval: &ToolApproval) -> Result<ToolFiles, ToolboxError> {
    serde_json::from_str::<BTreeMap<String, String>>(&approval.files)
        .map_err(|_| ToolboxError::Corrupt(approval.id.clone()))
}

/// Replaces the folder `dir` with exactly `files`: written beside it first, then swapped in, so
/// a failure leaves the old folder (or none), never half a tool.
pub(crate) fn write_folder(dir: &Path, files: &ToolFiles) -> Result<(), ToolboxError> {
    let error = |path: &Path| {
        let path = path.to_owned();
        move |source| ToolboxError::Write { path, source }
    };
    let parent = dir.parent().unwrap_or(dir);
    std::fs::create_dir_all(parent).map_err(error(parent))?;
    // Never through a link: `.tools` (or the tool's folder) pointing elsewhere is refused.
    let linked =
        |path: &Path| std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if linked(parent) || linked(dir) {
        return Err(ToolboxError::Write {
            path: dir.to_owned(),
            source: std::io::Error::other(
                "a link: tools are written only into a real folder of the project",
            ),
        });
    }
    let staging = tempfile::Builder::new()
        .prefix(".arbor-tool-")
        .tempdir_in(parent)
        .map_err(error(parent))?;
    for (path, text) in files {
        let target = staging.path().join(path);
        if let Some(folder) = target.parent() {
            std::fs::create_dir_all(folder).map_err(error(folder))?;
        }
        std::fs::write(&target, text).map_err(error(&target))?;
    }
    let staged = staging.keep();
    if dir.exists() {
        let old = parent.join(format!(
            ".arbor-tool-old-{}",
            dir.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(dir, &old).map_err(error(dir))?;
        std::fs::rename(&staged, dir).map_err(error(dir))?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(&staged, dir).map_err(error(dir))?;
    }
    Ok(())
}
