// Keeps a console window from opening next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    // Started as the sandbox's helper (Arbor re-executing itself): set the restrictions and
    // become the command, before anything of the app starts.
    arbor_desktop::run_sandbox_helper_if_requested();
    // Before any thread starts: the allocator's arenas (see `memory.rs`).
    arbor_desktop::memory::limit_arenas();
    // Before any thread starts and before WebKit reads it.
    arbor_desktop::renderer::choose();
    // Before any thread starts and before WebKit starts its web process.
    arbor_desktop::js_engine::choose();
    match arbor_desktop::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("arbor-desktop: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
