//! A project's permissions: its mode, whether it is trusted, and the rules saved for it
//! (schema 6). Values are kept as text; `arbor-app` gives them meaning.

use rusqlite::{params, OptionalExtension};

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::ids::now_ms;

/// A project's stored permission state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPermissions {
    /// `read-only`, `workspace` or `full`; `None`: not chosen yet.
    pub mode: Option<String>,
    pub trusted: bool,
    /// Where a cloned project came from.
    pub origin_url: Option<String>,
}

/// A rule saved for a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRule {
    /// `deny`, `ask` or `allow`.
    pub effect: String,
    pub rule: String,
}

impl Store {
    pub fn project_permissions(&self, project_id: &str) -> Result<ProjectPermissions> {
        self.conn
            .query_row(
                "SELECT permission_mode, trusted, origin_url FROM projects WHERE id = ?1",
                [project_id],
                |r| {
                    Ok(ProjectPermissions {
                        mode: r.get(0)?,
                        trusted: r.get::<_, i64>(1)? != 0,
                        origin_url: r.get(2)?,
                    })
                },
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound {
                kind: "project",
                id: project_id.to_owned(),
            })
    }

    /// Sets the project's mode (`read-only`, `workspace` or `full`).
    pub fn set_permission_mode(&self, project_id: &str, mode: &str) -> Result<()> {
        self.update_project(
            project_id,
            "UPDATE projects SET permission_mode = ?2 WHERE id = ?1",
            &mode,
        )
    }

    /// The project's own system-prompt text (schema 8); `None` when it has none.
    pub fn project_system_prompt(&self, project_id: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT system_prompt FROM projects WHERE id = ?1",
                [project_id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound {
                kind: "project",
                id: project_id.to_owned(),
            })
    }

    /// Sets (or, with `None` or blank text, clears) the project's own system-prompt text.
    pub fn set_project_system_prompt(&self, project_id: &str, text: Option<&str>) -> Result<()> {
        let text = text.map(str::trim).filter(|text| !text.is_empty());
        self.update_project(
            project_id,
            "UPDATE projects SET system_prompt = ?2 WHERE id = ?1",
            &text,
        )
    }

    pub fn set_project_trusted(&self, project_id: &str, trusted: bool) -> Result<()> {
        self.update_project(
            project_id,
            "UPDATE projects SET trusted = ?2 WHERE id = ?1",
            &i64::from(trusted),
        )
    }

    /// Sets one column of the project `project_id` (`sql` takes the id as `?1` and `value` as
    /// `?2`); a project that is not there is an error, not a silent no-op.
    fn update_project(
        &self,
        project_id: &str,
        sql: &'static str,
        value: &dyn rusqlite::ToSql,
    ) -> Result<()> {
        self.write(|c| {
            if c.execute(sql, params![project_id, value])? == 0 {
                return Err(StoreError::NotFound {
                    kind: "project",
                    id: project_id.to_owned(),
                });
            }
            Ok(())
        })
    }

    /// The project's rules, oldest first.
    pub fn permission_rules(&self, project_id: &str) -> Result<Vec<StoredRule>> {
        let mut statement = self.conn.prepare(
            "SELECT effect, rule FROM permission_rules WHERE project_id = ?1 ORDER BY created_at, rule",
        )?;
        let rows = statement.query_map([project_id], |r| {
            Ok(StoredRule {
                effect: r.get(0)?,
                rule: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Saves a rule for the project (once: saving it again changes nothing).
    pub fn add_permission_rule(&self, project_id: &str, effect: &str, rule: &str) -> Result<()> {
        self.write(|c| {
            c.execute(
                "INSERT OR IGNORE INTO permission_rules (project_id, effect, rule, created_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![project_id, effect, rule, now_ms()],
            )?;
            Ok(())
        })
    }

    /// Removes a rule; `false` when there was none.
    pub fn remove_permission_rule(
        &self,
        project_id: &str,
        effect: &str,
        rule: &str,
    ) -> Result<bool> {
        self.write(|c| {
            Ok(c.execute(
                "DELETE FROM permission_rules WHERE project_id = ?1 AND effect = ?2 AND rule = ?3",
                params![project_id, effect, rule],
            )? > 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_keeps_its_mode_trust_and_rules() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let folder = dir.path().join("p");
        std::fs::create_dir(&folder).unwrap();
        let project = store
            .open_project(&folder, Some("https://example.com/r.git"))
            .unwrap();
        let fresh = store.project_permissions(&project.id).unwrap();
        assert_eq!((fresh.mode, fresh.trusted), (None, true));
        store.set_project_trusted(&project.id, false).unwrap();
        store.set_permission_mode(&project.id, "read-only").unwrap();
        assert!(store.set_permission_mode(&project.id, "anything").is_err());
        store
            .add_permission_rule(&project.id, "allow", "Bash(cargo test *)")
            .unwrap();
        store
            .add_permission_rule(&project.id, "allow", "Bash(cargo test *)")
            .unwrap();
        store
            .add_permission_rule(&project.id, "deny", "Bash(git push)")
            .unwrap();
        let stored = store.project_permissions(&project.id).unwrap();
        assert_eq!(stored.mode.as_deref(), Some("read-only"));
        assert!(!stored.trusted);
        assert_eq!(
            stored.origin_url.as_deref(),
            Some("https://example.com/r.git")
        );
        assert_eq!(store.permission_rules(&project.id).unwrap().len(), 2);
        assert!(store
            .remove_permission_rule(&project.id, "deny", "Bash(git push)")
            .unwrap());
        assert!(!store
            .remove_permission_rule(&project.id, "deny", "Bash(git push)")
            .unwrap());
        assert!(store.project_permissions("nope").is_err());
    }

    #[test]
    fn a_project_keeps_its_own_prompt_and_blank_text_clears_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let folder = dir.path().join("p");
        std::fs::create_dir(&folder).unwrap();
        let project = store.open_project(&folder, None).unwrap();
        assert_eq!(store.project_system_prompt(&project.id).unwrap(), None);
        store
            .set_project_system_prompt(&project.id, Some("  Answer in British English.\n"))
            .unwrap();
        assert_eq!(
            store.project_system_prompt(&project.id).unwrap().as_deref(),
            Some("Answer in British English.")
        );
        store
            .set_project_system_prompt(&project.id, Some("   "))
            .unwrap();
        assert_eq!(store.project_system_prompt(&project.id).unwrap(), None);
        assert!(store.set_project_system_prompt("nope", Some("x")).is_err());
    }
}
