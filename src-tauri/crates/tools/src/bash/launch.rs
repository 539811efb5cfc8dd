//! What the bash tool starts: `bash -c COMMAND` itself, or the sandbox wrapping it (the same
//! on every system; how it is started is `process.rs`'s).

/// What to start: `bash -c COMMAND` itself, or the sandbox wrapping it.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub program: std::path::PathBuf,
    pub args: Vec<std::ffi::OsString>,
    pub remove_env: Vec<&'static str>,
    pub set_env: Vec<(&'static str, std::ffi::OsString)>,
}

impl Launch {
    /// `bash -c command`, unconfined.
    pub fn bash(command: &str) -> Self {
        Self {
            program: "bash".into(),
            args: vec!["-c".into(), command.into()],
            remove_env: Vec::new(),
            set_env: Vec::new(),
        }
    }
}
