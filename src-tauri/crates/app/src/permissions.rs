//! A project's permissions as the session API keeps them: the mode and trust in the store
//! (per project), the user's rules and the secret-path list in `settings.json`, the project's
//! rules in the store, a run's own rules from the command line; turned into the
//! [`Policy`] a live session's guard enforces, and into the [`PermissionsView`] front ends show.

use std::path::{Path, PathBuf};

use arbor_permissions::paths::{secret_path, DEFAULT_SECRET_PATHS};
use arbor_permissions::{Policy, Rule, SourcedRule};
use arbor_protocol::views::permissions::{
    PermissionLists, PermissionMode, PermissionRule, PermissionsView, RuleEffect, RuleSource,
    SandboxStatus,
};
use arbor_protocol::views::settings::Settings;
use arbor_store::Store;

use crate::settings::SettingsFile;
use crate::AppError;

/// What a front end asks for one run (the CLI's `--permission-mode`, `--allow`, `--ask`,
/// `--deny`): on top of what is saved, never saved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionOverrides {
    pub mode: Option<PermissionMode>,
    pub rules: Vec<(RuleEffect, String)>,
}

/// Everything a live session's guard starts from.
#[derive(Debug, Clone)]
pub struct PermissionSetup {
    pub policy: Policy,
    pub trusted: bool,
    pub origin: Option<String>,
    /// The secret-path list as written (`~/.ssh`).
    pub secret_entries: Vec<String>,
}

/// This machine's sandbox, as the settings show it.
pub fn sandbox_status() -> SandboxStatus {
    SandboxStatus {
        backend: arbor_coding::workspace::sandbox_backend(),
        summary: arbor_sandbox::detect().summary,
    }
}

fn parse_rules(
    rules: impl IntoIterator<Item = (RuleEffect, String)>,
    source: RuleSource,
) -> Result<Vec<SourcedRule>, AppError> {
    rules
        .into_iter()
        .map(|(effect, text)| {
            Ok(SourcedRule {
                rule: Rule::parse(&text)?,
                effect,
                source,
            })
        })
        .collect()
}

/// The project's own rules file: a repository may tighten what the model may do in it, never
/// loosen it.
pub const PROJECT_RULES_FILE: &str = ".arbor/permissions.json";

/// `deny` and `ask` rules from the project's `.arbor/permissions.json` (its `allow` list is
/// ignored: a cloned repository must not grant itself anything). A file that cannot be read or
/// parsed, and rules that do not parse, add nothing.
fn project_file_rules(project_root: &Path) -> Vec<SourcedRule> {
    let Ok(text) = std::fs::read_to_string(project_root.join(PROJECT_RULES_FILE)) else {
        return Vec::new();
    };
    let Ok(lists) = serde_json::from_str::<PermissionLists>(&text) else {
        return Vec::new();
    };
    lists
        .iter()
        .filter(|(effect, _)| *effect != RuleEffect::Allow)
        .filter_map(|(effect, text)| {
            Some(SourcedRule {
                rule: Rule::parse(text).ok()?,
                effect,
                source: RuleSource::ProjectFile,
            })
        })
        .collect()
}

/// Checks a rule as a front end was given it.
pub fn check_rule(text: &str) -> Result<(), AppError> {
    Rule::parse(text)?;
    Ok(())
}

fn effect_from(text: &str) -> Option<RuleEffect> {
    match text {
        "deny" => Some(RuleEffect::Deny),
        "ask" => Some(RuleEffect::Ask),
        "allow" => Some(RuleEffect::Allow),
        _ => None,
    }
}

/// The project's permissions from `data_dir`'s settings and `store`, with `overrides` on top.
pub fn load_setup(
    data_dir: &Path,
    store: Option<&Store>,
    project_root: &Path,
    overrides: &PermissionOverrides,
) -> Result<PermissionSetup, AppError> {
    let settings = Settings::load(data_dir)?;
    let project = match store {
        // A worktree works under the permissions of the project it was made from.
        Some(store) => match store.find_project(project_root)? {
            Some(found) => Some(store.get_project(&store.permissions_owner(&found.id)?)?),
            None => None,
        },
        None => None,
    };
    let stored = match (&project, store) {
        (Some(project), Some(store)) => Some(store.project_permissions(&project.id)?),
        _ => None,
    };
    let trusted = stored.as_ref().is_none_or(|s| s.trusted);
    let saved_mode = stored
        .as_ref()
        .and_then(|s| s.mode.as_deref())
        .and_then(PermissionMode::parse);
    let mode = overrides.mode.or(saved_mode).unwrap_or(if trusted {
        PermissionMode::Workspace
    } else {
        PermissionMode::ReadOnly
    });
    let mut rules = parse_rules(overrides.rules.clone(), RuleSource::CommandLine)?;
    if let Some(lists) = &settings.permissions {
        rules.extend(parse_rules(
            lists.iter().map(|(e, r)| (e, r.clone())),
            RuleSource::User,
        )?);
    }
    if let (Some(project), Some(store)) = (&project, store) {
        // A rule saved before this build understood it is left out, not fatal.
        let saved = store.permission_rules(&project.id)?;
        rules.extend(saved.into_iter().filter_map(|row| {
            Some(SourcedRule {
                rule: Rule::parse(&row.rule).ok()?,
                effect: effect_from(&row.effect)?,
                source: RuleSource::Project,
            })
        }));
    }
    rules.extend(project_file_rules(project_root));
    let secret_entries = settings
        .secret_paths
        .clone()
        .unwrap_or_else(|| DEFAULT_SECRET_PATHS.iter().map(|s| s.to_string()).collect());
    let mut secret_paths: Vec<PathBuf> = secret_entries
        .iter()
        .filter_map(|e| secret_path(e))
        .collect();
    // Arbor's own data: the conversation history, snapshots, settings.
    // The whole folder, unless the project is one of the clones or worktrees it holds: then
    // everything in it but the folders that hold projects (a command could otherwise create a
    // settings file that is not there yet, were the whole data folder writable to it).
    let data = arbor_permissions::paths::resolve_existing(data_dir);
    if arbor_permissions::paths::resolve_existing(project_root).starts_with(&data) {
        secret_paths.extend(
            crate::data_dir::owned_data_paths(data_dir)
                .iter()
                .map(|path| arbor_permissions::paths::resolve_existing(path)),
        );
    } else {
        secret_paths.push(data);
    }
    Ok(PermissionSetup {
        policy: Policy {
            mode,
            project: arbor_permissions::paths::resolve_existing(project_root),
            rules,
            secret_paths,
            sandbox: arbor_permissions::SandboxProbe::new(arbor_coding::workspace::sandbox_backend),
        },
        trusted,
        origin: stored.and_then(|s| s.origin_url),
        secret_entries,
    })
}

/// Starts finding this machine's sandbox (a trial run of `bwrap`) on a thread of its own.
/// Long-lived front ends (the desktop, the interactive CLI, RPC) call this at start, so that
/// neither the settings nor the first command wait for it. A one-shot run (`arbor -p`) does
/// not: most never run a command, and the one that does pays the trial run (a few
/// milliseconds) at its first, beside a model's answer that takes far longer.
pub fn warm_sandbox_probe() {
    arbor_sandbox::detect_in_background();
}

/// [`load_setup`] for a front end without an open store (the CLI): the database is read when
/// there is one (brought to this build's schema, as the session's own connection would), and
/// none is created.
pub fn load_setup_in(
    data_dir: &Path,
    project_root: &Path,
    overrides: &PermissionOverrides,
) -> Result<PermissionSetup, AppError> {
    let store = if data_dir.join(arbor_store::DB_FILE_NAME).exists() {
        Some(Store::open(data_dir)?)
    } else {
        None
    };
    load_setup(data_dir, store.as_ref(), project_root, overrides)
}

/// [`load_setup`] over the store a session is about to store into (the CLI's one connection:
/// each connection opened costs a check of the database, and each closed a checkpoint).
pub fn load_setup_stored(
    stored: &crate::StoredSessions,
    project_root: &Path,
    overrides: &PermissionOverrides,
) -> Result<PermissionSetup, AppError> {
    load_setup(
        stored.data_dir(),
        Some(stored.store()),
        project_root,
        overrides,
    )
}

/// What the header, banner and settings show, from a policy (a live one when a session runs).
pub fn view(setup: &PermissionSetup, policy: &Policy) -> PermissionsView {
    let mut rules: Vec<PermissionRule> = policy
        .rules
        .iter()
        .map(|r| PermissionRule {
            rule: r.rule.to_string(),
            effect: r.effect,
            source: r.source,
        })
        .collect();
    let rank = |e: RuleEffect| match e {
        RuleEffect::Deny => 0,
        RuleEffect::Ask => 1,
        RuleEffect::Allow => 2,
    };
    rules.sort_by_key(|r| rank(r.effect));
    PermissionsView {
        mode: policy.mode,
        trusted: setup.trusted,
        origin: setup.origin.clone().filter(|_| !setup.trusted),
        rules,
        secret_paths: setup.secret_entries.clone(),
        sandbox: sandbox_status(),
    }
}

/// The project whose permissions hold at `project_root` (a worktree's are its project's).
pub(crate) fn project_id(store: &Store, project_root: &Path) -> Result<String, AppError> {
    let id = store.open_project(project_root, None)?.id;
    Ok(store.permissions_owner(&id)?)
}

/// Saves the project's mode.
pub fn save_mode(store: &Store, project_root: &Path, mode: PermissionMode) -> Result<(), AppError> {
    let id = project_id(store, project_root)?;
    Ok(store.set_permission_mode(&id, mode.as_str())?)
}

/// Trusts a cloned project: it leaves read-only for the workspace mode.
pub fn trust(store: &Store, project_root: &Path) -> Result<(), AppError> {
    let id = project_id(store, project_root)?;
    store.set_project_trusted(&id, true)?;
    Ok(store.set_permission_mode(&id, PermissionMode::Workspace.as_str())?)
}

/// Marks a freshly cloned project untrusted (it starts read-only).
pub fn distrust(store: &Store, project_root: &Path) -> Result<(), AppError> {
    let id = project_id(store, project_root)?;
    Ok(store.set_project_trusted(&id, false)?)
}

/// Saves a rule for the user (settings) or the project (store), after checking it.
pub fn add_rule(
    data_dir: &Path,
    store: &Store,
    project_root: &Path,
    rule: &str,
    effect: RuleEffect,
    scope: RuleSource,
) -> Result<(), AppError> {
    let text = Rule::parse(rule)?.to_string();
    match scope {
        RuleSource::User => {
            let mut settings = Settings::load(data_dir)?;
            let lists = settings
                .permissions
                .get_or_insert_with(PermissionLists::default);
            let list = lists.list_mut(effect);
            if !list.contains(&text) {
                list.push(text);
            }
            settings.save(data_dir)?;
            Ok(())
        }
        RuleSource::Project => {
            let id = project_id(store, project_root)?;
            Ok(store.add_permission_rule(&id, effect.as_str(), &text)?)
        }
        RuleSource::Session | RuleSource::CommandLine | RuleSource::ProjectFile => {
            Err(AppError::Unsupported(
                "only user and project rules are saved (edit .arbor/permissions.json yourself)"
                    .into(),
            ))
        }
    }
}

/// Removes a saved rule.
pub fn remove_rule(
    data_dir: &Path,
    store: &Store,
    project_root: &Path,
    rule: &str,
    effect: RuleEffect,
    source: RuleSource,
) -> Result<(), AppError> {
    let removed = match source {
        RuleSource::User => {
            let mut settings = Settings::load(data_dir)?;
            let removed = match settings.permissions.as_mut() {
                Some(lists) => {
                    let list = lists.list_mut(effect);
                    let before = list.len();
                    list.retain(|r| r != rule);
                    before != list.len()
                }
                None => false,
            };
            if settings
                .permissions
                .as_ref()
                .is_some_and(PermissionLists::is_empty)
            {
                settings.permissions = None;
            }
            settings.save(data_dir)?;
            removed
        }
        RuleSource::Project => {
            let id = project_id(store, project_root)?;
            store.remove_permission_rule(&id, effect.as_str(), rule)?
        }
        RuleSource::Session | RuleSource::CommandLine | RuleSource::ProjectFile => false,
    };
    if removed {
        Ok(())
    } else {
        Err(AppError::NoSuchRule(format!("{} {rule}", effect.as_str())))
    }
}

/// Saves the secret-path list (each entry absolute or under `~`).
pub fn save_secret_paths(data_dir: &Path, paths: Vec<String>) -> Result<(), AppError> {
    let paths: Vec<String> = paths
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    if let Some(bad) = paths.iter().find(|p| secret_path(p).is_none()) {
        return Err(AppError::Unsupported(format!(
            "`{bad}` is not an absolute path or one under `~/`"
        )));
    }
    let mut settings = Settings::load(data_dir)?;
    settings.secret_paths = Some(paths);
    settings.save(data_dir)?;
    Ok(())
}

impl crate::ArborApp {
    /// The project's permissions at `project_root`, with `overrides` on top.
    pub fn permission_setup(
        &self,
        project_root: &Path,
        overrides: &PermissionOverrides,
    ) -> Result<PermissionSetup, AppError> {
        load_setup(
            self.data_dir(),
            Some(&self.store()),
            project_root,
            overrides,
        )
    }

    /// What the settings and the header show for a project without a live session.
    pub fn permissions_view(&self, project_root: &Path) -> Result<PermissionsView, AppError> {
        let setup = self.permission_setup(project_root, &PermissionOverrides::default())?;
        Ok(view(&setup, &setup.policy))
    }

    /// Saves the project's mode.
    pub fn set_permission_mode(
        &self,
        project_root: &Path,
        mode: PermissionMode,
    ) -> Result<(), AppError> {
        save_mode(&self.store(), project_root, mode)
    }

    /// Trusts a cloned project (it leaves read-only for `workspace`).
    pub fn trust_project(&self, project_root: &Path) -> Result<(), AppError> {
        trust(&self.store(), project_root)
    }

    /// Saves a rule for the user or the project.
    pub fn add_permission_rule(
        &self,
        project_root: &Path,
        rule: &str,
        effect: RuleEffect,
        scope: RuleSource,
    ) -> Result<(), AppError> {
        add_rule(
            self.data_dir(),
            &self.store(),
            project_root,
            rule,
            effect,
            scope,
        )
    }

    /// Removes a saved rule.
    pub fn remove_permission_rule(
        &self,
        project_root: &Path,
        rule: &str,
        effect: RuleEffect,
        source: RuleSource,
    ) -> Result<(), AppError> {
        remove_rule(
            self.data_dir(),
            &self.store(),
            project_root,
            rule,
            effect,
            source,
        )
    }

    /// Saves the secret-path list.
    pub fn set_secret_paths(&self, paths: Vec<String>) -> Result<(), AppError> {
        save_secret_paths(self.data_dir(), paths)
    }
}

impl crate::StoredSessions {
    /// Saves a rule for the user or the project at `project_root` (`arbor permissions`).
    pub fn add_permission_rule(
        &self,
        project_root: &Path,
        rule: &str,
        effect: RuleEffect,
        scope: RuleSource,
    ) -> Result<(), AppError> {
        add_rule(
            self.data_dir(),
            self.store(),
            project_root,
            rule,
            effect,
            scope,
        )
    }

    /// Removes a saved rule from whichever list holds it.
    pub fn remove_permission_rule(
        &self,
        project_root: &Path,
        rule: &str,
        scope: RuleSource,
    ) -> Result<(), AppError> {
        for effect in [RuleEffect::Deny, RuleEffect::Ask, RuleEffect::Allow] {
            match remove_rule(
                self.data_dir(),
                self.store(),
                project_root,
                rule,
                effect,
                scope,
            ) {
                Err(AppError::NoSuchRule(_)) => continue,
                other => return other,
            }
        }
        Err(AppError::NoSuchRule(rule.to_owned()))
    }
}
