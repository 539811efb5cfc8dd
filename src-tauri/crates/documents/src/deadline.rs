//! A parser on a thread of its own: a time limit, and a panic turned into an error.
//!
//! The PDF and spreadsheet parsers are large third-party code fed hostile files; a malformed one
//! can make them panic or loop. The caller waits at most the time limit. A parser still running
//! then cannot be stopped (Rust has no thread cancellation); it is left to end on its own and its
//! result is dropped, which is why the input sizes are capped before it starts.

use std::sync::mpsc;
use std::time::Duration;

use crate::{DocumentError, DocumentKind};

pub(crate) fn run<T: Send + 'static>(
    name: &str,
    kind: DocumentKind,
    time_limit: Duration,
    work: impl FnOnce() -> Result<T, DocumentError> + Send + 'static,
) -> Result<T, DocumentError> {
    let (sender, receiver) = mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name("arbor-document".to_owned())
        .spawn(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            // The receiver is gone when the caller stopped waiting: nothing to tell.
            let _ = sender.send(outcome);
        });
    if let Err(error) = spawned {
        return Err(DocumentError::Invalid {
            name: name.to_owned(),
            kind: kind.label(),
            reason: format!("no thread to read it on ({error})"),
        });
    }
    match receiver.recv_timeout(time_limit) {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => Err(DocumentError::Invalid {
            name: name.to_owned(),
            kind: kind.label(),
            reason: format!("its reader failed ({})", panic_text(panic.as_ref())),
        }),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(DocumentError::TimedOut {
            name: name.to_owned(),
            seconds: time_limit.as_secs().max(1),
        }),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(DocumentError::Invalid {
            name: name.to_owned(),
            kind: kind.label(),
            reason: "its reader stopped without an answer".to_owned(),
        }),
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned());
    text.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_an_error_and_a_loop_is_stopped_waiting_for() {
        let panicked = run(
            "a.pdf",
            DocumentKind::Pdf,
            Duration::from_secs(5),
            || -> Result<(), _> { panic!("bad xref") },
        );
        let message = panicked.unwrap_err().to_string();
        assert!(message.contains("bad xref"), "{message}");

        let slow = run(
            "b.pdf",
            DocumentKind::Pdf,
            Duration::from_millis(50),
            || {
                std::thread::sleep(Duration::from_secs(2));
                Ok(())
            },
        );
        assert!(matches!(slow, Err(DocumentError::TimedOut { .. })));
    }
}
