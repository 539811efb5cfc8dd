//! `arbor clone`: the session API's clone with a progress bar on a terminal (indicatif), plain
//! phase lines otherwise, or JSON lines with `--json`. Ctrl+C cancels: nothing is left behind
//! and the exit status is 130.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arbor_app::clone::{CloneError, ClonePhase, CloneProgress, CloneRequest};
use arbor_app::{AppError, ArborApp};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

pub fn run(data_dir: &Path, request: CloneRequest, json: bool) -> anyhow::Result<ExitCode> {
    let app = Arc::new(ArborApp::open(Some(data_dir))?);
    let destination = app.clone_destination(&request)?;
    let cancel = Arc::new(AtomicBool::new(false));
    let (sender, receiver) = std::sync::mpsc::channel::<CloneProgress>();
    // One worker thread runs the Ctrl+C listener while this thread draws the progress.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let work = {
        let (app, cancel) = (app.clone(), cancel.clone());
        std::thread::spawn(move || {
            app.clone_repository(&request, &cancel, &mut |progress| {
                let _ = sender.send(progress.clone());
            })
        })
    };
    // Ctrl+C sets the flag; git stops at its next callback and the clone cleans up.
    {
        let cancel = cancel.clone();
        runtime.spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.store(true, Ordering::Relaxed);
            }
        });
    }
    let mut view = View::new(json, &destination);
    // The channel closes when the clone returns.
    while let Ok(progress) = receiver.recv() {
        view.show(&progress);
    }
    let result = work
        .join()
        .map_err(|_| anyhow::anyhow!("the clone thread panicked"))?;
    view.finish();
    match result {
        Ok(project) => {
            if json {
                println!("{}", json!({"type": "cloned", "path": project.path}));
            } else {
                println!("{}", project.path);
                eprintln!(
                    "arbor: cloned into {} (work on it with `arbor -C {}`)",
                    project.path, project.path
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(AppError::Clone(CloneError::Cancelled)) => {
            if json {
                println!(
                    "{}",
                    json!({"type": "error", "code": "cancelled", "message": "the clone was cancelled; nothing was left behind"})
                );
            } else {
                eprintln!("arbor: the clone was cancelled; nothing was left behind");
            }
            Ok(ExitCode::from(130))
        }
        Err(error) => {
            if json {
                println!(
                    "{}",
                    json!({"type": "error", "code": error.code(), "message": error.to_string()})
                );
                Ok(ExitCode::from(1))
            } else {
                Err(error.into())
            }
        }
    }
}

/// How progress is shown: a bar on a terminal, a line per phase otherwise, or JSON lines.
struct View {
    json: bool,
    bar: Option<ProgressBar>,
    last_phase: Option<ClonePhase>,
}

impl View {
    fn new(json: bool, destination: &Path) -> Self {
        let bar = (!json && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        });
        if !json {
            eprintln!("arbor: cloning into {}", destination.display());
        }
        Self {
            json,
            bar,
            last_phase: None,
        }
    }

    fn show(&mut self, progress: &CloneProgress) {
        if self.json {
            let line = json!({"type": "progress", "progress": progress});
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            return;
        }
        let (done, total) = match progress.phase {
            ClonePhase::Resolving => (progress.indexed_deltas, progress.total_deltas),
            ClonePhase::CheckingOut => (progress.checked_out_files, progress.total_files),
            _ => (progress.received_objects, progress.total_objects),
        };
        match &self.bar {
            Some(bar) => {
                bar.set_prefix(phase_name(progress.phase));
                bar.set_length(total);
                bar.set_position(done);
                bar.set_message(format!(
                    "{} at {}/s",
                    indicatif::HumanBytes(progress.received_bytes),
                    indicatif::HumanBytes(progress.bytes_per_second)
                ));
            }
            None if self.last_phase != Some(progress.phase) => {
                eprintln!("arbor: {}", phase_name(progress.phase));
            }
            None => {}
        }
        self.last_phase = Some(progress.phase);
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn phase_name(phase: ClonePhase) -> &'static str {
    match phase {
        ClonePhase::Connecting => "connecting",
        ClonePhase::Receiving => "receiving",
        ClonePhase::Resolving => "resolving",
        ClonePhase::CheckingOut => "checking out",
        ClonePhase::Done => "done",
    }
}
