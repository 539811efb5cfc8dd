//! Worktrees (schema 7): a worktree folder's own project row tied to the project it was made
//! from, and the worktree setup commands a user approved, pinned by hash. Values are kept as
//! text; `arbor-app` gives them meaning.

use std::path::Path;

use rusqlite::{params, OptionalExtension, Row};

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::ids::now_ms;

/// A stored worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeRow {
    /// The worktree folder's own project.
    pub project_id: String,
    /// The worktree's folder (its project's root).
    pub root: String,
    pub main_project_id: String,
    pub name: String,
    pub branch: String,
    pub base_branch: String,
    pub base_commit: String,
    /// The snapshot its folder was archived in; `None` while the folder is there.
    pub archived_snapshot: Option<String>,
    pub archived_at: Option<i64>,
    pub created_at: i64,
}

/// What [`Store::add_worktree`] records.
#[derive(Debug, Clone)]
pub struct NewWorktreeRow<'a> {
    pub main_project_id: &'a str,
    pub root: &'a Path,
    pub name: &'a str,
    pub branch: &'a str,
    pub base_branch: &'a str,
    pub base_commit: &'a str,
}

const COLS: &str = "w.project_id, p.root, w.main_project_id, w.name, w.branch, w.base_branch, \
                    w.base_commit, w.archived_snapshot, w.archived_at, w.created_at";

fn row(r: &Row<'_>) -> rusqlite::Result<WorktreeRow> {
    Ok(WorktreeRow {
        project_id: r.get(0)?,
        root: r.get(1)?,
        main_project_id: r.get(2)?,
        name: r.get(3)?,
        branch: r.get(4)?,
        base_branch: r.get(5)?,
        base_commit: r.get(6)?,
        archived_snapshot: r.get(7)?,
        archived_at: r.get(8)?,
        created_at: r.get(9)?,
    })
}

impl Store {
    /// Records a worktree: its folder becomes a project (found or created) tied to
    /// `main_project_id`. A name already used in that project is refused.
    pub fn add_worktree(&self, new: &NewWorktreeRow<'_>) -> Result<WorktreeRow> {
        let project = self.open_project(new.root, None)?;
        self.write(|c| {
            c.execute(
                "INSERT INTO worktrees (project_id, main_project_id, name, branch, base_branch,
                     base_commit, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    project.id,
                    new.main_project_id,
                    new.name,
                    new.branch,
                    new.base_branch,
                    new.base_commit,
                    now_ms()
                ],
            )
            .map_err(|error| match error {
                rusqlite::Error::SqliteFailure(e, _)
                    if e.code == rusqlite::ErrorCode::ConstraintViolation =>
                {
                    StoreError::InvalidInput(format!(
                        "a worktree named `{}` is already recorded for this project",
                        new.name
                    ))
                }
                other => other.into(),
            })?;
            Ok(())
        })?;
        self.worktree_of_project(&project.id)?
            .ok_or_else(|| StoreError::NotFound {
                kind: "worktree",
                id: new.name.to_owned(),
            })
    }

    /// The worktrees made from a project, oldest first.
    pub fn worktrees(&self, main_project_id: &str) -> Result<Vec<WorktreeRow>> {
        let sql = format!(
            "SELECT {COLS} FROM worktrees w JOIN projects p ON p.id = w.project_id
             WHERE w.main_project_id = ?1 ORDER BY w.created_at, w.name"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map([main_project_id], row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// A project's worktree by name.
    pub fn worktree(&self, main_project_id: &str, name: &str) -> Result<Option<WorktreeRow>> {
        let sql = format!(
            "SELECT {COLS} FROM worktrees w JOIN projects p ON p.id = w.project_id
             WHERE w.main_project_id = ?1 AND w.name = ?2"
        );
        Ok(self
            .conn
            .query_row(&sql, params![main_project_id, name], row)
            .optional()?)
    }

    /// The worktree whose folder is the project `project_id`, if it is one.
    pub fn worktree_of_project(&self, project_id: &str) -> Result<Option<WorktreeRow>> {
        let sql = format!(
            "SELECT {COLS} FROM worktrees w JOIN projects p ON p.id = w.project_id
             WHERE w.project_id = ?1"
        );
        Ok(self.conn.query_row(&sql, [project_id], row).optional()?)
    }

    /// The project whose permissions (mode, trust, rules) hold in `project_id`: the project a
    /// worktree was made from, else the project itself.
    pub fn permissions_owner(&self, project_id: &str) -> Result<String> {
        Ok(self
            .worktree_of_project(project_id)?
            .map_or_else(|| project_id.to_owned(), |w| w.main_project_id))
    }

    /// Marks a worktree archived (its folder kept in `snapshot`; `None`: the folder was gone
    /// already, only its branch is left), or, with `archived` false, its folder back.
    pub fn set_worktree_archived(
        &self,
        project_id: &str,
        archived: bool,
        snapshot: Option<&str>,
    ) -> Result<()> {
        let at = archived.then(now_ms);
        let snapshot = snapshot.filter(|_| archived);
        self.write(|c| {
            let changed = c.execute(
                "UPDATE worktrees SET archived_snapshot = ?2, archived_at = ?3 WHERE project_id = ?1",
                params![project_id, snapshot, at],
            )?;
            if changed == 0 {
                return Err(StoreError::NotFound {
                    kind: "worktree",
                    id: project_id.to_owned(),
                });
            }
            Ok(())
        })
    }

    /// Pins a worktree setup command the user approved for the project.
    pub fn approve_setup(&self, project_id: &str, hash: &str) -> Result<()> {
        self.write(|c| {
            c.execute(
                "INSERT OR IGNORE INTO approved_setups (project_id, hash, approved_at)
                 VALUES (?1, ?2, ?3)",
                params![project_id, hash, now_ms()],
            )?;
            Ok(())
        })
    }

    /// Whether the setup command with `hash` was approved for the project.
    pub fn setup_approved(&self, project_id: &str, hash: &str) -> Result<bool> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM approved_setups WHERE project_id = ?1 AND hash = ?2",
                params![project_id, hash],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_is_recorded_listed_archived_and_its_setup_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let main = dir.path().join("main");
        let wt = dir.path().join("wt");
        std::fs::create_dir_all(&main).unwrap();
        std::fs::create_dir_all(&wt).unwrap();
        let project = store.open_project(&main, None).unwrap();
        let new = NewWorktreeRow {
            main_project_id: &project.id,
            root: &wt,
            name: "one",
            branch: "arbor/one",
            base_branch: "main",
            base_commit: "abc",
        };
        let added = store.add_worktree(&new).unwrap();
        assert_eq!(added.name, "one");
        assert_eq!(added.root, wt.canonicalize().unwrap().to_str().unwrap());
        assert!(store.add_worktree(&new).is_err(), "a name once per project");
        assert_eq!(store.worktrees(&project.id).unwrap(), vec![added.clone()]);
        assert_eq!(
            store.worktree(&project.id, "one").unwrap().as_ref(),
            Some(&added)
        );
        assert_eq!(
            store.worktree_of_project(&added.project_id).unwrap(),
            Some(added.clone())
        );
        assert_eq!(store.worktree_of_project(&project.id).unwrap(), None);
        store
            .set_worktree_archived(&added.project_id, true, Some("tree123"))
            .unwrap();
        let archived = store.worktree(&project.id, "one").unwrap().unwrap();
        assert_eq!(archived.archived_snapshot.as_deref(), Some("tree123"));
        assert!(archived.archived_at.is_some());
        store
            .set_worktree_archived(&added.project_id, false, None)
            .unwrap();
        assert_eq!(
            store
                .worktree(&project.id, "one")
                .unwrap()
                .unwrap()
                .archived_at,
            None
        );
        assert!(!store.setup_approved(&project.id, "h1").unwrap());
        store.approve_setup(&project.id, "h1").unwrap();
        store.approve_setup(&project.id, "h1").unwrap();
        assert!(store.setup_approved(&project.id, "h1").unwrap());
        assert!(!store.setup_approved(&project.id, "h2").unwrap());
    }
}
