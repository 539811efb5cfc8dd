//! The tools list: Arbor's own tools, the folders found (putting a folder without an approval of
//! its exact files up for review), and proposals not written yet.

pub use arbor_protocol::views::tools::{ToolEntry, ToolList, ToolStatus};
use arbor_store::{ApprovalStatus, NewToolApproval, StoreError};

use super::folder::{check_files, discover, ToolFolder, ToolScope};
use super::manifest::{ManifestProblem, SKILL_FILE};
use super::review::{decode_files, encode_files};
use super::toolbox::{Toolbox, ToolboxError};

/// Whether a list names the proposals whose files are not written yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Proposals {
    Listed,
    /// Left out: what is offered to the model (never a proposal), so a project without tool
    /// folders is listed without reading the store.
    Left,
}

impl Toolbox {
    /// Every tool: built-ins, then the folders found (project first), then proposals not on
    /// disk yet. A folder without an approval of its exact files is put up for review (so it
    /// has an approval to answer).
    pub fn list(&self) -> Result<ToolList, ToolboxError> {
        Ok(self.list_with_folders(Proposals::Listed)?.0)
    }

    /// [`Toolbox::list`] and the folders it was made from (one read of the disk for both);
    /// with [`Proposals::Left`], without the proposals not on disk yet.
    pub(super) fn list_with_folders(
        &self,
        proposals: Proposals,
    ) -> Result<(ToolList, Vec<ToolFolder>), ToolboxError> {
        let (folders, shadowed) = discover(&self.workspace, &self.data_dir);
        let mut tools: Vec<ToolEntry> = self
            .builtins
            .lock()
            .map(|b| b.clone())
            .unwrap_or_default()
            .into_iter()
            .map(|(name, description)| ToolEntry {
                name,
                status: ToolStatus::Builtin,
                scope: None,
                description,
                executable: true,
                permissions: Vec::new(),
                files: Vec::new(),
                approval_id: None,
                changed_since_approval: false,
                problems: Vec::new(),
                shadows_user_tool: false,
            })
            .collect();
        let builtin_names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        let mut on_disk = Vec::new();
        for folder in &folders {
            on_disk.push(folder.name.clone());
            let mut entry = self.entry_of(folder, &builtin_names)?;
            entry.shadows_user_tool = shadowed.contains(&folder.name);
            tools.push(entry);
        }
        if proposals == Proposals::Left {
            return Ok((ToolList { tools }, folders));
        }
        // Proposals whose files are not written yet.
        let approvals = self.with_store(|s| s.tool_approvals(&self.project_id, None))?;
        let mut listed = on_disk;
        for approval in approvals {
            if approval.status != ApprovalStatus::Pending || listed.contains(&approval.name) {
                continue;
            }
            listed.push(approval.name.clone());
            let files = decode_files(&approval)?;
            let manifest = check_files(&approval.name, &approval.name, &files).ok();
            tools.push(ToolEntry {
                name: approval.name.clone(),
                status: ToolStatus::Pending,
                scope: ToolScope::parse(&approval.scope),
                description: manifest
                    .as_ref()
                    .map(|m| m.description.clone())
                    .unwrap_or_default(),
                executable: manifest.as_ref().is_some_and(|m| m.is_executable()),
                permissions: manifest
                    .as_ref()
                    .map(|m| {
                        m.allowed_tools
                            .iter()
                            .map(|h| h.describe().to_owned())
                            .collect()
                    })
                    .unwrap_or_default(),
                files: files.keys().cloned().collect(),
                approval_id: Some(approval.id.clone()),
                changed_since_approval: false,
                problems: Vec::new(),
                shadows_user_tool: false,
            });
        }
        Ok((ToolList { tools }, folders))
    }

    /// A folder's line, putting it up for review when its files have no approval yet.
    fn entry_of(
        &self,
        folder: &ToolFolder,
        builtins: &[String],
    ) -> Result<ToolEntry, ToolboxError> {
        let mut entry = ToolEntry {
            name: folder.name.clone(),
            status: ToolStatus::Invalid,
            scope: Some(folder.scope),
            description: String::new(),
            executable: false,
            permissions: Vec::new(),
            files: folder.files.keys().cloned().collect(),
            approval_id: None,
            changed_since_approval: false,
            problems: Vec::new(),
            shadows_user_tool: false,
        };
        let manifest = match &folder.manifest {
            Ok(manifest) if builtins.contains(&manifest.name) => {
                entry.problems.push(ManifestProblem {
                    file: format!("{}/{SKILL_FILE}", folder.name),
                    line: 1,
                    field: "name".into(),
                    message: format!(
                        "`{}` is a built-in tool's name: choose another",
                        manifest.name
                    ),
                });
                return Ok(entry);
            }
            Ok(manifest) => manifest,
            Err(problems) => {
                entry.problems = problems.clone();
                return Ok(entry);
            }
        };
        entry.description = manifest.description.clone();
        entry.executable = manifest.is_executable();
        entry.permissions = manifest
            .allowed_tools
            .iter()
            .map(|h| h.describe().to_owned())
            .collect();
        let (approved, approvals) = self.with_store(|s| {
            Ok::<_, StoreError>((
                s.approved_tool(&self.project_id, &folder.name)?,
                s.tool_approvals(&self.project_id, Some(&folder.name))?,
            ))
        })?;
        if let Some(approved) = &approved {
            if approved.hash == folder.hash {
                entry.status = ToolStatus::Approved;
                entry.approval_id = Some(approved.id.clone());
                return Ok(entry);
            }
        }
        entry.status = ToolStatus::Pending;
        entry.changed_since_approval = approved.is_some();
        let pending = approvals
            .iter()
            .find(|a| a.status == ApprovalStatus::Pending && a.hash == folder.hash);
        let pending = match pending {
            Some(pending) => pending.clone(),
            None => {
                let reason = if approved.is_some() {
                    "its files changed after it was approved".to_owned()
                } else {
                    format!("found in {} (never approved here)", shown_dir(folder.scope))
                };
                self.with_store(|s| {
                    s.add_tool_approval(NewToolApproval {
                        project_id: self.project_id.clone(),
                        name: folder.name.clone(),
                        scope: folder.scope.as_str().to_owned(),
                        hash: folder.hash.clone(),
                        files: encode_files(&folder.files),
                        reason,
                        session_id: None,
                    })
                })?
            }
        };
        entry.approval_id = Some(pending.id);
        Ok(entry)
    }
}

fn shown_dir(scope: ToolScope) -> &'static str {
    match scope {
        ToolScope::Project => "the project's .tools/",
        ToolScope::User => "your tools folder",
    }
}
