//! [`CloneProgress`]: what a clone reports while it runs, throttled so a fast local clone does
//! not flood a terminal or a webview.

use std::time::{Duration, Instant};

pub use arbor_protocol::views::clone::{ClonePhase, CloneProgress};

/// Turns git's callbacks into [`CloneProgress`] reports: every phase change, and otherwise at
/// most one report per `interval`.
pub(crate) struct ProgressThrottle {
    started: Instant,
    last_sent: Option<Instant>,
    interval: Duration,
    pub current: CloneProgress,
}

impl ProgressThrottle {
    pub fn new(interval: Duration) -> Self {
        Self {
            started: Instant::now(),
            last_sent: None,
            interval,
            current: CloneProgress {
                phase: ClonePhase::Connecting,
                received_objects: 0,
                total_objects: 0,
                indexed_deltas: 0,
                total_deltas: 0,
                received_bytes: 0,
                bytes_per_second: 0,
                checked_out_files: 0,
                total_files: 0,
            },
        }
    }

    /// Records `next`; returns it when it should be reported now.
    pub fn update(&mut self, mut next: CloneProgress) -> Option<CloneProgress> {
        let elapsed = self.started.elapsed().as_secs_f64();
        if elapsed > 0.0 {
            next.bytes_per_second = (next.received_bytes as f64 / elapsed) as u64;
        }
        let phase_changed = next.phase != self.current.phase;
        self.current = next;
        let due = self
            .last_sent
            .is_none_or(|sent| sent.elapsed() >= self.interval);
        if phase_changed || due {
            self.last_sent = Some(Instant::now());
            Some(self.current.clone())
        } else {
            None
        }
    }

    /// The phase git's transfer counters imply.
    pub fn transfer_phase(stats: &git2::Progress<'_>) -> ClonePhase {
        let total = stats.total_objects() as u64;
        if total == 0 {
            ClonePhase::Connecting
        } else if (stats.received_objects() as u64) < total {
            ClonePhase::Receiving
        } else {
            ClonePhase::Resolving
        }
    }
}
