//! Projects: one row per project folder.

use std::path::Path;

use rusqlite::{params, OptionalExtension, Row};

use crate::db::Store;
use crate::error::{Result, StoreError};
use crate::ids::{new_id, now_ms, resolve, IdTable};
use crate::model::Project;

const PROJECT_COLS: &str = "id, root, origin_url, created_at, last_opened_at";

fn project_from_row(r: &Row<'_>) -> rusqlite::Result<Project> {
    Ok(Project {
        id: r.get(0)?,
        root: r.get(1)?,
        origin_url: r.get(2)?,
        created_at: r.get(3)?,
        last_opened_at: r.get(4)?,
    })
}

/// The key a folder is stored under: canonical when the folder exists (so `./x` and `/abs/x`
/// are one project), as given otherwise.
fn root_key(root: &Path) -> Result<String> {
    let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    canonical.to_str().map(str::to_string).ok_or_else(|| {
        StoreError::InvalidInput(format!(
            "project path {} is not valid UTF-8; rename the folder",
            root.display()
        ))
    })
}

impl Store {
    /// Finds or creates the project for `root` and marks it opened now. A given `origin_url`
    /// replaces the stored one; `None` keeps it.
    pub fn open_project(&self, root: &Path, origin_url: Option<&str>) -> Result<Project> {
        let key = root_key(root)?;
        if key.is_empty() {
            return Err(StoreError::InvalidInput("project path is empty".into()));
        }
        let now = now_ms();
        self.write(|c| {
            let sql = format!(
                "INSERT INTO projects (id, root, origin_url, created_at, last_opened_at)
                 VALUES (?1, ?2, ?3, ?4, ?4)
                 ON CONFLICT(root) DO UPDATE SET
                     last_opened_at = excluded.last_opened_at,
                     origin_url = coalesce(excluded.origin_url, origin_url)
                 RETURNING {PROJECT_COLS}"
            );
            Ok(c.query_row(
                &sql,
                params![new_id(), key, origin_url, now],
                project_from_row,
            )?)
        })
    }

    /// The project for `root`, if it was ever opened (does not touch `last_opened_at`).
    pub fn find_project(&self, root: &Path) -> Result<Option<Project>> {
        let key = root_key(root)?;
        let sql = format!("SELECT {PROJECT_COLS} FROM projects WHERE root = ?1");
        Ok(self
            .conn
            .query_row(&sql, [key], project_from_row)
            .optional()?)
    }

    /// A project by id or unique id prefix.
    pub fn get_project(&self, id: &str) -> Result<Project> {
        let id = resolve(&self.conn, IdTable::Projects, None, id)?;
        let sql = format!("SELECT {PROJECT_COLS} FROM projects WHERE id = ?1");
        Ok(self.conn.query_row(&sql, [id], project_from_row)?)
    }

    /// All projects, most recently opened first.
    pub fn list_projects(&self) -> Result<Vec<Project>> {
        let sql =
            format!("SELECT {PROJECT_COLS} FROM projects ORDER BY last_opened_at DESC, id DESC");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([], project_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
