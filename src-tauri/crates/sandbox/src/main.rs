//! `arbor-sandbox`: the helper that sets a command's restrictions in a fresh process and then
//! becomes the command (see the crate docs). Run by Arbor, not by hand.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    std::process::exit(arbor_sandbox::helper::main(&args));
}
