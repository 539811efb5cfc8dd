//! A `bash` command line split into the simple commands a rule can judge, with a real shell
//! parser (`brush-parser`), never as a raw string.
//!
//! `a && b`, `a | b`, `a; b` and `a & b` become one part each. Whatever a rule cannot see
//! through becomes an **opaque** part that no allow rule covers: compound commands (subshells,
//! `if`, loops, functions), command and process substitutions, parameter and arithmetic
//! expansions, here-documents, redirections to files (other than `/dev/null` and descriptor
//! copies), `eval`/`source`/`exec`, `xargs`, `find -exec`, a shell or an interpreter given code
//! with `-c`/`-e`, and `git -c`. Known wrappers (`env X=1`, `timeout 5`, `nice -n 5`, `nohup`,
//! `time`, `command`) are unwrapped so the rule sees the command they run; variable
//! assignments in front of a command are dropped the same way.

use brush_parser::ast::{
    Command, CommandPrefixOrSuffixItem, IoFileRedirectTarget, IoRedirect, Pipeline, SimpleCommand,
};
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};

/// One part of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandPart {
    /// A simple command whose words are known exactly (quotes removed, wrappers unwrapped).
    Simple {
        /// The command as written (normalised by the parser's printer).
        text: String,
        words: Vec<Word>,
    },
    /// Something a rule cannot see through: it always needs an answer.
    Opaque { text: String, why: String },
}

impl CommandPart {
    pub fn text(&self) -> &str {
        match self {
            CommandPart::Simple { text, .. } | CommandPart::Opaque { text, .. } => text,
        }
    }
}

/// A word of a simple command after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// Holds an unquoted `*`, `?` or `[`: the shell expands it, so only a `*` in a rule
    /// (any words) covers it.
    pub pattern: bool,
}

/// Splits `command` into its parts. A line the parser rejects is one opaque part.
pub fn split(command: &str) -> Vec<CommandPart> {
    let options = ParserOptions::default();
    let mut parser = Parser::new(command.as_bytes(), &options);
    let program = match parser.parse_program() {
        Ok(program) => program,
        Err(error) => {
            return vec![CommandPart::Opaque {
                text: command.to_owned(),
                why: format!("the shell parser did not understand it ({error})"),
            }]
        }
    };
    let mut parts = Vec::new();
    for complete in &program.complete_commands {
        for item in &complete.0 {
            let and_or = &item.0;
            pipeline_parts(&and_or.first, &options, &mut parts);
            for next in &and_or.additional {
                let pipeline = match next {
                    brush_parser::ast::AndOr::And(p) | brush_parser::ast::AndOr::Or(p) => p,
                };
                pipeline_parts(pipeline, &options, &mut parts);
            }
        }
    }
    parts
}

fn pipeline_parts(pipeline: &Pipeline, options: &ParserOptions, parts: &mut Vec<CommandPart>) {
    for command in &pipeline.seq {
        match command {
            Command::Simple(simple) => parts.push(simple_part(simple, options)),
            Command::Compound(..) => parts.push(opaque(
                command,
                "a compound command (subshell, group, `if`, loop or `case`)",
            )),
            Command::Function(..) => parts.push(opaque(command, "a function definition")),
            Command::ExtendedTest(..) => parts.push(opaque(command, "a `[[ … ]]` test")),
        }
    }
}

fn opaque(command: &impl std::fmt::Display, why: &str) -> CommandPart {
    CommandPart::Opaque {
        text: command.to_string(),
        why: why.to_owned(),
    }
}

fn simple_part(simple: &SimpleCommand, options: &ParserOptions) -> CommandPart {
    let text = simple.to_string();
    match simple_words(simple, options) {
        Ok(words) => match unwrap_wrappers(words) {
            Ok(words) => CommandPart::Simple { text, words },
            Err(why) => CommandPart::Opaque { text, why },
        },
        Err(why) => CommandPart::Opaque { text, why },
    }
}

/// The command's words, or why it cannot be known.
fn simple_words(simple: &SimpleCommand, options: &ParserOptions) -> Result<Vec<Word>, String> {
    let mut words = Vec::new();
    let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
    let suffix = simple.suffix.iter().flat_map(|s| s.0.iter());
    for item in prefix {
        match item {
            // `X=1 cmd`: the assignment only sets the command's environment.
            CommandPrefixOrSuffixItem::AssignmentWord(..) => {}
            other => check_item(other, options, &mut words)?,
        }
    }
    if let Some(name) = &simple.word_or_name {
        words.push(word(&name.value, options)?);
    }
    for item in suffix {
        check_item(item, options, &mut words)?;
    }
    Ok(words)
}

fn check_item(
    item: &CommandPrefixOrSuffixItem,
    options: &ParserOptions,
    words: &mut Vec<Word>,
) -> Result<(), String> {
    match item {
        CommandPrefixOrSuffixItem::Word(w) => {
            words.push(word(&w.value, options)?);
            Ok(())
        }
        CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
            // `declare X=1`, `export X=$(…)`: an argument like any other.
            words.push(word(&w.value, options)?);
            Ok(())
        }
        CommandPrefixOrSuffixItem::IoRedirect(redirect) => check_redirect(redirect, options),
        CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
            Err("a process substitution `<(…)` runs another command".into())
        }
    }
}

fn check_redirect(redirect: &IoRedirect, options: &ParserOptions) -> Result<(), String> {
    match redirect {
        IoRedirect::File(_, _, IoFileRedirectTarget::Fd(_))
        | IoRedirect::File(_, _, IoFileRedirectTarget::Duplicate(_)) => Ok(()),
        IoRedirect::File(_, _, IoFileRedirectTarget::Filename(target))
        | IoRedirect::OutputAndError(target, _) => {
            let target = word(&target.value, options)?;
            if target.text == "/dev/null" && !target.pattern {
                Ok(())
            } else {
                Err(format!(
                    "redirects to the file `{}`, which a rule for the command does not cover",
                    target.text
                ))
            }
        }
        IoRedirect::File(_, _, IoFileRedirectTarget::ProcessSubstitution(..)) => {
            Err("a process substitution `>(…)` runs another command".into())
        }
        IoRedirect::HereDocument(..) | IoRedirect::HereString(..) => {
            Err("a here-document feeds it input a rule cannot see".into())
        }
    }
}

/// One word with its quotes removed, or why it cannot be known before the shell runs.
fn word(raw: &str, options: &ParserOptions) -> Result<Word, String> {
    let pieces = brush_parser::word::parse(raw, options)
        .map_err(|error| format!("the word `{raw}` could not be parsed ({error})"))?;
    let mut text = String::new();
    let mut pattern = false;
    for piece in &pieces {
        push_piece(piece, raw, &mut text, &mut pattern, false)?;
    }
    Ok(Word { text, pattern })
}

fn push_piece(
    piece: &WordPieceWithSource,
    raw: &str,
    text: &mut String,
    pattern: &mut bool,
    quoted: bool,
) -> Result<(), String> {
    match &piece.piece {
        WordPiece::Text(t) => {
            if !quoted && t.contains(['*', '?', '[']) {
                *pattern = true;
            }
            text.push_str(t);
        }
        WordPiece::SingleQuotedText(t) => text.push_str(t),
        WordPiece::EscapeSequence(t) => text.push_str(t.strip_prefix('\\').unwrap_or(t)),
        WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
            for piece in inner {
                push_piece(piece, raw, text, pattern, true)?;
            }
        }
        WordPiece::TildeExpansion(brush_parser::word::TildeExpr::Home) => match dirs::home_dir() {
            Some(home) => text.push_str(&home.to_string_lossy()),
            None => return Err("`~` with no home folder".into()),
        },
        WordPiece::TildeExpansion(_) => {
            return Err(format!(
                "`{raw}` names another user's or the shell's folder"
            ))
        }
        WordPiece::AnsiCQuotedText(_) => {
            return Err(format!("`{raw}` is ANSI-C quoted (`$'…'`)"));
        }
        WordPiece::ParameterExpansion(_) => {
            return Err(format!("`{raw}` holds a variable the rule cannot see"));
        }
        WordPiece::CommandSubstitution(_) | WordPiece::BackquotedCommandSubstitution(_) => {
            return Err(format!("`{raw}` runs another command (`$(…)`)"));
        }
        WordPiece::ArithmeticExpression(_) => {
            return Err(format!("`{raw}` holds an arithmetic expansion"));
        }
    }
    Ok(())
}

/// Wrappers that only change how the command they name runs.
fn unwrap_wrappers(mut words: Vec<Word>) -> Result<Vec<Word>, String> {
    loop {
        let Some(first) = words.first() else {
            return Ok(words);
        };
        if first.pattern {
            return Err("the command's name is a pattern".into());
        }
        let name = program_name(&first.text);
        let skip = match name {
            "env" => skip_env(&words)?,
            "timeout" => skip_options_then(&words, 1, &["-s", "--signal", "-k", "--kill-after"])?,
            "nice" => skip_options_then(&words, 0, &["-n", "--adjustment"])?,
            "nohup" | "time" | "command" | "builtin" => skip_options_then(&words, 0, &[])?,
            "stdbuf" => skip_options_then(&words, 0, &["-i", "-o", "-e"])?,
            _ => {
                check_runner(&words)?;
                return Ok(words);
            }
        };
        if skip >= words.len() {
            // `env` alone prints the environment; `time` alone does nothing: keep them.
            return Ok(words);
        }
        words.drain(..skip);
    }
}

/// `env [-i] [-u NAME] [NAME=VALUE]… command`: how many words to drop.
fn skip_env(words: &[Word]) -> Result<usize, String> {
    let mut index = 1;
    while let Some(word) = words.get(index) {
        let text = word.text.as_str();
        if text == "-u" || text == "--unset" || text == "-C" || text == "--chdir" {
            index += 2;
        } else if text == "-S" || text.starts_with("--split-string") {
            return Err("`env -S` splits a string into a command".into());
        } else if text.starts_with('-') || text.contains('=') {
            index += 1;
        } else {
            break;
        }
    }
    Ok(index)
}

/// Skips `words[0]`, its options (those in `with_value` take the next word) and then
/// `positional` more words.
fn skip_options_then(
    words: &[Word],
    positional: usize,
    with_value: &[&str],
) -> Result<usize, String> {
    let mut index = 1;
    while let Some(word) = words.get(index) {
        let text = word.text.as_str();
        if text == "--" {
            index += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        index += if with_value.contains(&text) { 2 } else { 1 };
    }
    Ok(index + positional)
}

/// `/usr/bin/git` → `git`.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Commands that run other code given as arguments: never covered by a rule for the command.
fn check_runner(words: &[Word]) -> Result<(), String> {
    let Some(first) = words.first() else {
        return Ok(());
    };
    let name = program_name(&first.text);
    let args = || words.iter().skip(1).map(|w| w.text.as_str());
    match name {
        "eval" | "source" | "." | "exec" | "xargs" | "parallel" | "trap" => {
            Err(format!("`{name}` runs a command given as its arguments"))
        }
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "csh" | "tcsh" | "busybox"
            if args().any(|a| {
                a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
            }) =>
        {
            Err(format!("`{name} -c` runs a script given as an argument"))
        }
        "find"
            if args().any(|a| {
                matches!(
                    a,
                    "-exec"
                        | "-execdir"
                        | "-ok"
                        | "-okdir"
                        | "-delete"
                        | "-fprint"
                        | "-fprintf"
                        | "-fls"
                )
            }) =>
        {
            Err("`find -exec` (or `-delete`, `-fprint`) runs commands or writes files".into())
        }
        "git"
            if args().take_while(|a| a.starts_with('-')).any(|a| {
                a == "-c" || a.starts_with("--config-env") || a.starts_with("--exec-path")
            }) =>
        {
            Err("`git -c` can set options that run commands".into())
        }
        "awk" | "gawk" | "mawk" | "nawk" => Err(format!(
            "`{name}` runs its program (which can start commands)"
        )),
        _ if is_interpreter(name) && args().any(is_code_flag) => {
            Err(format!("`{name}` runs code given as an argument"))
        }
        _ => Ok(()),
    }
}

fn is_interpreter(name: &str) -> bool {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    matches!(
        base,
        "python"
            | "node"
            | "nodejs"
            | "deno"
            | "bun"
            | "perl"
            | "ruby"
            | "php"
            | "lua"
            | "luajit"
            | "Rscript"
            | "osascript"
            | "pwsh"
            | "powershell"
            | "tclsh"
    )
}

fn is_code_flag(arg: &str) -> bool {
    matches!(
        arg,
        "-c" | "-e" | "-E" | "-r" | "-p" | "--eval" | "--print" | "eval"
    )
}

#[cfg(test)]
mod tests;
