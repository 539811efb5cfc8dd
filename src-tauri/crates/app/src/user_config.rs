//! What the user configures, on [`ArborApp`]: provider keys (set, remove, check, where each
//! comes from), `settings.json`, and custom endpoints in `models.json`. Both front ends (the
//! desktop's settings view, `arbor auth`) call these.

use std::sync::Arc;

use arbor_llm::ThinkingLevel;

use super::{AppError, ArborApp, ModelRequest, Selection, Settings};
use crate::custom_endpoints::{add_custom_endpoint, CustomEndpoint};
use crate::keys::{tool_environment, ProviderKeyStatus};
use arbor_coding::secrets::{Secret, ToolEnvironment, GITHUB_ACCOUNT};
pub use arbor_protocol::views::{KeyStatusList, KeychainProblem};

/// The variables the GitHub token is read from, in order.
pub const GITHUB_TOKEN_VARIABLES: &[&str] = &["GITHUB_TOKEN", "GH_TOKEN"];

impl ArborApp {
    /// The settings as they are now.
    pub fn settings(&self) -> Settings {
        self.settings
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Checks and saves `settings` (to `settings.json`); new sessions use them.
    pub fn save_settings(&self, settings: Settings) -> Result<(), AppError> {
        crate::SettingsFile::save(&settings, &self.data_dir)?;
        *self
            .settings
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = settings;
        Ok(())
    }

    /// The thinking level new sessions start with.
    pub fn default_thinking(&self) -> ThinkingLevel {
        self.settings()
            .default_thinking
            .and_then(|level| level.parse().ok())
            .unwrap_or_default()
    }

    /// What the tool processes of a new session must not inherit; `extra_pass_through` adds to
    /// the settings' pass-through list (the CLI's `--pass-env`).
    pub fn tool_environment(&self, extra_pass_through: &[String]) -> ToolEnvironment {
        let mut pass_through = self.settings().tool_env_pass_through;
        pass_through.extend(extra_pass_through.iter().cloned());
        tool_environment(&self.catalog(), &self.keys, &pass_through)
    }

    /// Where every provider's key (and the GitHub token) comes from, re-reading the keychain.
    pub fn key_statuses(&self) -> KeyStatusList {
        self.keys.refresh();
        let catalog = self.catalog();
        let providers = catalog
            .providers()
            .iter()
            .map(|provider| {
                let variable = provider.api_key_env.as_deref();
                self.key_status(&provider.name, &provider.display_name, variable)
            })
            .collect();
        let github = self.github_status();
        let keychain_error = self.keys.last_error().map(|error| KeychainProblem {
            code: error.code(),
            message: error.to_string(),
        });
        KeyStatusList {
            providers,
            github,
            keychain_error,
        }
    }

    fn key_status(
        &self,
        account: &str,
        display_name: &str,
        variable: Option<&str>,
    ) -> ProviderKeyStatus {
        let source = self.keys.source(account, variable);
        ProviderKeyStatus {
            provider: account.to_owned(),
            display_name: display_name.to_owned(),
            source: source.kind(),
            variable: variable.map(str::to_owned),
            run_only: matches!(source, super::KeySource::Keychain { run_only: true }),
            key_optional: variable.is_none(),
        }
    }

    fn github_status(&self) -> ProviderKeyStatus {
        let variable = GITHUB_TOKEN_VARIABLES
            .iter()
            .find(|name| self.keys.env_var(name).is_some())
            .unwrap_or(&GITHUB_TOKEN_VARIABLES[0]);
        let mut status = self.key_status(GITHUB_ACCOUNT, "GitHub", Some(variable));
        status.key_optional = true;
        status
    }

    /// The GitHub token for cloning: `$GITHUB_TOKEN`, `$GH_TOKEN`, then the keychain.
    pub fn github_token(&self) -> Option<Secret> {
        GITHUB_TOKEN_VARIABLES
            .iter()
            .find_map(|name| self.keys.env_var(name).and_then(Secret::new))
            .or_else(|| self.keys.stored(GITHUB_ACCOUNT))
    }

    /// Keeps `value` as the key of `account` (a catalogued provider or `github`): in the OS
    /// keychain, or in memory until the app exits when `run_only`.
    pub fn set_key(&self, account: &str, value: &str, run_only: bool) -> Result<(), AppError> {
        self.check_account(account)?;
        let secret = Secret::new(value).ok_or(AppError::EmptyKey)?;
        secret.validate()?;
        self.keys.set(account, &secret, run_only)?;
        Ok(())
    }

    /// Removes `account`'s key from the keychain (and memory); `false` when there was none.
    pub fn remove_key(&self, account: &str) -> Result<bool, AppError> {
        self.check_account(account)?;
        Ok(self.keys.remove(account)?)
    }

    /// The model a key check of `provider` uses: its default, with its key.
    pub fn key_check_selection(&self, provider: &str) -> Result<Selection, AppError> {
        if provider == GITHUB_ACCOUNT {
            return Err(AppError::Unsupported(
                "the GitHub token is not tested here: it is checked when a private repository                  is cloned"
                    .to_owned(),
            ));
        }
        self.check_account(provider)?;
        self.select(&ModelRequest {
            provider: Some(provider.to_owned()),
            ..ModelRequest::default()
        })
    }

    fn check_account(&self, account: &str) -> Result<(), AppError> {
        if account == GITHUB_ACCOUNT || self.catalog().provider(account).is_ok() {
            Ok(())
        } else {
            Err(AppError::Catalog(
                self.catalog().provider(account).err().unwrap_or(
                    arbor_llm::catalog::CatalogError::NoModels {
                        name: account.to_owned(),
                    },
                ),
            ))
        }
    }

    /// Adds `endpoint` to `models.json` (checked first; nothing is written when it would not
    /// load) and its key, if given, to the keychain; new pickers list it at once.
    pub fn add_custom_endpoint(
        &self,
        endpoint: &CustomEndpoint,
        key: Option<&str>,
    ) -> Result<(), AppError> {
        let key = key.and_then(Secret::new);
        if let Some(key) = &key {
            key.validate()?;
        }
        let catalog = add_custom_endpoint(&self.data_dir, endpoint)?;
        *self
            .catalog
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::new(catalog);
        if let Some(key) = key {
            self.keys.set(endpoint.name.trim(), &key, false)?;
        }
        Ok(())
    }
}
