//! A clone as front ends see it: the form they send and the progress they are shown. Made by
//! `arbor-git` (the clone) and the front ends (the form).

use serde::{Deserialize, Serialize};

/// The phase of a clone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ClonePhase {
    Connecting,
    Receiving,
    Resolving,
    CheckingOut,
    Done,
}

/// One progress report.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct CloneProgress {
    pub phase: ClonePhase,
    pub received_objects: u64,
    pub total_objects: u64,
    pub indexed_deltas: u64,
    pub total_deltas: u64,
    pub received_bytes: u64,
    /// Bytes per second over the clone so far.
    pub bytes_per_second: u64,
    /// Files checked out, of `total_files`.
    pub checked_out_files: u64,
    pub total_files: u64,
}

/// The clone form's fields.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CloneForm {
    pub url: String,
    /// A folder to create; empty or absent: the workspaces folder.
    #[ts(optional = nullable)]
    pub destination: Option<String>,
    #[ts(optional = nullable)]
    pub depth: Option<u32>,
    #[ts(optional = nullable)]
    pub branch: Option<String>,
}
