//! The model's tools (schema 5): approvals — one row per version of a tool folder, pinned to
//! its content hash — and the record of every run.

use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::ids::{new_id, now_ms, resolve, IdTable};

/// What became of a version of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    /// Waiting for the user.
    Pending,
    /// The user approved it: offered while the folder's hash is this row's.
    Approved,
    Rejected,
    /// Approved, then taken back by the user.
    Revoked,
    /// Pending or approved, then replaced by a newer version of the same tool.
    Superseded,
}

impl ApprovalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "pending",
            ApprovalStatus::Approved => "approved",
            ApprovalStatus::Rejected => "rejected",
            ApprovalStatus::Revoked => "revoked",
            ApprovalStatus::Superseded => "superseded",
        }
    }

    fn parse(text: &str) -> Result<Self> {
        Ok(match text {
            "pending" => ApprovalStatus::Pending,
            "approved" => ApprovalStatus::Approved,
            "rejected" => ApprovalStatus::Rejected,
            "revoked" => ApprovalStatus::Revoked,
            "superseded" => ApprovalStatus::Superseded,
            other => {
                return Err(StoreError::InvalidInput(format!(
                    "unknown approval status {other:?}"
                )))
            }
        })
    }
}

/// One version of a tool and its approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolApproval {
    pub id: String,
    pub project_id: String,
    pub name: String,
    /// `project` or `user` (the caller's words).
    pub scope: String,
    pub hash: String,
    /// The folder's files as JSON (path → text), as the caller wrote them.
    pub files: String,
    /// Why it was proposed (the model's reason, or how it was found).
    pub reason: String,
    pub session_id: Option<String>,
    pub status: ApprovalStatus,
    /// A rejection's reason.
    pub decision_reason: Option<String>,
    pub created_at: i64,
    pub decided_at: Option<i64>,
}

/// A version to put up for approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToolApproval {
    pub project_id: String,
    pub name: String,
    pub scope: String,
    pub hash: String,
    pub files: String,
    pub reason: String,
    pub session_id: Option<String>,
}

/// One run of a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRun {
    pub id: String,
    pub name: String,
    /// The hash of the version that ran.
    pub hash: String,
    /// The arguments as JSON text.
    pub arguments: String,
    pub result: String,
    pub is_error: bool,
    pub duration_ms: u64,
    pub created_at: i64,
}

/// A run to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToolRun {
    pub project_id: String,
    pub name: String,
    pub hash: String,
    pub arguments: String,
    pub result: String,
    pub is_error: bool,
    pub duration_ms: u64,
}

const APPROVAL_COLS: &str =
    "id, project_id, name, scope, hash, files, reason, session_id, status, \
     decision_reason, created_at, decided_at";

fn approval_from_row(r: &Row<'_>) -> rusqlite::Result<ToolApproval> {
    let status: String = r.get(8)?;
    let status = ApprovalStatus::parse(&status).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(8, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(ToolApproval {
        id: r.get(0)?,
        project_id: r.get(1)?,
        name: r.get(2)?,
        scope: r.get(3)?,
        hash: r.get(4)?,
        files: r.get(5)?,
        reason: r.get(6)?,
        session_id: r.get(7)?,
        status,
        decision_reason: r.get(9)?,
        created_at: r.get(10)?,
        decided_at: r.get(11)?,
    })
}

fn load_approval(c: &rusqlite::Connection, id: &str) -> Result<ToolApproval> {
    let sql = format!("SELECT {APPROVAL_COLS} FROM tool_approvals WHERE id = ?1");
    Ok(c.prepare_cached(&sql)?.query_row([id], approval_from_row)?)
}

impl Store {
    /// Puts a version of a tool up for approval (pending). An earlier pending version of the
    /// same tool is superseded; so is a pending one with the same hash answered by this one.
    pub fn add_tool_approval(&self, new: NewToolApproval) -> Result<ToolApproval> {
        let id = new_id();
        let now = now_ms();
        self.write(|c| {
            c.execute(
                "UPDATE tool_approvals SET status = 'superseded', decided_at = ?3
                 WHERE project_id = ?1 AND name = ?2 AND status = 'pending'",
                params![new.project_id, new.name, now],
            )?;
            c.execute(
                "INSERT INTO tool_approvals (id, project_id, name, scope, hash, files, reason,
                                             session_id, status, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9)",
                params![
                    id,
                    new.project_id,
                    new.name,
                    new.scope,
                    new.hash,
                    new.files,
                    new.reason,
                    new.session_id,
                    now
                ],
            )?;
            load_approval(c, &id)
        })
    }

    /// An approval by id or unique prefix.
    pub fn tool_approval(&self, id_or_prefix: &str) -> Result<ToolApproval> {
        self.read(|c| {
            let id = resolve(c, IdTable::ToolApprovals, None, id_or_prefix)?;
            load_approval(c, &id)
        })
    }

    /// A project's approvals (of one tool with `name`), newest first.
    pub fn tool_approvals(
        &self,
        project_id: &str,
        name: Option<&str>,
    ) -> Result<Vec<ToolApproval>> {
        self.read(|c| {
            let sql = format!(
                "SELECT {APPROVAL_COLS} FROM tool_approvals
                 WHERE project_id = ?1 AND (?2 IS NULL OR name = ?2)
                 ORDER BY created_at DESC, rowid DESC"
            );
            let rows = c
                .prepare_cached(&sql)?
                .query_map(params![project_id, name], approval_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    /// The approved version of a tool, if any.
    pub fn approved_tool(&self, project_id: &str, name: &str) -> Result<Option<ToolApproval>> {
        self.read(|c| {
            let sql = format!(
                "SELECT {APPROVAL_COLS} FROM tool_approvals
                 WHERE project_id = ?1 AND name = ?2 AND status = 'approved'
                 ORDER BY created_at DESC, rowid DESC LIMIT 1"
            );
            Ok(c.prepare_cached(&sql)?
                .query_row(params![project_id, name], approval_from_row)
                .optional()?)
        })
    }

    /// Answers a pending approval: `Approved` (an earlier approved version is superseded) or
    /// `Rejected` with the user's reason. Anything but a pending one is refused.
    pub fn decide_tool_approval(
        &self,
        id_or_prefix: &str,
        status: ApprovalStatus,
        reason: Option<&str>,
    ) -> Result<ToolApproval> {
        if !matches!(status, ApprovalStatus::Approved | ApprovalStatus::Rejected) {
            return Err(StoreError::InvalidInput(
                "an approval is answered with approved or rejected".into(),
            ));
        }
        let now = now_ms();
        self.write(|c| {
            let id = resolve(c, IdTable::ToolApprovals, None, id_or_prefix)?;
            let approval = load_approval(c, &id)?;
            if approval.status != ApprovalStatus::Pending {
                return Err(StoreError::InvalidInput(format!(
                    "tool approval {id} is {}, not pending",
                    approval.status.as_str()
                )));
            }
            if status == ApprovalStatus::Approved {
                c.execute(
                    "UPDATE tool_approvals SET status = 'superseded', decided_at = ?3
                     WHERE project_id = ?1 AND name = ?2 AND status = 'approved'",
                    params![approval.project_id, approval.name, now],
                )?;
            }
            c.execute(
                "UPDATE tool_approvals SET status = ?2, decision_reason = ?3, decided_at = ?4
                 WHERE id = ?1",
                params![id, status.as_str(), reason, now],
            )?;
            load_approval(c, &id)
        })
    }

    /// Takes back the approval of a tool (its approved version becomes revoked); answers how
    /// many rows changed (0: it was not approved).
    pub fn revoke_tool(&self, project_id: &str, name: &str) -> Result<usize> {
        let now = now_ms();
        self.write(|c| {
            Ok(c.execute(
                "UPDATE tool_approvals SET status = 'revoked', decided_at = ?3
                 WHERE project_id = ?1 AND name = ?2 AND status IN ('approved', 'pending')",
                params![project_id, name, now],
            )?)
        })
    }

    /// Records a run of a tool.
    pub fn add_tool_run(&self, run: NewToolRun) -> Result<ToolRun> {
        let id = new_id();
        let now = now_ms();
        let duration = i64::try_from(run.duration_ms).unwrap_or(i64::MAX);
        self.write(|c| {
            c.execute(
                "INSERT INTO tool_runs (id, project_id, name, hash, arguments, result, is_error,
                                        duration_ms, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    id,
                    run.project_id,
                    run.name,
                    run.hash,
                    run.arguments,
                    run.result,
                    run.is_error,
                    duration,
                    now
                ],
            )?;
            Ok(())
        })?;
        Ok(ToolRun {
            id,
            name: run.name,
            hash: run.hash,
            arguments: run.arguments,
            result: run.result,
            is_error: run.is_error,
            duration_ms: run.duration_ms,
            created_at: now,
        })
    }

    /// A project's tool runs (of `name`), newest first, at most `limit`.
    pub fn tool_runs(
        &self,
        project_id: &str,
        name: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ToolRun>> {
        self.read(|c| {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = c
                .prepare_cached(
                    "SELECT id, name, hash, arguments, result, is_error, duration_ms, created_at
                     FROM tool_runs WHERE project_id = ?1 AND (?2 IS NULL OR name = ?2)
                     ORDER BY created_at DESC, rowid DESC LIMIT ?3",
                )?
                .query_map(params![project_id, name, limit], |r| {
                    Ok(ToolRun {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        hash: r.get(2)?,
                        arguments: r.get(3)?,
                        result: r.get(4)?,
                        is_error: r.get(5)?,
                        duration_ms: r.get::<_, i64>(6)?.max(0) as u64,
                        created_at: r.get(7)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }
}
