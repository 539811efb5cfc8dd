//! [`Settings`]: the user's preferences that both front ends read, kept in `settings.json` in
//! the data folder (never a key: keys live in the keychain).

use arbor_error_code::ErrorCode;
use std::path::{Path, PathBuf};

pub use arbor_protocol::views::settings::Settings;

/// The settings file inside the data folder.
pub const SETTINGS_FILE_NAME: &str = "settings.json";

/// The range [`Settings::stream_idle_timeout_secs`] accepts.
pub const STREAM_IDLE_TIMEOUT_RANGE: std::ops::RangeInclusive<u64> = 10..=3600;

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not valid settings: {message}. Fix the file or move it away.", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("cannot save {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Value(String),
}

impl SettingsError {
    pub fn code(&self) -> ErrorCode {
        match self {
            SettingsError::Read { .. } | SettingsError::Write { .. } => ErrorCode::Io,
            SettingsError::Invalid { .. } => ErrorCode::InvalidSettings,
            SettingsError::Value(_) => ErrorCode::InvalidSettings,
        }
    }
}

/// `settings.json`: reading, checking and writing the settings (a trait because the type is the
/// wire's, `arbor_protocol::views::settings::Settings`).
pub trait SettingsFile: Sized {
    /// The settings in `data_dir` (defaults when there is no file yet).
    fn load(data_dir: &Path) -> Result<Self, SettingsError>;
    /// Checks the values: variable names are names, the thinking level is one, …
    fn validate(&self) -> Result<(), SettingsError>;
    /// Writes the settings to `data_dir` through a temporary file and a rename.
    fn save(&self, data_dir: &Path) -> Result<(), SettingsError>;
}

impl SettingsFile for Settings {
    fn load(data_dir: &Path) -> Result<Self, SettingsError> {
        let path = data_dir.join(SETTINGS_FILE_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::default())
            }
            Err(source) => return Err(SettingsError::Read { path, source }),
        };
        let settings: Settings =
            serde_json::from_str(&text).map_err(|error| SettingsError::Invalid {
                path: path.clone(),
                message: error.to_string(),
            })?;
        settings.validate()?;
        Ok(settings)
    }

    fn validate(&self) -> Result<(), SettingsError> {
        crate::mcp::validate_configs(&self.mcp_servers)?;
        if let Some(percent) = self.mcp_search_at_percent {
            if !(1..=100).contains(&percent) {
                return Err(SettingsError::Value(format!(
                    "MCP search starts at {percent} %: give 1 to 100"
                )));
            }
        }
        for name in &self.tool_env_pass_through {
            let valid = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(SettingsError::Value(format!(
                    "`{name}` is not an environment variable name (letters, digits and _)"
                )));
            }
        }
        if let Some(level) = &self.default_thinking {
            if level.parse::<arbor_llm::ThinkingLevel>().is_err() {
                return Err(SettingsError::Value(format!(
                    "unknown thinking level `{level}` (off, minimal, low, medium or high)"
                )));
            }
        }
        if let Some(base) = &self.worktree_base {
            if !matches!(base.as_str(), "current" | "remote") {
                return Err(SettingsError::Value(format!(
                    "worktreeBase `{base}` is not `current` or `remote`"
                )));
            }
        }
        for (what, dir) in [
            ("workspaces", &self.workspaces_dir),
            ("worktrees", &self.worktrees_dir),
        ] {
            if let Some(dir) = dir {
                if !std::path::Path::new(dir).is_absolute() {
                    return Err(SettingsError::Value(format!(
                        "the {what} folder `{dir}` must be an absolute path"
                    )));
                }
            }
        }
        if let Some(secs) = self.stream_idle_timeout_secs {
            if !STREAM_IDLE_TIMEOUT_RANGE.contains(&secs) {
                return Err(SettingsError::Value(format!(
                    "a stream idle timeout of {secs} s is out of range ({} to {} s)",
                    STREAM_IDLE_TIMEOUT_RANGE.start(),
                    STREAM_IDLE_TIMEOUT_RANGE.end()
                )));
            }
        }
        if let Some(percent) = self.compact_at_percent {
            if !(50..=95).contains(&percent) {
                return Err(SettingsError::Value(format!(
                    "compacting at {percent} % of the context window is out of range (50 to 95 %)"
                )));
            }
        }
        if let Some(host) = &self.github_host {
            if host.is_empty() || host.contains('/') || host.contains('@') {
                return Err(SettingsError::Value(format!(
                    "`{host}` is not a host name (e.g. github.example.com)"
                )));
            }
        }
        let mut ignores = ignore::gitignore::GitignoreBuilder::new("/");
        for pattern in &self.snapshot_ignores {
            if pattern.trim().is_empty() {
                return Err(SettingsError::Value(
                    "an empty snapshot ignore pattern: remove it".into(),
                ));
            }
            if let Err(error) = ignores.add_line(None, pattern) {
                return Err(SettingsError::Value(format!(
                    "snapshot ignore `{pattern}` is not a .gitignore pattern: {error}"
                )));
            }
        }
        if let Some(model) = &self.default_model {
            if !model.contains('/') {
                return Err(SettingsError::Value(format!(
                    "default model `{model}` must be written PROVIDER/MODEL"
                )));
            }
        }
        Ok(())
    }

    fn save(&self, data_dir: &Path) -> Result<(), SettingsError> {
        self.validate()?;
        let path = data_dir.join(SETTINGS_FILE_NAME);
        serde_json::to_string_pretty(self)
            .map_err(std::io::Error::other)
            .and_then(|text| arbor_fs::write_atomic(&path, text.as_bytes()))
            .map_err(|source| SettingsError::Write { path, source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_bad_values_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), Settings::default());
        let settings = Settings {
            default_model: Some("anthropic/claude-haiku-4-5".into()),
            default_thinking: Some("high".into()),
            tool_env_pass_through: vec!["GH_TOKEN".into()],
            workspaces_dir: Some("/srv/work".into()),
            worktrees_dir: Some("/srv/worktrees".into()),
            worktree_base: Some("remote".into()),
            github_host: Some("github.example.com".into()),
            snapshot_ignores: vec!["*.bin".into(), "/data/".into()],
            stream_idle_timeout_secs: Some(300),
            compact_at_percent: Some(80),
            permissions: Some(arbor_protocol::views::permissions::PermissionLists {
                deny: vec!["Bash(git push *)".into()],
                ask: Vec::new(),
                allow: vec!["Bash(cargo test *)".into()],
            }),
            secret_paths: Some(vec!["~/.ssh".into()]),
            mcp_search_at_percent: Some(25),
            mcp_servers: vec![arbor_protocol::views::mcp::McpServerConfig {
                name: "git".into(),
                command: "uvx".into(),
                args: vec!["mcp-server-git".into()],
                env: [("TOKEN".to_owned(), "${keychain:git}".to_owned())].into(),
                enabled: false,
                ..Default::default()
            }],
        };
        settings.save(dir.path()).unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), settings);
        let bad = Settings {
            tool_env_pass_through: vec!["NOT A NAME".into()],
            ..Settings::default()
        };
        assert_eq!(bad.save(dir.path()).unwrap_err().code(), "invalid_settings");
        for pattern in ["[z-a]", " "] {
            let bad = Settings {
                snapshot_ignores: vec![pattern.into()],
                ..Settings::default()
            };
            let error = bad.save(dir.path()).unwrap_err();
            assert_eq!(error.code(), "invalid_settings", "{pattern}");
            assert!(error.to_string().contains("snapshot ignore"), "{error}");
        }
        for percent in [0, 49, 96] {
            let bad = Settings {
                compact_at_percent: Some(percent),
                ..Settings::default()
            };
            let error = bad.save(dir.path()).unwrap_err();
            assert!(
                error.to_string().contains("out of range (50 to 95 %)"),
                "{error}"
            );
        }
        for percent in [0, 101] {
            let bad = Settings {
                mcp_search_at_percent: Some(percent),
                ..Settings::default()
            };
            assert!(bad
                .save(dir.path())
                .unwrap_err()
                .to_string()
                .contains("MCP search"));
        }
        let twice = arbor_protocol::views::mcp::McpServerConfig {
            name: "same".into(),
            command: "x".into(),
            enabled: true,
            ..Default::default()
        };
        let bad = Settings {
            mcp_servers: vec![twice.clone(), twice],
            ..Settings::default()
        };
        assert!(bad
            .save(dir.path())
            .unwrap_err()
            .to_string()
            .contains("two MCP servers"));
        for secs in [0, 9, 3601] {
            let bad = Settings {
                stream_idle_timeout_secs: Some(secs),
                ..Settings::default()
            };
            let error = bad.save(dir.path()).unwrap_err();
            assert!(error.to_string().contains("idle timeout"), "{error}");
        }
        assert_eq!(
            Settings::default().stream_idle_timeout(),
            arbor_llm::DEFAULT_STREAM_IDLE_TIMEOUT
        );
        std::fs::write(dir.path().join(SETTINGS_FILE_NAME), "{\"defaultModel\": 3}").unwrap();
        let error = Settings::load(dir.path()).unwrap_err();
        assert!(error.to_string().contains("settings.json"), "{error}");
    }
}
