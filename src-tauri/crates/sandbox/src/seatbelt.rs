//! macOS: a Seatbelt profile (`sandbox-exec -p PROFILE`) generated from a [`SandboxPolicy`].
//! Pure code, tested on every system; Arbor runs it only on macOS.

use std::fmt::Write;
use std::path::Path;

use crate::SandboxPolicy;

/// The profile: deny by default, read everywhere but the hidden paths, write only the
/// writable folders (minus the read-only ones) and the temporary folder, no network unless
/// granted, no Mach lookups beyond what processes need to start.
pub fn profile(policy: &SandboxPolicy) -> String {
    let mut out = String::from(
        "(version 1)\n(deny default)\n(allow process-exec)\n(allow process-fork)\n\
         (allow signal (target same-sandbox))\n(allow sysctl-read)\n(allow file-read*)\n\
         (allow file-write-data (literal \"/dev/null\"))\n",
    );
    for path in &policy.hidden {
        let _ = writeln!(out, "(deny file-read* {})", subpath(path));
    }
    let mut writable: Vec<String> = policy.writable.iter().map(|p| subpath(p)).collect();
    writable.push(subpath(&policy.temp_dir));
    let _ = writeln!(out, "(allow file-write* {})", writable.join(" "));
    for path in policy.read_only.iter().chain(&policy.hidden) {
        let _ = writeln!(out, "(deny file-write* {})", subpath(path));
    }
    if policy.network {
        out.push_str("(allow network*)\n(allow system-socket)\n");
    } else {
        out.push_str(
            "(allow network* (remote unix-socket (path-literal \"/private/var/run/syslog\")))\n",
        );
    }
    out
}

/// `(subpath "…")` with the path quoted for the profile language.
fn subpath(path: &Path) -> String {
    let text = path.to_string_lossy();
    let escaped: String = text
        .chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            c => vec![c],
        })
        .collect();
    format!("(subpath \"{escaped}\")")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_profile_denies_by_default_and_hides_secrets() {
        let policy = SandboxPolicy {
            writable: vec![PathBuf::from("/Users/u/p")],
            read_only: vec![PathBuf::from("/Users/u/p/.git/hooks")],
            hidden: vec![PathBuf::from("/Users/u/.ssh")],
            network: false,
            temp_dir: PathBuf::from("/private/tmp/arbor-1"),
        };
        let profile = profile(&policy);
        assert!(profile.starts_with("(version 1)\n(deny default)"));
        assert!(profile.contains("(deny file-read* (subpath \"/Users/u/.ssh\"))"));
        assert!(profile.contains(
            "(allow file-write* (subpath \"/Users/u/p\") (subpath \"/private/tmp/arbor-1\"))"
        ));
        assert!(profile.contains("(deny file-write* (subpath \"/Users/u/p/.git/hooks\"))"));
        assert!(!profile.contains("(allow network*)"));
        let quoted = subpath(Path::new("/a\"b\\c"));
        assert_eq!(quoted, "(subpath \"/a\\\"b\\\\c\")");
        let open = SandboxPolicy {
            network: true,
            ..policy
        };
        assert!(super::profile(&open).contains("(allow network*)"));
    }
}
