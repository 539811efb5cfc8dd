-- MCP: a project's servers (from its .mcp.json) the user approved, pinned to their
-- definition's hash, with the definition kept to show a later change as a diff; a project's
-- servers switched off; and each server's approved tools (`scope` is 'user' for the user's
-- servers, else the project's id), the reviewed JSON kept so a later change can be shown as a
-- diff and the tool offered without starting its server.
CREATE TABLE mcp_approved_servers (
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    hash         TEXT NOT NULL,
    definition   TEXT NOT NULL,
    approved_at  INTEGER NOT NULL,
    PRIMARY KEY (project_id, name)
);
CREATE TABLE mcp_disabled_servers (
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    PRIMARY KEY (project_id, name)
);
CREATE TABLE mcp_approved_tools (
    scope        TEXT NOT NULL,
    server       TEXT NOT NULL,
    tool         TEXT NOT NULL,
    spec         TEXT NOT NULL,
    approved_at  INTEGER NOT NULL,
    PRIMARY KEY (scope, server, tool)
);
