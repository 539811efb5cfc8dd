//! Build script of the desktop package: runs tauri-build, which reads `tauri.conf.json` from the
//! package root (the repository root) and the capabilities from `src-tauri/capabilities/`.

fn main() {
    // Relative paths resolve against the package root of *this* checkout, so a fresh clone that
    // shares a warm target folder with another checkout still reruns this script (its files are
    // newer than the last run) instead of reusing generated files that point at the other copy.
    println!("cargo:rerun-if-changed=src-tauri/build.rs");
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    println!("cargo:rerun-if-changed=tauri.conf.json");
    let attributes =
        tauri_build::Attributes::new().capabilities_path_pattern("./src-tauri/capabilities/*.json");
    if let Err(error) = tauri_build::try_build(attributes) {
        // A build script reports failure by exiting non-zero with a readable message.
        eprintln!("tauri-build failed: {error:#}");
        std::process::exit(1);
    }
}
