//! Compaction: keeping a long conversation within the model's context window (DESIGN §8).
//!
//! When the context passes the window minus a reserve ([`CompactionSettings`]), the older part
//! of the conversation is summarised by the model and replaced, for the model, by that summary;
//! about the last [`CompactionSettings::keep_recent_tokens`] tokens of messages stay verbatim.
//! In the store this is a compaction node (summary, first kept node, tokens before) appended at
//! the leaf — nothing is deleted, and the store's context rule makes the summary stand in for
//! what it covers.
//!
//! - [`tokens`]: how big the context is — the provider's usage of the last answer that still
//!   describes the conversation, plus characters / 4 for what came after.
//! - [`cut`]: where to cut — never between a tool call and its result, never into the summary
//!   the conversation starts with.
//! - [`summary`]: the summary request — the conversation as text (tool results cut to 2,000
//!   characters), a structured format (goal, constraints, progress, decisions, next steps,
//!   commands), the previous summary merged in, optional focus; the lists of files read and
//!   modified are computed from the tool calls and appended exactly, merged across compactions.
//! - [`compactor`]: [`Compactor`], which does it and reports `compaction_start` /
//!   `compaction_end`; [`branch`]: summaries of a branch the user leaves.
//!
//! When it runs: [`crate::SessionRequestHook`] checks before every request of a run (so also
//! between the turns of a long tool loop) and compacts once after a context-overflow error
//! before trying again; front ends call [`Compactor::compact_agent`] for `/compact [focus]`.

pub mod branch;
pub mod compactor;
pub mod cut;
pub mod summary;
pub mod tokens;

pub use branch::{navigate_with_summary, summarize_left_branch};
pub use compactor::{Compaction, Compactor, SharedCompactor};
pub use summary::FileLists;

/// When to compact and how much to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Compact automatically when the context passes the threshold.
    pub enabled: bool,
    /// Room left for the next answer: compaction starts above `window − reserve`. Capped at
    /// half the window, so small local models still get half their window for conversation.
    pub reserve_tokens: u64,
    /// About how many tokens of the newest messages stay verbatim (at most half the threshold,
    /// so a compaction always makes room).
    pub keep_recent_tokens: u64,
    /// The settings' "compact at": compaction starts above this share of the window (50 to 95
    /// %) instead of at `window − reserve`.
    pub threshold_percent: Option<u8>,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000,
            threshold_percent: None,
        }
    }
}

impl CompactionSettings {
    /// The context size above which compaction starts; `None` when the window is unknown (0).
    pub fn threshold(&self, context_window: u32) -> Option<u64> {
        let window = u64::from(context_window);
        (window > 0).then(|| match self.threshold_percent {
            Some(percent) => window * u64::from(percent.clamp(50, 95)) / 100,
            None => window - self.reserve_tokens.min(window / 2),
        })
    }

    /// How many tokens of recent messages to keep for a model with this window.
    pub fn keep_tokens(&self, context_window: u32) -> u64 {
        match self.threshold(context_window) {
            Some(threshold) => self.keep_recent_tokens.min(threshold / 2),
            None => self.keep_recent_tokens,
        }
    }
}

/// Why a compaction ran (part of the wire vocabulary, so defined in the protocol crate).
pub use arbor_protocol::CompactionReason;

/// Why a compaction (or a branch summary) did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    #[error(
        "nothing to compact: the conversation ({tokens} tokens) has no older part to summarise"
    )]
    NothingToCompact { tokens: u64 },
    #[error("the model could not write the summary: {0}")]
    Summary(LlmError),
    #[error("the compaction was aborted")]
    Aborted,
    #[error("the agent is running: wait for it to finish or abort it first")]
    Busy,
    #[error("no stored session: branch summaries need a stored session")]
    NoSession,
    #[error(transparent)]
    Sessions(#[from] crate::SessionsError),
}

use arbor_llm::LlmError;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_leave_the_reserve_and_keep_at_most_half() {
        let settings = CompactionSettings::default();
        assert_eq!(settings.threshold(200_000), Some(183_616));
        assert_eq!(settings.keep_tokens(200_000), 20_000);
        // A small local model: the reserve is capped at half the window.
        assert_eq!(settings.threshold(8_192), Some(4_096));
        assert_eq!(settings.keep_tokens(8_192), 2_048);
        assert_eq!(settings.threshold(0), None);
        // The settings' "compact at 70 %".
        let at_70 = CompactionSettings {
            threshold_percent: Some(70),
            ..CompactionSettings::default()
        };
        assert_eq!(at_70.threshold(200_000), Some(140_000));
        assert_eq!(at_70.keep_tokens(200_000), 20_000);
        assert_eq!(at_70.threshold(0), None);
    }
}
