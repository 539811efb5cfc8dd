-- Schema 7: worktrees. A worktree's folder is a project row of its own (its sessions, code
-- state and tool history work as any folder's); this table ties it to the project it was made
-- from. `archived_snapshot` is the code-state snapshot its folder was archived in (NULL while
-- the folder is there). `approved_setups` pins the worktree setup commands (`.arbor/worktree.toml`)
-- the user approved, by the hash of the command, per project.
CREATE TABLE worktrees (
    project_id         TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    main_project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name               TEXT NOT NULL,
    branch             TEXT NOT NULL,
    base_branch        TEXT NOT NULL,
    base_commit        TEXT NOT NULL,
    archived_snapshot  TEXT,
    archived_at        INTEGER,
    created_at         INTEGER NOT NULL,
    UNIQUE (main_project_id, name)
);
CREATE TABLE approved_setups (
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    hash         TEXT NOT NULL,
    approved_at  INTEGER NOT NULL,
    PRIMARY KEY (project_id, hash)
);
