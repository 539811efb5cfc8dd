//! The memory floor of a Tauri app here: the smallest app with Arbor's Tauri version, WebKit
//! and its defaults, showing an empty page, with the WebKit renderer and JavaScript tiers
//! Arbor's window would get on this machine (`arbor_desktop::renderer`, `js_engine`). `scripts/bench-desktop.sh` measures it beside
//! Arbor in the same run, so what Arbor adds is told apart from what any Tauri window costs.

fn main() -> std::process::ExitCode {
    // The same WebKit renderer as Arbor's window on this machine.
    arbor_desktop::renderer::choose();
    arbor_desktop::js_engine::choose();
    let context = tauri::generate_context!("examples/memory_floor/tauri.conf.json");
    match tauri::Builder::default().run(context) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("memory_floor: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
