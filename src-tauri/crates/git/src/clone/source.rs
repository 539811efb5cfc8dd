//! What the user typed, as a clone source: `owner/repo`, `github.com/owner/repo`, an HTTPS git
//! URL, `file://` or a local path. SSH URLs get an error that says HTTPS works.

use std::path::{Path, PathBuf};

use super::CloneError;

/// A repository to clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloneSource {
    /// The URL handed to git (`https://…`, `http://…` or `file://…`); never holds a token.
    pub url: String,
    /// The host a token may be sent to (`None` for `file://`).
    pub host: Option<String>,
    /// Where it goes under the workspaces folder: `owner/repo` (or `local/name`).
    pub workspace_path: PathBuf,
}

impl CloneSource {
    pub fn parse(input: &str) -> Result<Self, CloneError> {
        let input = input.trim();
        let invalid = || CloneError::InvalidSource {
            input: input.to_owned(),
        };
        if input.is_empty() {
            return Err(invalid());
        }
        if input.starts_with("git@") || input.starts_with("ssh://") || input.starts_with("git://") {
            return Err(CloneError::SshUnsupported {
                input: input.to_owned(),
            });
        }
        if let Some(path) = input.strip_prefix("file://") {
            return Self::local(Path::new(path), input.to_owned());
        }
        if input.starts_with('/') || input.starts_with("./") || input.starts_with("~/") {
            let path = expand_home(input);
            let url = format!("file://{}", path.display());
            return Self::local(&path, url);
        }
        let (scheme, rest) = match input.split_once("://") {
            Some((scheme @ ("https" | "http"), rest)) => (scheme, rest),
            Some(_) => return Err(invalid()),
            None => ("https", input),
        };
        let rest = rest.trim_end_matches('/');
        let (host, path) = match rest.split_once('/') {
            // `owner/repo`: a GitHub repository.
            Some((owner, repo))
                if !owner.contains('.')
                    && !owner.contains(':')
                    && scheme == "https"
                    && !input.contains("://") =>
            {
                if repo.contains('/') {
                    return Err(invalid());
                }
                ("github.com".to_owned(), format!("{owner}/{repo}"))
            }
            Some((host, path)) => (host.to_ascii_lowercase(), path.to_owned()),
            None => return Err(invalid()),
        };
        if host.is_empty() || host.contains('@') {
            // A user name (or token) in the URL would end up in the clone's config.
            return Err(CloneError::CredentialsInUrl);
        }
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let (Some(repo), true) = (segments.last(), !segments.is_empty()) else {
            return Err(invalid());
        };
        let repo = repo.trim_end_matches(".git");
        if repo.is_empty() || segments.iter().any(|s| *s == ".." || *s == ".") {
            return Err(invalid());
        }
        let owner = if segments.len() >= 2 {
            segments[segments.len() - 2].to_owned()
        } else {
            host.clone()
        };
        let path = segments.join("/");
        let path = if host == "github.com" && !path.ends_with(".git") {
            format!("{path}.git")
        } else {
            path
        };
        Ok(Self {
            url: format!("{scheme}://{host}/{path}"),
            host: Some(host),
            // `host:port` as a folder name would not work on Windows.
            workspace_path: PathBuf::from(owner.replace(':', "-")).join(repo),
        })
    }

    fn local(path: &Path, url: String) -> Result<Self, CloneError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().trim_end_matches(".git").to_owned())
            .filter(|n| !n.is_empty())
            .ok_or_else(|| CloneError::InvalidSource { input: url.clone() })?;
        Ok(Self {
            url,
            host: None,
            workspace_path: PathBuf::from("local").join(name),
        })
    }
}

fn expand_home(input: &str) -> PathBuf {
    match (input.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(input),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(input: &str) -> (String, Option<String>, String) {
        let source = CloneSource::parse(input).unwrap();
        (
            source.url,
            source.host,
            source.workspace_path.display().to_string(),
        )
    }

    #[test]
    fn github_shorthands_and_https_urls() {
        let github = (
            "https://github.com/rust-lang/regex.git".to_owned(),
            Some("github.com".to_owned()),
            "rust-lang/regex".to_owned(),
        );
        assert_eq!(parsed("rust-lang/regex"), github);
        assert_eq!(parsed("github.com/rust-lang/regex"), github);
        assert_eq!(parsed("https://github.com/rust-lang/regex"), github);
        assert_eq!(parsed("https://github.com/rust-lang/regex.git/"), github);
        assert_eq!(
            parsed("https://git.example.org/group/sub/tool.git"),
            (
                "https://git.example.org/group/sub/tool.git".to_owned(),
                Some("git.example.org".to_owned()),
                "sub/tool".to_owned()
            )
        );
        assert_eq!(
            parsed("http://127.0.0.1:8080/repo.git").2,
            "127.0.0.1-8080/repo"
        );
        assert_eq!(
            parsed("file:///srv/mirrors/app.git"),
            (
                "file:///srv/mirrors/app.git".to_owned(),
                None,
                "local/app".to_owned()
            )
        );
        assert_eq!(parsed("/srv/mirrors/app").0, "file:///srv/mirrors/app");
    }

    #[test]
    fn ssh_credentials_and_nonsense_are_clear_errors() {
        let ssh = CloneSource::parse("git@github.com:owner/repo.git").unwrap_err();
        assert_eq!(ssh.code(), "ssh_unsupported");
        assert!(ssh.to_string().contains("https://"), "{ssh}");
        let creds = CloneSource::parse("https://ghp_secret@github.com/o/r").unwrap_err();
        assert_eq!(creds.code(), "credentials_in_url");
        assert!(!creds.to_string().contains("ghp_secret"));
        for bad in ["", "repo", "ftp://x/y", "https://github.com/", "a/b/c"] {
            assert_eq!(
                CloneSource::parse(bad).unwrap_err().code(),
                "invalid_source",
                "{bad}"
            );
        }
    }
}
