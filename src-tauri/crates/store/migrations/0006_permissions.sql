-- Schema 6: permissions per project. `permission_mode` is `read-only`, `workspace` or `full`
-- (NULL: the default for how the project came — workspace, or read-only while untrusted);
-- `trusted` is 0 for a repository cloned from a URL until the user trusts it. Rules saved for
-- the project ("Always allow" in the dialog, or added in the settings) are one row each.
ALTER TABLE projects ADD COLUMN permission_mode TEXT
    CHECK (permission_mode IN ('read-only', 'workspace', 'full'));
ALTER TABLE projects ADD COLUMN trusted INTEGER NOT NULL DEFAULT 1;
CREATE TABLE permission_rules (
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    effect      TEXT NOT NULL CHECK (effect IN ('deny', 'ask', 'allow')),
    rule        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (project_id, effect, rule)
);
