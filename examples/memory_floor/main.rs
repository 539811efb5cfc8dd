//! The memory floor of a Tauri app here: the smallest app with Arbor's Tauri version, WebKit
//! and its defaults, showing an empty page. `scripts/bench-desktop.sh` measures it beside
//! Arbor in the same run, so what Arbor adds is told apart from what any Tauri window costs.

fn main() -> std::process::ExitCode {
    let context = tauri::generate_context!("examples/memory_floor/tauri.conf.json");
    match tauri::Builder::default().run(context) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("memory_floor: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
