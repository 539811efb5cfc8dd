//! MCP approvals: a project's servers approved (pinned to their definition), a project's
//! servers switched off, and the tools approved of each server.

use rusqlite::{params, OptionalExtension};

use crate::db::Store;
use crate::error::Result;
use crate::ids::now_ms;

/// The scope of a user's servers' tool approvals (shared by every project).
pub const USER_SCOPE: &str = "user";

/// A project server's approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovedServer {
    pub hash: String,
    /// The definition as it was reviewed.
    pub definition: String,
}

impl Store {
    /// Pins `name`'s definition (its `hash` and reviewed text) for the project; replaces an
    /// earlier approval of that name.
    pub fn approve_mcp_server(
        &self,
        project_id: &str,
        name: &str,
        hash: &str,
        definition: &str,
    ) -> Result<()> {
        self.write(|c| {
            c.execute(
                "INSERT OR REPLACE INTO mcp_approved_servers
                 (project_id, name, hash, definition, approved_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![project_id, name, hash, definition, now_ms()],
            )?;
            Ok(())
        })
    }

    /// The approval of the project's server `name`, whatever definition it pinned.
    pub fn approved_mcp_server(
        &self,
        project_id: &str,
        name: &str,
    ) -> Result<Option<ApprovedServer>> {
        Ok(self
            .conn
            .query_row(
                "SELECT hash, definition FROM mcp_approved_servers WHERE project_id = ?1 AND name = ?2",
                params![project_id, name],
                |row| {
                    Ok(ApprovedServer {
                        hash: row.get(0)?,
                        definition: row.get(1)?,
                    })
                },
            )
            .optional()?)
    }

    /// Switches the project's server `name` off (or on again).
    pub fn set_mcp_server_disabled(
        &self,
        project_id: &str,
        name: &str,
        disabled: bool,
    ) -> Result<()> {
        self.write(|c| {
            if disabled {
                c.execute(
                    "INSERT OR IGNORE INTO mcp_disabled_servers (project_id, name) VALUES (?1, ?2)",
                    params![project_id, name],
                )?;
            } else {
                c.execute(
                    "DELETE FROM mcp_disabled_servers WHERE project_id = ?1 AND name = ?2",
                    params![project_id, name],
                )?;
            }
            Ok(())
        })
    }

    /// The project's servers switched off.
    pub fn disabled_mcp_servers(&self, project_id: &str) -> Result<Vec<String>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT name FROM mcp_disabled_servers WHERE project_id = ?1 ORDER BY name",
        )?;
        let names = statement
            .query_map(params![project_id], |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(names)
    }

    /// Replaces the approved tools of `server` in `scope` by `tools` (`(name, reviewed
    /// JSON)`), in one transaction: a tool left out is no longer approved.
    pub fn approve_mcp_tools(
        &self,
        scope: &str,
        server: &str,
        tools: &[(String, String)],
    ) -> Result<()> {
        self.write(|c| {
            c.execute(
                "DELETE FROM mcp_approved_tools WHERE scope = ?1 AND server = ?2",
                params![scope, server],
            )?;
            let at = now_ms();
            for (tool, spec) in tools {
                c.execute(
                    "INSERT INTO mcp_approved_tools (scope, server, tool, spec, approved_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![scope, server, tool, spec, at],
                )?;
            }
            Ok(())
        })
    }

    /// The approved tools of `server` in `scope`, as `(name, reviewed JSON)`, by name.
    pub fn approved_mcp_tools(&self, scope: &str, server: &str) -> Result<Vec<(String, String)>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT tool, spec FROM mcp_approved_tools WHERE scope = ?1 AND server = ?2 ORDER BY tool",
        )?;
        let tools = statement
            .query_map(params![scope, server], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(String, String)>>>()?;
        Ok(tools)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_pinned_switched_off_and_tools_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let project = store.open_project(dir.path(), None).unwrap();
        assert_eq!(store.approved_mcp_server(&project.id, "git").unwrap(), None);
        store
            .approve_mcp_server(&project.id, "git", "h1", "{}")
            .unwrap();
        store
            .approve_mcp_server(&project.id, "git", "h2", "{\"a\":1}")
            .unwrap();
        let approved = store
            .approved_mcp_server(&project.id, "git")
            .unwrap()
            .unwrap();
        assert_eq!(
            (approved.hash.as_str(), approved.definition.as_str()),
            ("h2", "{\"a\":1}")
        );

        store
            .set_mcp_server_disabled(&project.id, "git", true)
            .unwrap();
        store
            .set_mcp_server_disabled(&project.id, "git", true)
            .unwrap();
        assert_eq!(store.disabled_mcp_servers(&project.id).unwrap(), ["git"]);
        store
            .set_mcp_server_disabled(&project.id, "git", false)
            .unwrap();
        assert!(store.disabled_mcp_servers(&project.id).unwrap().is_empty());

        let tools = vec![
            ("a".to_owned(), "A".to_owned()),
            ("b".to_owned(), "B".to_owned()),
        ];
        store.approve_mcp_tools(USER_SCOPE, "git", &tools).unwrap();
        assert_eq!(store.approved_mcp_tools(USER_SCOPE, "git").unwrap(), tools);
        store
            .approve_mcp_tools(USER_SCOPE, "git", &tools[1..])
            .unwrap();
        assert_eq!(
            store.approved_mcp_tools(USER_SCOPE, "git").unwrap(),
            &tools[1..]
        );
        assert!(store
            .approved_mcp_tools(&project.id, "git")
            .unwrap()
            .is_empty());
    }
}
