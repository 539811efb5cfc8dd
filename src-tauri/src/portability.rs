//! Source checks that keep the code building beyond Linux: every Unix- or Linux-only name in
//! library code sits under a `#[cfg(...)]` (with a fallback beside it), and `unsafe` is allowed
//! in documented places only ([`UNSAFE_PLACES`]). These cannot replace a build on macOS and
//! Windows (this machine has neither toolchain); they catch the common slip early.

use std::path::{Path, PathBuf};

/// Names that exist on Unix (or Linux) only.
const UNIX_ONLY: &[&str] = &["std::os::unix", "std::os::linux", "rustix::", "libc::"];

/// Whole modules that are platform-specific, declared under a `cfg` by their parent module.
const PLATFORM_MODULES: &[&str] = &[
    "src-tauri/crates/sandbox/src/landlock_rules.rs",
    "src-tauri/crates/sandbox/src/seccomp.rs",
    "src-tauri/crates/tools/src/bash/process.rs",
    "src-tauri/crates/tools/src/bash/watchdog.rs",
];

/// The files where `unsafe` is allowed, each block with its `SAFETY` comment beside it: git2's HTTP
/// transport registered once (`http.rs`), and the two glibc allocator calls (`memory.rs`).
const UNSAFE_PLACES: &[(&str, usize)] = &[
    ("src-tauri/crates/git/src/http.rs", 1),
    ("src-tauri/src/memory.rs", 2),
];

/// How far above a Unix-only line its `#[cfg(...)]` may be.
const CFG_REACH: usize = 12;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every library and binary source of the workspace (`src/` folders; not tests or benches).
fn library_sources(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    sources(&root.join("src-tauri/src"), &mut files);
    for krate in std::fs::read_dir(root.join("src-tauri/crates"))
        .into_iter()
        .flatten()
        .flatten()
    {
        sources(&krate.path().join("src"), &mut files);
    }
    files
}

/// The lines of `text` before its unit tests (`#[cfg(test)]` followed by a `mod`).
fn before_tests(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod "))
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

fn guarded(lines: &[&str], at: usize) -> bool {
    lines[at.saturating_sub(CFG_REACH)..=at].iter().any(|line| {
        let line = line.trim();
        (line.starts_with("#[cfg(") || line.starts_with("#![cfg("))
            && ["unix", "linux", "macos", "not(windows)"]
                .iter()
                .any(|platform| line.contains(platform))
    })
}

#[test]
fn unix_only_names_in_library_code_are_under_a_cfg() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut unguarded = Vec::new();
    for file in library_sources(root) {
        let relative = file.strip_prefix(root).unwrap_or(&file);
        let relative = relative.to_string_lossy().replace('\\', "/");
        // This file names them to look for them.
        if PLATFORM_MODULES.contains(&relative.as_str())
            || relative == "src-tauri/src/portability.rs"
        {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let lines = before_tests(&text);
        for (at, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if UNIX_ONLY.iter().any(|name| code.contains(name)) && !guarded(&lines, at) {
                unguarded.push(format!("{relative}:{}: {}", at + 1, line.trim()));
            }
        }
    }
    assert!(
        unguarded.is_empty(),
        "Unix-only code outside a #[cfg(unix)] (or linux) item, with no fallback for other \
         systems:\n{}",
        unguarded.join("\n")
    );
}

#[test]
fn unsafe_is_allowed_in_documented_places_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut allowed: Vec<(String, usize)> = Vec::new();
    for file in library_sources(root) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for (at, line) in lines.iter().enumerate() {
            let line = line.trim_start();
            if line.starts_with("#[allow(unsafe_code)]")
                || line.starts_with("#![allow(unsafe_code)]")
            {
                let relative = file.strip_prefix(root).unwrap_or(&file);
                let relative = relative.to_string_lossy().replace('\\', "/");
                assert!(
                    lines[at.saturating_sub(3)..(at + 4).min(lines.len())]
                        .iter()
                        .any(|above| above.contains("SAFETY:")),
                    "{relative}:{}: unsafe allowed without a SAFETY comment beside it",
                    at + 1
                );
                match allowed.iter_mut().find(|(file, _)| *file == relative) {
                    Some((_, count)) => *count += 1,
                    None => allowed.push((relative, 1)),
                }
            }
        }
    }
    allowed.sort();
    let mut expected: Vec<(String, usize)> = UNSAFE_PLACES
        .iter()
        .map(|(file, count)| ((*file).to_owned(), *count))
        .collect();
    expected.sort();
    assert_eq!(allowed, expected, "places allowing unsafe code");
}
