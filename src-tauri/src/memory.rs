//! Giving the memory a burst of work freed back to the system.
//!
//! The app process lives as long as its windows, and its bursts (opening a 2,000-message session,
//! a run's stream, a tree's layout) free most of what they allocate. glibc's allocator keeps
//! freed memory in the arena that allocated it, one arena per thread that ever contended (up to
//! eight per core), and returns only the free top of the main heap. Measured with the
//! 2,000-message session open (`scripts/bench-desktop.sh`): the app process held 96 MB PSS, 92
//! after `malloc_trim`, 88 with at most two arenas as well.
//!
//! So: at most two arenas, set before any thread starts ([`limit_arenas`]), and a trim a moment
//! after each burst ([`release_freed_soon`]). On other systems and allocators both do nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long after a burst the trim waits: the burst's answer is still being serialized and sent
/// to the webview when the command returns, and bursts come in runs (a session opened, then its
/// tree and file list read).
const SETTLE: Duration = Duration::from_secs(2);

/// A trim is scheduled and has not started yet.
static SCHEDULED: AtomicBool = AtomicBool::new(false);

/// At most two malloc arenas. Call first in `main`, before any thread starts.
pub fn limit_arenas() {
    allocator::limit_arenas(2);
}

/// Returns freed memory to the system [`SETTLE`] from now, unless a trim is already scheduled.
pub fn release_freed_soon() {
    if SCHEDULED.swap(true, Ordering::SeqCst) {
        return;
    }
    tauri::async_runtime::spawn(async {
        tokio::time::sleep(SETTLE).await;
        // Cleared before the trim, so a burst during the trim schedules the next one.
        SCHEDULED.store(false, Ordering::SeqCst);
        // Walking the arenas takes a few milliseconds: not on a runtime worker.
        let _ = tokio::task::spawn_blocking(allocator::trim).await;
    });
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod allocator {
    //! The two glibc calls, the only `unsafe` in the app's own crate: both are plain C calls
    //! on integers, documented thread-safe, and touch no Rust memory.

    /// `M_ARENA_MAX` from glibc's `malloc.h`.
    const M_ARENA_MAX: std::os::raw::c_int = -8;

    extern "C" {
        fn mallopt(param: std::os::raw::c_int, value: std::os::raw::c_int) -> std::os::raw::c_int;
        fn malloc_trim(pad: usize) -> std::os::raw::c_int;
    }

    pub fn limit_arenas(count: std::os::raw::c_int) {
        // SAFETY: `mallopt` takes two integers and changes allocator tunables only.
        #[allow(unsafe_code)]
        unsafe {
            mallopt(M_ARENA_MAX, count);
        }
    }

    pub fn trim() {
        // SAFETY: `malloc_trim` takes the padding to keep and locks each arena itself.
        #[allow(unsafe_code)]
        unsafe {
            malloc_trim(0);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod allocator {
    //! Other allocators return memory by their own rules.

    pub fn limit_arenas(_count: i32) {}

    pub fn trim() {}
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::allocator;

    /// This process's resident memory in KiB.
    fn resident_kib() -> Option<u64> {
        let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
        rollup
            .lines()
            .find_map(|line| line.strip_prefix("Rss:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// Freed small allocations below a live one stay resident until the trim gives them back.
    #[test]
    fn a_trim_gives_freed_memory_back() {
        const CHUNKS: usize = 64 * 1024;
        let chunks: Vec<Vec<u8>> = (0..CHUNKS).map(|i| vec![(i % 251) as u8; 1024]).collect();
        // Allocated after the chunks: the heap's top stays in use, so freeing them returns
        // nothing by itself.
        let fence = vec![1u8; 1024];
        drop(chunks);
        let before = resident_kib().unwrap();
        allocator::trim();
        let after = resident_kib().unwrap();
        assert_eq!(fence.iter().map(|&b| u32::from(b)).sum::<u32>(), 1024);
        // 64 MiB were freed; at least half must leave (other tests run beside this one).
        assert!(
            before.saturating_sub(after) >= 32 * 1024,
            "resident before the trim {before} KiB, after {after} KiB"
        );
    }
}
