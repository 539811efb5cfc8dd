//! Rules in the form users know from Claude Code: `Bash(cargo test *)`, `Bash(git push)`,
//! `Read(~/.config/**)`, `Edit(src/**)`, `Write(/tmp/out/*)`, `Net(*)`, `Mcp(server:tool)`, or a
//! bare tool name (`Bash`, `js`) for every call of that tool.
//!
//! - `Bash(…)`: the specifier's words against a simple command's words (see [`crate::shell`]);
//!   a word `*` stands for any number of words (none too), a `*` inside a word for any
//!   characters of that word; `npm run test:*` (the older form) is `npm run test *`.
//! - `Read`, `Edit`, `Write`: a path glob (`*` within a folder, `**` across folders); `~/` is the
//!   home folder, `/…` (or `//…`) an absolute path, anything else is relative to the project.
//!   `Read` covers `read`, `ls`, `grep` and `find`; `Edit` covers every change to a file
//!   (`edit` and `write`); `Write` covers `write` only.
//! - `Net(host)` matches the network a command asks for (`Net(*)`: any).
//! - `Mcp(server:tool)`, `Mcp(server:*)`: an MCP server's tools.

use std::fmt;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use crate::shell::Word;

/// What a rule is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleTool {
    Bash,
    Read,
    Edit,
    Write,
    Net,
    Mcp,
    /// Any other tool, by name (`js`, a model tool, `mcp__server__tool`).
    Named(String),
}

impl RuleTool {
    fn name(&self) -> &str {
        match self {
            RuleTool::Bash => "Bash",
            RuleTool::Read => "Read",
            RuleTool::Edit => "Edit",
            RuleTool::Write => "Write",
            RuleTool::Net => "Net",
            RuleTool::Mcp => "Mcp",
            RuleTool::Named(name) => name,
        }
    }
}

/// A parsed rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub tool: RuleTool,
    /// `None`: every call of the tool.
    pub specifier: Option<String>,
}

/// A rule that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{rule}` is not a permission rule: {problem}. Rules look like `Bash(cargo test *)`, `Read(~/.config/**)`, `Edit(src/**)`, `Net(*)` or a tool's name.")]
pub struct RuleError {
    pub rule: String,
    pub problem: String,
}

impl RuleError {
    pub fn code(&self) -> arbor_error_code::ErrorCode {
        arbor_error_code::ErrorCode::InvalidRule
    }
}

impl Rule {
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let text = text.trim();
        let error = |problem: &str| RuleError {
            rule: text.to_owned(),
            problem: problem.to_owned(),
        };
        let (name, specifier) = match text.find('(') {
            Some(open) => {
                let Some(inner) = text[open + 1..].strip_suffix(')') else {
                    return Err(error("it opens `(` but does not end with `)`"));
                };
                let inner = inner.trim();
                if inner.is_empty() {
                    return Err(error("the part in parentheses is empty"));
                }
                (&text[..open], Some(inner.to_owned()))
            }
            None => (text, None),
        };
        if name.is_empty() {
            return Err(error("it names no tool"));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(error("a tool's name has only letters, digits, `_` and `-`"));
        }
        let tool = match name {
            "Bash" => RuleTool::Bash,
            "Read" => RuleTool::Read,
            "Edit" => RuleTool::Edit,
            "Write" => RuleTool::Write,
            "Net" => RuleTool::Net,
            "Mcp" => RuleTool::Mcp,
            other => {
                if specifier.is_some() {
                    return Err(error(
                        "only Bash, Read, Edit, Write, Net and Mcp take a part in parentheses",
                    ));
                }
                RuleTool::Named(other.to_owned())
            }
        };
        if let (RuleTool::Read | RuleTool::Edit | RuleTool::Write, Some(glob)) = (&tool, &specifier)
        {
            compile_glob(glob, Path::new("/"))
                .map_err(|problem| error(&format!("the path pattern is not valid ({problem})")))?;
        }
        Ok(Rule { tool, specifier })
    }

    /// Whether this rule is about file reads, writes or commands (for the checks below).
    pub fn is_bash(&self) -> bool {
        self.tool == RuleTool::Bash
    }

    /// Whether the rule covers a simple command with these words.
    pub fn matches_command(&self, words: &[Word]) -> bool {
        if self.tool != RuleTool::Bash {
            return false;
        }
        match &self.specifier {
            None => true,
            Some(spec) => {
                let tokens = pattern_tokens(spec);
                // `/bin/rm` is `rm` to a rule that names no folder.
                let named = match (tokens.first(), words.split_first()) {
                    (Some(token), Some((first, rest))) if !token.contains('/') => {
                        let mut words = Vec::with_capacity(words.len());
                        words.push(Word {
                            text: crate::shell::program_name(&first.text).to_owned(),
                            pattern: first.pattern,
                        });
                        words.extend(rest.iter().cloned());
                        words
                    }
                    _ => words.to_vec(),
                };
                command_pattern_matches(&tokens, &named)
            }
        }
    }

    /// Whether the rule covers `access` to `path` (absolute, links resolved).
    pub fn matches_path(&self, access: FileAccess, path: &Path, project: &Path) -> bool {
        let applies = matches!(
            (&self.tool, access),
            (RuleTool::Read, FileAccess::Read)
                | (RuleTool::Edit, FileAccess::Edit | FileAccess::Write)
                | (RuleTool::Write, FileAccess::Write)
        );
        if !applies {
            return false;
        }
        match &self.specifier {
            None => true,
            Some(glob) => match compile_glob(glob, project) {
                // A literal path covers what is inside it (`Read(~/.ssh)`); a pattern says
                // itself how deep it goes (`/tmp/out/*` is one level).
                Ok(matcher) => {
                    matcher.is_match(path)
                        || (!glob.contains(['*', '?', '[', '{'])
                            && path.ancestors().skip(1).any(|a| matcher.is_match(a)))
                }
                Err(_) => false,
            },
        }
    }

    /// Whether the rule covers a call of the tool `name` (bare rules and `Mcp(…)`).
    pub fn matches_tool(&self, name: &str) -> bool {
        match &self.tool {
            RuleTool::Named(rule_name) => rule_name == name,
            RuleTool::Mcp => {
                let Some(rest) = name.strip_prefix("mcp__") else {
                    return false;
                };
                let Some((server, tool)) = rest.split_once("__") else {
                    return false;
                };
                match self.specifier.as_deref() {
                    None => true,
                    Some(spec) => match spec.split_once(':') {
                        Some((s, "*")) => s == server,
                        Some((s, t)) => s == server && t == tool,
                        None => spec == server,
                    },
                }
            }
            _ => false,
        }
    }

    /// Whether the rule is about network access (`Net(…)`; a command's request for network
    /// names no host, so every `Net` rule covers it).
    pub fn matches_network(&self) -> bool {
        self.tool == RuleTool::Net
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.specifier {
            Some(spec) => write!(f, "{}({spec})", self.tool.name()),
            None => write!(f, "{}", self.tool.name()),
        }
    }
}

/// How a file tool touches a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAccess {
    Read,
    /// Changes part of a file (`edit`).
    Edit,
    /// Creates or replaces a file (`write`).
    Write,
}

impl FileAccess {
    pub fn writes(self) -> bool {
        self != FileAccess::Read
    }
}

/// A `Bash` specifier as tokens; `test:*` at the end is the older prefix form.
fn pattern_tokens(spec: &str) -> Vec<String> {
    let mut tokens: Vec<String> = spec.split_whitespace().map(str::to_owned).collect();
    if let Some(last) = tokens.last_mut() {
        if let Some(stem) = last.strip_suffix(":*") {
            let stem = stem.to_owned();
            if stem.is_empty() {
                *last = "*".into();
            } else {
                *last = stem;
                tokens.push("*".into());
            }
        }
    }
    tokens
}

fn command_pattern_matches(tokens: &[String], words: &[Word]) -> bool {
    match tokens.split_first() {
        None => words.is_empty(),
        Some((token, rest)) if token == "*" => {
            (0..=words.len()).any(|skip| command_pattern_matches(rest, &words[skip..]))
        }
        Some((token, rest)) => match words.split_first() {
            Some((word, more)) => {
                // A word the shell expands as a pattern is only covered by `*`.
                !word.pattern
                    && word_matches(token, &word.text)
                    && command_pattern_matches(rest, more)
            }
            None => false,
        },
    }
}

/// One token against one word: `*` inside the token matches any characters.
fn word_matches(token: &str, word: &str) -> bool {
    if !token.contains('*') {
        return token == word;
    }
    let pieces: Vec<&str> = token.split('*').collect();
    let mut rest = word;
    for (index, piece) in pieces.iter().enumerate() {
        if index == 0 {
            match rest.strip_prefix(piece) {
                Some(after) => rest = after,
                None => return false,
            }
        } else if index == pieces.len() - 1 {
            return rest.ends_with(piece);
        } else {
            match rest.find(piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
    }
    true
}

/// A path pattern made absolute: `~/` → home, `//x` and `/x` absolute, else under `project`.
pub fn pattern_path(glob: &str, project: &Path) -> PathBuf {
    if let Some(rest) = glob.strip_prefix("~/") {
        if let Some(home) = dirs::home_dir() {
            return home.join(rest);
        }
    }
    if glob == "~" {
        if let Some(home) = dirs::home_dir() {
            return home;
        }
    }
    if let Some(rest) = glob.strip_prefix("//") {
        return PathBuf::from(format!("/{rest}"));
    }
    if glob.starts_with('/') {
        return PathBuf::from(glob);
    }
    project.join(glob.strip_prefix("./").unwrap_or(glob))
}

fn compile_glob(glob: &str, project: &Path) -> Result<GlobMatcher, globset::Error> {
    let absolute = pattern_path(glob, project);
    GlobBuilder::new(&absolute.to_string_lossy())
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::{split, CommandPart};

    fn words(command: &str) -> Vec<Word> {
        match split(command).remove(0) {
            CommandPart::Simple { words, .. } => words,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rules_parse_and_print_back() {
        for text in [
            "Bash(cargo test *)",
            "Bash",
            "Read(~/.config/**)",
            "Edit(src/**)",
            "Net(*)",
            "Mcp(github:*)",
            "js",
        ] {
            assert_eq!(Rule::parse(text).unwrap().to_string(), text);
        }
        for bad in ["", "Bash(", "Bash()", "(x)", "js(x)", "Ba sh", "Read([)"] {
            let error = Rule::parse(bad).unwrap_err();
            assert!(
                error.to_string().contains("is not a permission rule"),
                "{error}"
            );
        }
    }

    #[test]
    fn bash_rules_match_words_not_strings() {
        let rule = Rule::parse("Bash(cargo test *)").unwrap();
        assert!(rule.matches_command(&words("cargo test")));
        assert!(rule.matches_command(&words("cargo test --workspace -p x")));
        assert!(rule.matches_command(&words("'cargo' \"test\" x")));
        assert!(!rule.matches_command(&words("cargo testx")));
        assert!(!rule.matches_command(&words("cargo build")));
        let exact = Rule::parse("Bash(git push)").unwrap();
        assert!(exact.matches_command(&words("git push")));
        assert!(!exact.matches_command(&words("git push --force")));
        let old = Rule::parse("Bash(npm run test:*)").unwrap();
        assert!(old.matches_command(&words("npm run test -- --watch")));
        assert!(!old.matches_command(&words("npm run build")));
        let inner = Rule::parse("Bash(ls *.rs)").unwrap();
        assert!(inner.matches_command(&words("ls 'main.rs'")));
        // An unquoted glob the shell expands is covered only by a `*` word.
        assert!(!inner.matches_command(&words("ls *.rs")));
        assert!(Rule::parse("Bash(ls *)")
            .unwrap()
            .matches_command(&words("ls *.rs")));
    }

    #[test]
    fn path_rules_resolve_home_and_project() {
        let project = Path::new("/work/p");
        let edit = Rule::parse("Edit(src/**)").unwrap();
        assert!(edit.matches_path(FileAccess::Edit, Path::new("/work/p/src/a/b.rs"), project));
        assert!(edit.matches_path(FileAccess::Write, Path::new("/work/p/src/a.rs"), project));
        assert!(!edit.matches_path(FileAccess::Read, Path::new("/work/p/src/a.rs"), project));
        assert!(!edit.matches_path(FileAccess::Edit, Path::new("/work/p/tests/a.rs"), project));
        let one_level = Rule::parse("Write(/tmp/out/*)").unwrap();
        assert!(one_level.matches_path(FileAccess::Write, Path::new("/tmp/out/a"), project));
        assert!(!one_level.matches_path(FileAccess::Edit, Path::new("/tmp/out/a"), project));
        assert!(!one_level.matches_path(FileAccess::Write, Path::new("/tmp/out/a/b"), project));
        if let Some(home) = dirs::home_dir() {
            let read = Rule::parse("Read(~/.ssh)").unwrap();
            // A folder's rule covers what is inside it.
            assert!(read.matches_path(FileAccess::Read, &home.join(".ssh/id_ed25519"), project));
        }
    }

    #[test]
    fn mcp_and_named_rules() {
        let server = Rule::parse("Mcp(github:*)").unwrap();
        assert!(server.matches_tool("mcp__github__create_issue"));
        assert!(!server.matches_tool("mcp__gitlab__create_issue"));
        let one = Rule::parse("Mcp(github:search)").unwrap();
        assert!(one.matches_tool("mcp__github__search"));
        assert!(!one.matches_tool("mcp__github__delete"));
        assert!(Rule::parse("js").unwrap().matches_tool("js"));
        assert!(!Rule::parse("js").unwrap().matches_tool("bash"));
    }
}
