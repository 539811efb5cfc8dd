//! What a server's process and requests get: the scrubbed environment of tool processes (no
//! provider keys) plus the variables its definition names, whose values may name a secret in
//! the keychain (`${keychain:NAME}`, the account `mcp:NAME`) or a variable of Arbor's own
//! environment (`${NAME}`). A secret never comes from a file, and a provider key is never
//! handed on by reference: `${OPENAI_API_KEY}` is refused, whatever the definition says.

use std::collections::BTreeMap;
use std::ffi::OsString;

use arbor_secrets::{Secret, SecretStore, ToolEnvironment};

use crate::McpError;

/// The keychain account of a secret named `name` in a definition.
pub fn keychain_account(name: &str) -> String {
    format!("mcp:{name}")
}

/// Where a definition's references are looked up.
pub struct Expansion<'a> {
    pub keychain: &'a dyn SecretStore,
    pub tool_environment: &'a ToolEnvironment,
    /// Arbor's environment (a parameter so tests need not change the process's).
    pub variables: &'a (dyn Fn(&str) -> Option<OsString> + Sync),
}

/// A value with its references replaced, and the secrets it now holds (so output can be
/// cleaned of them).
#[derive(Debug)]
pub struct Expanded {
    pub value: String,
    pub secrets: Vec<Secret>,
}

impl Expansion<'_> {
    /// Replaces every `${…}` of `value`. `server` names the definition in errors.
    pub fn expand(&self, server: &str, value: &str) -> Result<Expanded, McpError> {
        let invalid = |why: String| McpError::InvalidServer {
            name: server.to_owned(),
            why,
        };
        let mut out = String::with_capacity(value.len());
        let mut secrets = Vec::new();
        let mut rest = value;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| invalid(format!("{value:?} opens \"${{\" without \"}}\"")))?;
            let reference = &after[..end];
            if let Some(name) = reference.strip_prefix("keychain:") {
                let secret = self.keychain.get(&keychain_account(name))?.ok_or_else(|| {
                    invalid(format!(
                        "the keychain holds no secret {name:?}; add it with `arbor mcp secret {name}` \
                         or in Settings → MCP servers"
                    ))
                })?;
                out.push_str(secret.expose());
                secrets.push(secret);
            } else {
                if reference.is_empty()
                    || !reference
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    return Err(invalid(format!(
                        "\"${{{reference}}}\" is neither ${{keychain:NAME}} nor ${{VARIABLE}}"
                    )));
                }
                let found = (self.variables)(reference).unwrap_or_default();
                if self
                    .tool_environment
                    .withholds(std::ffi::OsStr::new(reference), &found)
                {
                    return Err(invalid(format!(
                        "it asks for {reference}, which tool processes never get (a provider key \
                         or token); give the server its own secret with ${{keychain:NAME}}"
                    )));
                }
                let found = found.to_string_lossy().into_owned();
                if let Some(secret) = Secret::new(found.clone()) {
                    secrets.push(secret);
                }
                out.push_str(&found);
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(Expanded {
            value: out,
            secrets,
        })
    }

    /// Expands every value of `map`; the secrets of all of them.
    pub fn expand_map(
        &self,
        server: &str,
        map: &BTreeMap<String, String>,
    ) -> Result<(BTreeMap<String, String>, Vec<Secret>), McpError> {
        let mut secrets = Vec::new();
        let mut out = BTreeMap::new();
        for (name, value) in map {
            let expanded = self.expand(server, value)?;
            secrets.extend(expanded.secrets);
            out.insert(name.clone(), expanded.value);
        }
        Ok((out, secrets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_secrets::MemoryStore;

    fn variables(name: &str) -> Option<OsString> {
        match name {
            "HOME_DIR" => Some("/home/me".into()),
            "OPENAI_API_KEY" => Some("sk-live".into()),
            _ => None,
        }
    }

    #[test]
    fn references_expand_and_provider_keys_are_refused() {
        let keychain = MemoryStore::default();
        keychain
            .set("mcp:gh", &Secret::new("ghp_secret").unwrap())
            .unwrap();
        let tool_environment =
            ToolEnvironment::new(["OPENAI_API_KEY".to_owned()], Vec::<String>::new());
        let expansion = Expansion {
            keychain: &keychain,
            tool_environment: &tool_environment,
            variables: &variables,
        };
        let expanded = expansion
            .expand("s", "Bearer ${keychain:gh} at ${HOME_DIR}/x ${UNSET}.")
            .unwrap();
        assert_eq!(expanded.value, "Bearer ghp_secret at /home/me/x .");
        assert_eq!(expanded.secrets.len(), 2);
        let refused = expansion.expand("s", "${OPENAI_API_KEY}").unwrap_err();
        assert!(refused.to_string().contains("keychain:NAME"), "{refused}");
        assert!(expansion
            .expand("s", "${keychain:missing}")
            .unwrap_err()
            .to_string()
            .contains("no secret \"missing\""));
        assert!(expansion.expand("s", "${oops").is_err());
        assert!(expansion.expand("s", "${a b}").is_err());
        assert_eq!(expansion.expand("s", "plain").unwrap().value, "plain");
    }
}
