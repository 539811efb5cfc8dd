//! The system prompt: who the agent is, its tools with short guidance, the project's context files
//! (`AGENTS.md`, or `CLAUDE.md`, from the working directory and its parents), then the date and
//! working directory.

use std::path::{Path, PathBuf};

/// A context file found for the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    pub path: PathBuf,
    pub content: String,
}

/// What goes into the prompt.
#[derive(Debug, Clone, Default)]
pub struct SystemPromptOptions {
    /// Names of the active tools, in order. Built-in ones get guidance; others are listed.
    pub tools: Vec<String>,
    /// Replaces the base prompt (identity, tools, guidelines) when set; context files, the appended
    /// text, date and working directory still follow.
    pub custom_prompt: Option<String>,
    /// Added after the context files.
    pub append: Option<String>,
    /// From [`load_context_files`] (outermost folder first).
    pub context_files: Vec<ContextFile>,
    /// For example `2026-05-01`; a parameter so the prompt is reproducible (see [`today_utc`]).
    pub date: String,
    pub cwd: PathBuf,
}

/// Names read per folder, first found wins (a repository often has both, one a copy of the other).
const CONTEXT_FILE_NAMES: &[&str] = &["AGENTS.md", "CLAUDE.md"];

/// `AGENTS.md` (or else `CLAUDE.md`) from `cwd` and every parent folder, outermost first.
pub fn load_context_files(cwd: &Path) -> Vec<ContextFile> {
    let mut files = Vec::new();
    for folder in cwd.ancestors() {
        for name in CONTEXT_FILE_NAMES {
            let path = folder.join(name);
            if let Ok(content) = std::fs::read_to_string(&path) {
                files.push(ContextFile { path, content });
                break;
            }
        }
    }
    files.reverse();
    files
}

fn tool_guidance(name: &str) -> Option<&'static str> {
    Some(match name {
        "read" => {
            "read a file (numbered lines; page through big files with offset/limit) or an image"
        }
        "write" => "create a file or replace one whole",
        "edit" => {
            "change part of a file by replacing exact text; prefer it to write for existing files"
        }
        "bash" => "run shell commands: build, test, git, anything else",
        "ls" => "list a folder",
        "grep" => "search file contents by regex (respects .gitignore)",
        "find" => "find files by glob (respects .gitignore)",
        "todo" => "keep the task's checklist, shown to the user; the whole list each time",
        "js" => {
            "run JavaScript in a sandbox whose file helpers (read, write, ls, grep, find) stay \
             inside the project: processing data, changing many files at once"
        }
        "create_tool" => {
            "propose a reusable tool (a SKILL.md and a script) for the user to approve; once \
             approved it is offered like the others"
        }
        _ => return None,
    })
}

fn base_prompt(tools: &[String]) -> String {
    let mut prompt = String::from("You are Arbor, a coding agent working in the user's project.");
    if tools.is_empty() {
        prompt.push_str("\n\nNo tools are available in this session: answer from what you know.\n");
        return prompt;
    }
    prompt.push_str(
        " You read, search, edit and run code with the tools below, and you finish the task the \
         user gives you.\n\nAvailable tools:\n",
    );
    for name in tools {
        match tool_guidance(name) {
            Some(guidance) => prompt.push_str(&format!("- {name}: {guidance}\n")),
            None => prompt.push_str(&format!("- {name}\n")),
        }
    }
    let has = |name: &str| tools.iter().any(|tool| tool == name);
    let mut guidelines = Vec::new();
    if has("read") && has("edit") {
        guidelines.push("Read a file before you edit it, and copy old_text exactly from it.");
    }
    if has("grep") || has("find") {
        guidelines.push("Use grep and find to explore instead of bash with grep, find or ls.");
    } else if has("bash") {
        guidelines.push("Use bash (grep, find, ls) to explore the project.");
    }
    if has("edit") || has("write") {
        guidelines.push("Keep changes small and focused; match the surrounding code's style.");
    }
    if has("bash") {
        guidelines.push("Run the project's tests or build after a change when you can.");
    }
    guidelines.push("Be concise. Show file paths clearly when you mention files.");
    prompt.push_str("\nGuidelines:\n");
    for guideline in guidelines {
        prompt.push_str(&format!("- {guideline}\n"));
    }
    prompt
}

/// Builds the system prompt.
pub fn build_system_prompt(options: &SystemPromptOptions) -> String {
    let mut prompt = match &options.custom_prompt {
        Some(custom) => custom.trim_end().to_string() + "\n",
        None => base_prompt(&options.tools),
    };
    if !options.context_files.is_empty() {
        prompt.push_str("\n# Project context\n\nInstructions from the project's context files:\n");
        for file in &options.context_files {
            prompt.push_str(&format!(
                "\n## {}\n\n{}\n",
                file.path.display(),
                file.content.trim_end()
            ));
        }
    }
    if let Some(append) = &options.append {
        prompt.push('\n');
        prompt.push_str(append.trim_end());
        prompt.push('\n');
    }
    prompt.push_str(&format!(
        "\nCurrent date: {}\nCurrent working directory: {}",
        options.date,
        options.cwd.display()
    ));
    prompt
}

/// Today's date in UTC as `YYYY-MM-DD`.
pub fn today_utc() -> String {
    let today = time::OffsetDateTime::now_utc().date();
    format!(
        "{:04}-{:02}-{:02}",
        today.year(),
        u8::from(today.month()),
        today.day()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_a_utc_date() {
        let today = today_utc();
        let parts: Vec<&str> = today.split('-').collect();
        assert_eq!(parts.len(), 3, "{today}");
        assert!(parts[0].parse::<u32>().unwrap() >= 2024, "{today}");
        assert!(
            (1..=12).contains(&parts[1].parse::<u32>().unwrap()),
            "{today}"
        );
        assert!(
            (1..=31).contains(&parts[2].parse::<u32>().unwrap()),
            "{today}"
        );
    }
}
