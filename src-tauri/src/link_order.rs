//! Checks of the link-time code placement (`scripts/link-ordered.sh`, `scripts/link-order/`):
//! the names it matches are the ones the lists hold. A wrong match does not fail a build, it
//! only loses the placement (a larger resident `arbor -p`), so it is checked here.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// `link-ordered.sh --stable-names` on `names`, one per line.
fn stable_names(names: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/link-ordered.sh");
    let mut child = Command::new("bash")
        .arg(script)
        .arg("--stable-names")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Written from a thread while the output is read: a list is larger than a pipe holds.
    let mut stdin = child.stdin.take().unwrap();
    let input = names.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn stable_names_drop_crate_hashes_and_thin_lto_suffixes() {
    // v0 names as a build prints them: crate roots carry their hash (`Cs<hash>_`), and ThinLTO
    // may add `.llvm.<n>` to a local copy.
    let built = "\
_RNvCs4fqI2P2rA04_5arbor4main
_RNvNtCsiGub2S3ovTj_9arbor_app10code_state11scan_ahead.llvm.1234567890
_RINvNtCs1234_4core3ptr13drop_in_placeNtNtCsAbC_9arbor_app4live11LiveSessionEB4_
_ZN3std2rt10lang_start17h0123456789abcdefE
";
    let expected = "\
_RNvC5arbor4main
_RNvNtC9arbor_app10code_state11scan_ahead
_RINvNtC4core3ptr13drop_in_placeNtNtC9arbor_app4live11LiveSessionEB4_
_ZN3std2rt10lang_start17h0123456789abcdefE
";
    assert_eq!(stable_names(built), expected);
}

#[test]
fn the_lists_hold_stable_names() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for list in ["cli", "desktop"] {
        let path = root.join("scripts/link-order").join(format!("{list}.txt"));
        let names = std::fs::read_to_string(&path).unwrap();
        assert!(names.lines().count() > 1000, "{list}.txt is nearly empty");
        // Names already stable come out unchanged: a list made from raw symbols would not.
        assert_eq!(
            stable_names(&names),
            names,
            "{list}.txt holds unstable names"
        );
        // One symbol per line (Rust's and C's, as `nm` prints them).
        assert!(
            names
                .lines()
                .all(|name| !name.is_empty() && !name.contains(char::is_whitespace)),
            "{list}.txt holds something other than symbol names"
        );
        assert!(
            names.lines().any(|name| name.starts_with("_R")),
            "{list}.txt names no Rust function in the v0 scheme"
        );
    }
}
