//! [`ToolEnvironment`]: what tool processes (`bash` and whatever it starts) must not inherit —
//! the key the agent uses and every provider's key variable — unless the user passes a variable
//! through on purpose.

use std::collections::BTreeSet;
use std::ffi::OsStr;

use super::Secret;

/// Variables scrubbed besides the catalogue's `apiKeyEnv`s: the GitHub token Arbor clones with,
/// and the usual names of provider keys a catalogue may not list.
pub const ALWAYS_SCRUBBED: &[&str] = &[
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AZURE_OPENAI_API_KEY",
];

/// The environment policy of a session's tool processes.
#[derive(Clone, Default)]
pub struct ToolEnvironment {
    /// Variables removed by name.
    scrubbed: BTreeSet<String>,
    /// Any variable whose value contains one of these is removed too (a key copied into
    /// another variable, or given with `--api-key` and also exported).
    secrets: Vec<Secret>,
    /// Variables the user passes through on purpose; never removed.
    pass_through: BTreeSet<String>,
}

impl std::fmt::Debug for ToolEnvironment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEnvironment")
            .field("scrubbed", &self.scrubbed)
            .field("pass_through", &self.pass_through)
            .finish_non_exhaustive()
    }
}

impl ToolEnvironment {
    /// Scrubs `variables` (a catalogue's key variables) and [`ALWAYS_SCRUBBED`], except the
    /// ones in `pass_through`.
    pub fn new<I, P>(variables: I, pass_through: P) -> Self
    where
        I: IntoIterator<Item = String>,
        P: IntoIterator<Item = String>,
    {
        let mut scrubbed: BTreeSet<String> = variables.into_iter().collect();
        scrubbed.extend(ALWAYS_SCRUBBED.iter().map(|name| (*name).to_owned()));
        Self {
            scrubbed,
            secrets: Vec::new(),
            pass_through: pass_through.into_iter().collect(),
        }
    }

    /// Also removes any variable whose value contains `secret`.
    pub fn add_secret(&mut self, secret: &Secret) {
        if !self.secrets.contains(secret) {
            self.secrets.push(secret.clone());
        }
    }

    /// The key values withheld wherever they appear (also what tool output is cleaned of).
    pub fn secrets(&self) -> &[Secret] {
        &self.secrets
    }

    /// Whether a variable with this name and value is withheld from tool processes.
    pub fn withholds(&self, name: &OsStr, value: &OsStr) -> bool {
        let name = name.to_string_lossy();
        if self.pass_through.contains(name.as_ref()) {
            return false;
        }
        if self.scrubbed.contains(name.as_ref()) {
            return true;
        }
        let value = value.to_string_lossy();
        self.secrets.iter().any(|s| value.contains(s.expose()))
    }

    /// The variables of this process's environment a tool process must not get (the caller
    /// removes them from its command: `env_remove`).
    pub fn withheld(&self) -> Vec<std::ffi::OsString> {
        std::env::vars_os()
            .filter(|(name, value)| self.withholds(name, value))
            .map(|(name, _)| name)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_variables_and_copies_of_keys_are_withheld_unless_passed_through() {
        let mut env = ToolEnvironment::new(["MY_VLLM_KEY".to_owned()], ["GH_TOKEN".to_owned()]);
        env.add_secret(&Secret::new("sk-live-123456").unwrap());
        let withholds = |name: &str, value: &str| env.withholds(name.as_ref(), value.as_ref());
        assert!(withholds("MY_VLLM_KEY", "x"));
        assert!(withholds("OPENAI_API_KEY", "x"));
        assert!(withholds("SOMETHING_ELSE", "prefix-sk-live-123456"));
        assert!(!withholds("GH_TOKEN", "ghp_x"));
        assert!(!withholds("PATH", "/usr/bin"));
    }
}
