//! Which WebKitGTK renderer the window uses, chosen before WebKit starts.
//!
//! WebKitGTK's DMA-BUF renderer shares buffers with a GPU. Without one (no `/dev/dri/renderD*`
//! node: a virtual machine, a remote X display, Xvfb) it still allocates them and renders in
//! software, and the web process holds about 60 MB more for nothing: measured with
//! `scripts/bench-desktop.sh` under Xvfb, the web process PSS was 144 → 87 MB for an empty
//! window and 262 → 171 MB with a 2,000-message session, with `WEBKIT_DISABLE_DMABUF_RENDERER=1`.
//! So it is turned off where there is no render node, and left on (hardware-accelerated
//! compositing) where there is one. A value the user set wins either way.

/// The variable WebKitGTK reads.
const DISABLE_DMABUF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";

/// What to set `WEBKIT_DISABLE_DMABUF_RENDERER` to, if anything: only when the user has not
/// set it and there is no GPU render node.
fn dmabuf_setting(user_value: Option<&std::ffi::OsStr>, render_node: bool) -> Option<&'static str> {
    (user_value.is_none() && !render_node).then_some("1")
}

/// Whether this machine has a GPU render node WebKit could use.
#[cfg(target_os = "linux")]
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Chooses the renderer. Call first thing in `main`, before any thread starts (it sets an
/// environment variable WebKit reads when it starts).
#[cfg(target_os = "linux")]
pub fn choose() {
    let user_value = std::env::var_os(DISABLE_DMABUF);
    if let Some(value) = dmabuf_setting(user_value.as_deref(), has_render_node()) {
        std::env::set_var(DISABLE_DMABUF, value);
    }
}

/// macOS and Windows have their own webviews: nothing to choose.
#[cfg(not(target_os = "linux"))]
pub fn choose() {
    let _ = (DISABLE_DMABUF, dmabuf_setting);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dmabuf_is_turned_off_only_without_a_gpu_and_never_over_the_users_choice() {
        assert_eq!(dmabuf_setting(None, false), Some("1"));
        assert_eq!(dmabuf_setting(None, true), None);
        assert_eq!(dmabuf_setting(Some("0".as_ref()), false), None);
        assert_eq!(dmabuf_setting(Some("1".as_ref()), true), None);
    }
}
