//! A small tmpfs mounted for a test (a full disk on demand), unmounted when dropped.
//!
//! Mounting needs root (CI runs as root); elsewhere [`Tmpfs::mount`] says why not, so the test
//! can skip that part with a visible reason instead of failing or passing silently.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A mounted tmpfs; unmounted on drop.
#[derive(Debug)]
pub struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (as `mount -o size=`, e.g. `"3m"`) at `dir`, an existing empty
    /// folder. `Err` says why it cannot be done here.
    pub fn mount(dir: &Path, size: &str) -> Result<Self, String> {
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|error| format!("no mount command: {error}"))?;
        if out.status.success() {
            Ok(Self {
                dir: dir.to_owned(),
            })
        } else {
            Err(format!(
                "cannot mount a tmpfs at {} ({}); it needs root",
                dir.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Best effort: a busy mount is lazily detached so the test's temp folder can go.
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}
