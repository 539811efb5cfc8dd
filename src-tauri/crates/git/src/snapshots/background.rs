//! Snapshot work that runs beside a session's requests yields the processor to them.
//!
//! `arbor -p` walks the workspace for its first turn's snapshot as the process starts, opens
//! the shadow repository and records the turn's snapshot on threads of their own, while the
//! same process opens its database and sends its first request. On two cores the walk's
//! threads took the processor from that request (in this repository, a walk of 1,000 files).
//! Those threads run at a low priority instead: they still get every core the session leaves
//! idle while it waits for the provider, and whoever needs a snapshot waits for it as before.

/// How far below the usual priority (0) the snapshot threads run: the lowest, as the store's
/// background check does.
const NICENESS: i32 = 19;

/// Lowers the calling thread's priority (threads it starts from now on inherit it). Call it
/// first on a thread made for snapshot work, never on a thread that serves the session.
/// Linux sets a priority per thread; elsewhere the thread keeps the process's.
#[cfg(target_os = "linux")]
pub fn lower_this_threads_priority() {
    let thread = rustix::thread::gettid();
    // A refusal (a seccomp filter, say) only leaves the usual priority.
    let _ = rustix::process::setpriority_process(Some(thread), NICENESS);
}

#[cfg(not(target_os = "linux"))]
pub fn lower_this_threads_priority() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_lowered_runs_at_the_lowest_priority_and_the_others_do_not() {
        let before = rustix::process::getpriority_process(None).unwrap();
        let (lowered, child) = std::thread::spawn(|| {
            lower_this_threads_priority();
            let lowered =
                rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
            // A thread started from the lowered one inherits its priority (the walk's own).
            let child = std::thread::spawn(|| {
                rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap()
            })
            .join()
            .unwrap();
            (lowered, child)
        })
        .join()
        .unwrap();
        assert_eq!(lowered, NICENESS);
        assert_eq!(child, NICENESS);
        // This thread (the caller's) is untouched.
        let now = rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap();
        assert_eq!(now, before);
    }
}
