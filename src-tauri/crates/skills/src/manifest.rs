//! `SKILL.md`: YAML front matter (`name`, `description`, optional `parameters` as JSON Schema,
//! `entry`, `allowed-tools`, and the Agent Skills fields `license`, `compatibility`,
//! `metadata`) and Markdown instructions. Every invalid field is reported with the file, the
//! line and what to fix — all of them at once, not the first only.

use std::collections::BTreeSet;

use arbor_js::Helper;
pub use arbor_protocol::views::tools::ManifestProblem;
use serde::Serialize;
use serde_json::Value;

/// The file every tool or skill folder has.
pub const SKILL_FILE: &str = "SKILL.md";

/// The Agent Skills limits.
pub const NAME_MAX_CHARS: usize = 64;
pub const DESCRIPTION_MAX_CHARS: usize = 1024;

const KNOWN_FIELDS: [&str; 8] = [
    "name",
    "description",
    "parameters",
    "entry",
    "allowed-tools",
    "license",
    "compatibility",
    "metadata",
];

/// A valid `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillManifest {
    pub name: String,
    pub description: String,
    /// The arguments' JSON Schema (an object schema); `None`: no arguments.
    pub parameters: Option<Value>,
    /// The script run for the tool (a path inside the folder); `None`: an instruction skill.
    pub entry: Option<String>,
    /// The helpers the script may use.
    pub allowed_tools: BTreeSet<Helper>,
    /// The Markdown after the front matter.
    pub instructions: String,
}

impl SkillManifest {
    /// An executable tool (it has an entry script), not an instruction skill.
    pub fn is_executable(&self) -> bool {
        self.entry.is_some()
    }
}

/// Parses `text` (the `SKILL.md` named `file` in messages). `folder` is the folder's name,
/// which `name` must equal; `files` the folder's other files (`entry` must be one of them).
pub fn parse_manifest(
    file: &str,
    text: &str,
    folder: &str,
    files: &BTreeSet<String>,
) -> Result<SkillManifest, Vec<ManifestProblem>> {
    let problem = |line: usize, field: &str, message: String| ManifestProblem {
        file: file.to_owned(),
        line,
        field: field.to_owned(),
        message,
    };
    let Some((front, body, first_line)) = split_front_matter(text) else {
        return Err(vec![problem(
            1,
            "front matter",
            "SKILL.md must start with YAML front matter between two `---` lines (name and \
             description at least)"
                .into(),
        )]);
    };
    let line_of = |field: &str| -> usize {
        front
            .lines()
            .position(|line| {
                line.strip_prefix(field)
                    .is_some_and(|rest| rest.trim_start().starts_with(':'))
            })
            .map_or(first_line, |index| first_line + 1 + index)
    };
    let yaml: serde_norway::Value = match serde_norway::from_str(front) {
        Ok(value) => value,
        Err(error) => {
            let line = error
                .location()
                .map_or(first_line, |l| first_line + l.line());
            return Err(vec![problem(
                line,
                "front matter",
                format!("not valid YAML: {error}"),
            )]);
        }
    };
    let Some(map) = yaml.as_mapping() else {
        return Err(vec![problem(
            first_line,
            "front matter",
            "the front matter must be a mapping of fields (`name: …`)".into(),
        )]);
    };
    let mut problems = Vec::new();
    for key in map.keys() {
        let key = key.as_str().unwrap_or("?");
        if !KNOWN_FIELDS.contains(&key) {
            problems.push(problem(
                line_of(key),
                key,
                format!("unknown field (known: {})", KNOWN_FIELDS.join(", ")),
            ));
        }
    }
    let text_field = |field: &str| map.get(field).and_then(serde_norway::Value::as_str);

    let name = text_field("name").unwrap_or_default().to_owned();
    match map.get("name") {
        None => problems.push(problem(
            first_line,
            "name",
            format!("missing: add `name: {folder}` (the folder's name)"),
        )),
        Some(value) if value.as_str().is_none() => {
            problems.push(problem(line_of("name"), "name", "must be text".into()))
        }
        Some(_) => {
            if let Some(message) = name_problem(&name) {
                problems.push(problem(line_of("name"), "name", message));
            } else if name != folder {
                problems.push(problem(
                    line_of("name"),
                    "name",
                    format!("`{name}` must equal the folder's name `{folder}`"),
                ));
            }
        }
    }

    let description = text_field("description")
        .unwrap_or_default()
        .trim()
        .to_owned();
    match map.get("description") {
        None => problems.push(problem(
            first_line,
            "description",
            "missing: add `description:` saying what it does and when to use it".into(),
        )),
        Some(value) if value.as_str().is_none() => problems.push(problem(
            line_of("description"),
            "description",
            "must be text".into(),
        )),
        Some(_) if description.is_empty() => problems.push(problem(
            line_of("description"),
            "description",
            "is empty: say what it does and when to use it".into(),
        )),
        Some(_) if description.chars().count() > DESCRIPTION_MAX_CHARS => problems.push(problem(
            line_of("description"),
            "description",
            format!("longer than {DESCRIPTION_MAX_CHARS} characters: shorten it"),
        )),
        Some(_) => {}
    }

    let parameters = match map.get("parameters") {
        None => None,
        Some(value) => match serde_json::to_value(value) {
            Ok(schema) => match schema_problem(&schema) {
                None => Some(schema),
                Some(message) => {
                    problems.push(problem(line_of("parameters"), "parameters", message));
                    None
                }
            },
            Err(error) => {
                problems.push(problem(
                    line_of("parameters"),
                    "parameters",
                    format!("cannot be read as JSON: {error}"),
                ));
                None
            }
        },
    };

    let entry = match map.get("entry") {
        None => None,
        Some(value) => match value.as_str() {
            None => {
                problems.push(problem(line_of("entry"), "entry", "must be a path".into()));
                None
            }
            Some(entry) => {
                let entry = entry.trim_start_matches("./").to_owned();
                if entry.split('/').any(|part| part == ".." || part.is_empty())
                    || entry.starts_with('/')
                {
                    problems.push(problem(
                        line_of("entry"),
                        "entry",
                        format!("`{entry}` must be a path inside the folder, like scripts/main.js"),
                    ));
                } else if !entry.ends_with(".js") {
                    problems.push(problem(
                        line_of("entry"),
                        "entry",
                        format!("`{entry}` must be a JavaScript file (.js)"),
                    ));
                } else if !files.contains(&entry) {
                    problems.push(problem(
                        line_of("entry"),
                        "entry",
                        format!("`{entry}` is not in the folder: add the file or fix the path"),
                    ));
                }
                Some(entry)
            }
        },
    };

    let mut allowed_tools = BTreeSet::new();
    if let Some(value) = map.get("allowed-tools") {
        // The Agent Skills form is a space-separated string; a YAML list is accepted too.
        let names: Vec<String> = match value {
            serde_norway::Value::String(text) => text
                .split([' ', ','])
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect(),
            serde_norway::Value::Sequence(items) => items
                .iter()
                .map(|item| item.as_str().unwrap_or("?").to_owned())
                .collect(),
            _ => vec!["?".to_owned()],
        };
        for name in names {
            match Helper::parse(&name) {
                Some(helper) => {
                    allowed_tools.insert(helper);
                }
                None => problems.push(problem(
                    line_of("allowed-tools"),
                    "allowed-tools",
                    format!(
                        "`{name}` is not a helper a script can use (read, write, ls, grep, find)"
                    ),
                )),
            }
        }
    }
    if !allowed_tools.is_empty() && entry.is_none() && problems.is_empty() {
        problems.push(problem(
            line_of("allowed-tools"),
            "allowed-tools",
            "only a tool with an `entry` script uses helpers: add `entry` or remove this".into(),
        ));
    }

    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(SkillManifest {
        name,
        description,
        parameters,
        entry,
        allowed_tools,
        instructions: body.trim().to_owned(),
    })
}

/// The front matter, the body and the front matter's first line (1-based, the opening `---`).
fn split_front_matter(text: &str) -> Option<(&str, &str, usize)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..offset], &rest[offset + line.len()..], 1));
        }
        offset += line.len();
    }
    None
}

/// Why `name` breaks the Agent Skills rules, if it does.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty: use lower-case letters, digits and hyphens".into());
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Some(format!("longer than {NAME_MAX_CHARS} characters"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Some(format!(
            "`{name}` may only hold lower-case letters, digits and hyphens"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Some(format!(
            "`{name}` must not start or end with a hyphen or hold two in a row"
        ));
    }
    None
}

/// Why `schema` cannot be a tool's parameters, if it cannot.
fn schema_problem(schema: &Value) -> Option<String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Some(
            "must be a JSON Schema of an object (`type: object` with `properties`)".into(),
        );
    }
    match jsonschema::validator_for(schema) {
        Ok(_) => None,
        Err(error) => Some(format!("is not a valid JSON Schema: {error}")),
    }
}
