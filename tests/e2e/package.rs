//! The installable packages `npm run bundle` makes (`npm test` runs it before this suite): the
//! `.deb` unpacked into a temporary root — its control file, desktop entry, icons in every size,
//! the app with the sandbox's helper and the CLI beside it — and the unpacked app launched under
//! Xvfb to its start window; the `.rpm`'s header read by `rpm` itself.
//!
//! A missing package fails the test and says how to make it: a skipped test would hide a
//! package that no longer builds.

use std::path::PathBuf;
use std::process::Command;

use crate::support::desktop::DesktopSession;
use crate::support::ui::start_view_shown;
use anyhow::{bail, ensure, Context, Result};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Every size the icon is installed in (`/usr/share/icons/hicolor/<size>/apps`).
const ICON_SIZES: &[&str] = &[
    "16x16", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256", "512x512",
];

/// The bundle folder of the release build, beside this test's own build folder.
fn bundle_dir() -> Result<PathBuf> {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        // <target>/debug/deps/e2e-… → <target>
        _ => std::env::current_exe()?
            .ancestors()
            .nth(3)
            .context("no build folder above the test binary")?
            .to_owned(),
    };
    Ok(target.join("release/bundle"))
}

/// The one package of this version with `extension` in `bundle/<kind>/`.
fn package(kind: &str, extension: &str) -> Result<PathBuf> {
    let dir = bundle_dir()?.join(kind);
    let found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| {
            format!(
                "no {} (run `npm run bundle` first; `npm test` does)",
                dir.display()
            )
        })?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.extension().is_some_and(|e| e == extension)
                && path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().contains(VERSION))
        })
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => bail!(
            "no .{extension} of version {VERSION} in {} (run `npm run bundle` first)",
            dir.display()
        ),
        many => bail!("several .{extension} packages of {VERSION}: {many:?}"),
    }
}

fn output(program: &str, args: &[&str]) -> Result<String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .with_context(|| format!("running {program}"))?;
    ensure!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The `Key=value` lines of a desktop entry's `[Desktop Entry]` group.
fn desktop_entry(text: &str) -> std::collections::HashMap<String, String> {
    text.lines()
        .skip_while(|line| line.trim() != "[Desktop Entry]")
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deb_unpacks_to_a_complete_app_that_starts() -> Result<()> {
    let deb = package("deb", "deb")?;
    let deb_path = deb.to_str().context("package path is not UTF-8")?;

    // The control file: name, this workspace's version, and what the app needs at run time.
    let control = output(
        "dpkg-deb",
        &[
            "--field",
            deb_path,
            "Package",
            "Version",
            "Depends",
            "Recommends",
        ],
    )?;
    let field = |name: &str| {
        control
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .map(str::to_owned)
            .unwrap_or_default()
    };
    ensure!(field("Version") == VERSION, "control file: {control}");
    let depends = field("Depends");
    for needed in [
        "libwebkit2gtk-4.1-0",
        "libgtk-3-0",
        "bubblewrap",
        "libdbus-1-3",
    ] {
        ensure!(
            depends.contains(needed),
            "Depends lacks {needed}: {depends}"
        );
    }
    ensure!(
        field("Recommends").contains("gnome-keyring"),
        "control file: {control}"
    );

    let root = tempfile::tempdir()?;
    let root_path = root.path().to_str().context("temp path is not UTF-8")?;
    output("dpkg-deb", &["-x", deb_path, root_path])?;
    let usr = root.path().join("usr");
    for binary in ["arbor-desktop", "arbor-sandbox", "arbor"] {
        let path = usr.join("bin").join(binary);
        let mode = std::os::unix::fs::PermissionsExt::mode(&path.metadata()?.permissions());
        ensure!(mode & 0o111 != 0, "{} is not executable", path.display());
    }
    // The CLI in the package is this version too.
    let cli = output(
        usr.join("bin/arbor").to_str().context("path")?,
        &["--version"],
    )?;
    ensure!(cli.contains(VERSION), "arbor --version: {cli}");

    // The desktop entry: it starts the app and names its icon, which exists in every size.
    let entries: Vec<PathBuf> = std::fs::read_dir(usr.join("share/applications"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "desktop"))
        .collect();
    let [entry_path] = entries.as_slice() else {
        bail!("expected one desktop entry, found {entries:?}");
    };
    let entry_text = std::fs::read_to_string(entry_path)?;
    let entry = desktop_entry(&entry_text);
    let key = |name: &str| entry.get(name).map(String::as_str).unwrap_or_default();
    ensure!(key("Type") == "Application", "{entry_text}");
    ensure!(key("Name") == "Arbor", "{entry_text}");
    ensure!(key("Exec").starts_with("arbor-desktop"), "{entry_text}");
    ensure!(key("Categories").contains("Development"), "{entry_text}");
    let icon = key("Icon");
    ensure!(!icon.is_empty(), "no icon: {entry_text}");
    if crate::support::process::find_executable("desktop-file-validate").is_some() {
        output(
            "desktop-file-validate",
            &[entry_path.to_str().context("path")?],
        )?;
    }
    for size in ICON_SIZES {
        let png = usr.join(format!("share/icons/hicolor/{size}/apps/{icon}.png"));
        let bytes = std::fs::read(&png).with_context(|| format!("no {}", png.display()))?;
        let side: u32 = size.split('x').next().unwrap_or_default().parse()?;
        ensure!(
            bytes.get(..8) == Some(b"\x89PNG\r\n\x1a\n".as_slice())
                && bytes.get(16..20) == Some(side.to_be_bytes().as_slice()),
            "{} is not a {size} PNG",
            png.display()
        );
    }

    // The unpacked app, started as a user would start it, reaches its start window (with the
    // version read from Rust: IPC works in the release build).
    let _one_app = crate::support::one_app_at_a_time().await;
    let data = tempfile::tempdir()?;
    let app = usr.join("bin/arbor-desktop");
    let session = DesktopSession::start(
        app.to_str().context("path")?,
        &[("ARBOR_DATA_DIR", data.path().as_os_str())],
    )
    .await?;
    session
        .run_then_stop("package-start", async |session| {
            start_view_shown(session.client()).await?;
            let shot = session.screenshot("package-start.png").await?;
            crate::support::image::assert_rendered(&shot)
        })
        .await
}

#[test]
fn the_rpm_names_its_version_dependencies_and_files() -> Result<()> {
    let rpm = package("rpm", "rpm")?;
    let rpm_path = rpm.to_str().context("package path is not UTF-8")?;
    let version = output("rpm", &["-qp", "--queryformat", "%{VERSION}", rpm_path])?;
    ensure!(version == VERSION, "rpm version {version}");
    let requires = output("rpm", &["-qp", "--requires", rpm_path])?;
    for needed in [
        "libwebkit2gtk-4.1.so.0",
        "libgtk-3.so.0",
        "bubblewrap",
        "dbus-libs",
    ] {
        ensure!(
            requires.contains(needed),
            "Requires lacks {needed}: {requires}"
        );
    }
    let files = output("rpm", &["-qpl", rpm_path])?;
    for file in [
        "/usr/bin/arbor-desktop",
        "/usr/bin/arbor-sandbox",
        "/usr/bin/arbor",
    ] {
        ensure!(
            files.lines().any(|line| line == file),
            "{file} missing: {files}"
        );
    }
    ensure!(
        files
            .lines()
            .any(|l| l.starts_with("/usr/share/applications/") && l.ends_with(".desktop")),
        "no desktop entry: {files}"
    );
    Ok(())
}
