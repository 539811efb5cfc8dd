-- Schema 8: a project's own system-prompt text, added after Arbor's prompt in every chat the
-- desktop opens in it (the desktop's `--append-system-prompt`). Kept in the data folder, never
-- in the project: a cloned repository cannot set it.
ALTER TABLE projects ADD COLUMN system_prompt TEXT;
