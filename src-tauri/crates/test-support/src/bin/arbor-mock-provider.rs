//! `arbor-mock-provider --script FILE [--port N]`: serves a mock provider script over HTTP.
//!
//! Prints exactly one line, the base URL (`http://127.0.0.1:PORT`), then serves until SIGTERM
//! or Ctrl-C. A bad script or bad arguments exit with status 2 and a message on stderr.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use arbor_test_support::{MockProvider, Script};

const USAGE: &str = "usage: arbor-mock-provider --script FILE [--port N]\n\
\n\
Serves a scripted mock LLM provider on 127.0.0.1 (all four wire formats), prints its base URL\n\
on one line, and runs until SIGTERM or Ctrl-C. Recorded requests: GET {url}/__mock/requests.\n\
The script format is documented in the arbor-test-support crate docs.";

struct Args {
    script: PathBuf,
    port: u16,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut script = None;
    let mut port = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--script" => script = Some(PathBuf::from(value("--script")?)),
            "--port" => {
                let text = value("--port")?;
                port = text
                    .parse()
                    .map_err(|_| format!("--port: {text:?} is not a port number (0-65535)"))?;
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let script = script.ok_or("--script FILE is required")?;
    Ok(Some(Args { script, port }))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("arbor-mock-provider: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let script = match Script::from_file(&args.script) {
        Ok(script) => script,
        Err(error) => {
            // serde_json's message already ends with "at line L column C".
            eprintln!("arbor-mock-provider: {error}");
            return ExitCode::from(2);
        }
    };
    match run(script, args.port) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("arbor-mock-provider: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(script: Script, port: u16) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let mock = MockProvider::start_on_port(script, port).await?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", mock.base_url()).context("cannot write the URL to stdout")?;
        stdout.flush().context("cannot flush stdout")?;
        drop(stdout);
        wait_for_signal().await?;
        mock.shutdown().await;
        Ok(())
    })
}

#[cfg(unix)]
async fn wait_for_signal() -> anyhow::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
    tokio::select! {
        _ = term.recv() => {}
        result = tokio::signal::ctrl_c() => result.context("cannot listen for Ctrl-C")?,
    }
    Ok(())
}

#[cfg(not(unix))]
async fn wait_for_signal() -> anyhow::Result<()> {
    tokio::signal::ctrl_c()
        .await
        .context("cannot listen for Ctrl-C")
}
