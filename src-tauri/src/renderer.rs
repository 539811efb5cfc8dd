//! Which WebKitGTK renderer the window gets, chosen before WebKit starts (Linux only; the other
//! platforms' webviews have no such setting).
//!
//! WebKitGTK (2.42 and later) draws through its DMA-BUF renderer unless
//! `WEBKIT_DISABLE_DMABUF_RENDERER` says otherwise. Measured here without a GPU (Xvfb), that
//! renderer costs the web process about 60–75 MB more on Arbor's window
//! (`scripts/bench-desktop.sh`), and streams a 20,000-token answer less smoothly: median frame
//! gap 47 ms against 17, 91 frames over 50 ms against 4 (`cargo bench --bench webview`). With a
//! GPU it is the accelerated path; on NVIDIA's proprietary driver it is known to draw a blank
//! window (WebKit bug 262607; tauri-apps/tauri#9304, #10702). So:
//!
//! | situation | renderer |
//! |---|---|
//! | the user set `WEBKIT_DISABLE_DMABUF_RENDERER` or `WEBKIT_DISABLE_COMPOSITING_MODE` | theirs, untouched (`=0` asks for DMA-BUF) |
//! | software rendering: no GPU render node (`/dev/dri/renderD*`), or `LIBGL_ALWAYS_SOFTWARE` | DMA-BUF off |
//! | NVIDIA's proprietary driver (`/sys/module/nvidia`) | DMA-BUF off |
//! | any other GPU | WebKit's default (DMA-BUF, accelerated) |
//!
//! The memory floor (`examples/memory_floor`) takes the same choice, so the benchmark compares
//! like with like.

use std::ffi::OsString;

/// The WebKit variable that turns the DMA-BUF renderer off (any value but `0`).
pub const DISABLE_DMABUF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";
/// The WebKit variable that turns accelerated compositing off altogether.
pub const DISABLE_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// What the machine offers, as far as the choice needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    /// A DRM render node exists (a GPU the webview could draw with).
    pub render_node: bool,
    /// NVIDIA's proprietary kernel module is loaded.
    pub nvidia: bool,
}

/// The choice, and why it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RendererChoice {
    /// The user's own WebKit setting stands.
    UserSet,
    /// No GPU to draw with: the DMA-BUF renderer only costs memory.
    SoftwareWithoutDmabuf,
    /// NVIDIA's driver: the DMA-BUF renderer may draw nothing.
    NvidiaWithoutDmabuf,
    /// A GPU: WebKit's accelerated default.
    WebKitDefault,
}

impl RendererChoice {
    /// Whether the choice turns the DMA-BUF renderer off.
    pub fn disables_dmabuf(self) -> bool {
        matches!(
            self,
            RendererChoice::SoftwareWithoutDmabuf | RendererChoice::NvidiaWithoutDmabuf
        )
    }
}

/// The choice for a machine, given the environment (`env` answers a variable's value).
pub fn decide(env: impl Fn(&str) -> Option<OsString>, machine: Machine) -> RendererChoice {
    if env(DISABLE_DMABUF).is_some() || env(DISABLE_COMPOSITING).is_some() {
        return RendererChoice::UserSet;
    }
    let forced_software = env("LIBGL_ALWAYS_SOFTWARE").is_some_and(|value| value != "0");
    if forced_software || !machine.render_node {
        RendererChoice::SoftwareWithoutDmabuf
    } else if machine.nvidia {
        RendererChoice::NvidiaWithoutDmabuf
    } else {
        RendererChoice::WebKitDefault
    }
}

/// Looks at this machine, decides, and sets the variable WebKit reads. Call it first in `main`,
/// before any thread starts (the environment is process-wide) and before Tauri creates a window.
pub fn choose() -> RendererChoice {
    let choice = decide(|name| std::env::var_os(name), this_machine());
    if choice.disables_dmabuf() {
        std::env::set_var(DISABLE_DMABUF, "1");
    }
    choice
}

/// What this machine offers (a GPU render node, NVIDIA's driver).
#[cfg(target_os = "linux")]
pub fn this_machine() -> Machine {
    let render_node = std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    });
    Machine {
        render_node,
        nvidia: std::path::Path::new("/sys/module/nvidia").exists(),
    }
}

/// Elsewhere the webview is not WebKitGTK: nothing to choose, so WebKit's default stands.
#[cfg(not(target_os = "linux"))]
pub fn this_machine() -> Machine {
    Machine {
        render_node: true,
        nvidia: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    const GPU: Machine = Machine {
        render_node: true,
        nvidia: false,
    };
    const NO_GPU: Machine = Machine {
        render_node: false,
        nvidia: false,
    };
    const NVIDIA: Machine = Machine {
        render_node: true,
        nvidia: true,
    };

    #[test]
    fn the_users_own_setting_stands_whatever_the_machine() {
        for machine in [GPU, NO_GPU, NVIDIA] {
            for pairs in [
                &[(DISABLE_DMABUF, "0")][..],
                &[(DISABLE_DMABUF, "1")][..],
                &[(DISABLE_COMPOSITING, "1")][..],
            ] {
                let pairs: &'static [(&str, &str)] = pairs;
                assert_eq!(decide(env_of(pairs), machine), RendererChoice::UserSet);
            }
        }
        assert!(!RendererChoice::UserSet.disables_dmabuf());
    }

    #[test]
    fn software_rendering_and_nvidia_turn_dmabuf_off_a_gpu_keeps_webkits_default() {
        let none = env_of(&[]);
        assert_eq!(decide(&none, NO_GPU), RendererChoice::SoftwareWithoutDmabuf);
        assert_eq!(decide(&none, NVIDIA), RendererChoice::NvidiaWithoutDmabuf);
        assert_eq!(decide(&none, GPU), RendererChoice::WebKitDefault);
        let forced = env_of(&[("LIBGL_ALWAYS_SOFTWARE", "1")]);
        assert_eq!(decide(forced, GPU), RendererChoice::SoftwareWithoutDmabuf);
        let not_forced = env_of(&[("LIBGL_ALWAYS_SOFTWARE", "0")]);
        assert_eq!(decide(not_forced, GPU), RendererChoice::WebKitDefault);
        assert!(RendererChoice::SoftwareWithoutDmabuf.disables_dmabuf());
        assert!(RendererChoice::NvidiaWithoutDmabuf.disables_dmabuf());
        assert!(!RendererChoice::WebKitDefault.disables_dmabuf());
    }
}
