use crate::common;

use arbor_llm::UserContent;
use common::TestWorkspace;
use serde_json::json;

fn numbered(range: std::ops::RangeInclusive<usize>) -> String {
    range
        .map(|n| format!("{n:>6}\tline {n}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn lines_file(count: usize) -> String {
    (1..=count).map(|n| format!("line {n}\n")).collect()
}

#[tokio::test]
async fn reads_with_cat_n_numbers() {
    let ws = TestWorkspace::new();
    ws.write("a.txt", "alpha\n\tbeta\n");
    assert_eq!(
        ws.ok("read", json!({"path": "a.txt"})).await,
        "     1\talpha\n     2\t\tbeta"
    );
}

#[tokio::test]
async fn default_cap_is_2000_lines_with_the_exact_notice() {
    let ws = TestWorkspace::new();
    ws.write("big.txt", lines_file(2500));
    let text = ws.ok("read", json!({"path": "big.txt"})).await;
    assert_eq!(
        text,
        format!(
            "{}\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]",
            numbered(1..=2000)
        )
    );
    let rest = ws
        .ok("read", json!({"path": "big.txt", "offset": 2001}))
        .await;
    assert_eq!(rest, numbered(2001..=2500));
}

#[tokio::test]
async fn offset_and_limit_page_through() {
    let ws = TestWorkspace::new();
    ws.write("f.txt", lines_file(10));
    let text = ws
        .ok("read", json!({"path": "f.txt", "offset": 3, "limit": 2}))
        .await;
    assert_eq!(
        text,
        format!(
            "{}\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]",
            numbered(3..=4)
        )
    );
}

#[tokio::test]
async fn limit_may_reach_5000_but_no_further() {
    let ws = TestWorkspace::new();
    ws.write("f.txt", "x\n".repeat(6000));
    let notice = "\n\n[Showing lines 1-5000 of 6000. Use offset=5001 to continue.]";
    let text = ws.ok("read", json!({"path": "f.txt", "limit": 5000})).await;
    assert!(
        text.ends_with(&format!("  5000\tx{notice}")),
        "{}",
        &text[text.len() - 80..]
    );
    let text = ws.ok("read", json!({"path": "f.txt", "limit": 9000})).await;
    assert!(text.ends_with(&format!("  5000\tx{notice}")));
}

#[tokio::test]
async fn the_50_kib_cap_cuts_at_a_line_and_names_the_next_offset() {
    let ws = TestWorkspace::new();
    // 100 lines of 1 KiB each: 50 KiB holds 49 numbered lines.
    let line = "x".repeat(1024);
    ws.write("wide.txt", format!("{line}\n").repeat(100));
    let text = ws.ok("read", json!({"path": "wide.txt"})).await;
    assert!(
        text.ends_with("\n\n[Showing lines 1-49 of 100. Use offset=50 to continue.]"),
        "{}",
        &text[text.len() - 100..]
    );
    assert!(text.len() <= 50 * 1024 + 100);
}

#[tokio::test]
async fn offset_past_the_end_names_the_line_count() {
    let ws = TestWorkspace::new();
    ws.write("f.txt", lines_file(3));
    assert_eq!(
        ws.err("read", json!({"path": "f.txt", "offset": 4})).await,
        "Offset 4 is past the end of f.txt: the file has 3 lines."
    );
}

#[tokio::test]
async fn very_long_lines_are_cut_and_said_so() {
    let ws = TestWorkspace::new();
    ws.write("min.js", format!("short\n{}\n", "y".repeat(5000)));
    let text = ws.ok("read", json!({"path": "min.js"})).await;
    let expected = format!(
        "     1\tshort\n     2\t{}… [line cut at 2000 characters]\n\n[Line 2 was longer than 2000 characters and cut. To see one in full, use bash, for example `sed -n '2p' FILE | cut -c2001-4000`.]",
        "y".repeat(2000)
    );
    assert_eq!(text, expected);
}

#[tokio::test]
async fn binary_files_are_refused_with_a_bash_hint() {
    let ws = TestWorkspace::new();
    ws.write("blob.bin", b"abc\x00def");
    assert_eq!(
        ws.err("read", json!({"path": "blob.bin"})).await,
        "Cannot read binary file blob.bin. To inspect it, use bash: `file blob.bin` or `xxd blob.bin | head -n 32`."
    );
}

#[tokio::test]
async fn missing_file_suggests_a_close_match() {
    let ws = TestWorkspace::new();
    ws.write("src/main.rs", "fn main() {}\n");
    assert_eq!(
        ws.err("read", json!({"path": "src/mian.rs"})).await,
        "File not found: src/mian.rs. Did you mean src/main.rs?"
    );
    assert_eq!(
        ws.err("read", json!({"path": "src/zzz_other.py"})).await,
        "File not found: src/zzz_other.py."
    );
    assert_eq!(
        ws.err("read", json!({"path": "src/Main.rs"})).await,
        "File not found: src/Main.rs. Did you mean src/main.rs?"
    );
}

#[tokio::test]
async fn images_become_image_blocks_or_a_clear_error() {
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    let ws = TestWorkspace::with_images(true);
    ws.write("pic.png", &png);
    let output = ws.call("read", json!({"path": "pic.png"})).await.unwrap();
    match &output.content[1] {
        UserContent::Image(image) => {
            assert_eq!(image.mime_type, "image/png");
            assert_eq!(image.data, "iVBORw0KGgoAAAANSUhEUg==");
        }
        other => panic!("not an image: {other:?}"),
    }
    let ws = TestWorkspace::with_images(false);
    ws.write("pic.png", &png);
    assert_eq!(
        ws.err("read", json!({"path": "pic.png"})).await,
        "pic.png is an image (image/png), and the current model does not accept images. Use bash (for example `file pic.png`) to learn about it."
    );
}

#[tokio::test]
async fn crlf_and_bom_are_not_shown() {
    let ws = TestWorkspace::new();
    ws.write("win.txt", b"\xEF\xBB\xBFone\r\ntwo\r\n");
    assert_eq!(
        ws.ok("read", json!({"path": "win.txt"})).await,
        "     1\tone\n     2\ttwo"
    );
}

#[tokio::test]
async fn wrong_argument_types_name_the_field() {
    let ws = TestWorkspace::new();
    let message = ws.err("read", json!({"path": "a", "offset": "x"})).await;
    assert!(
        message.starts_with("Invalid argument `offset`: invalid type: string \"x\""),
        "{message}"
    );
    assert_eq!(
        ws.err("read", json!({"offset": 1})).await,
        "Invalid arguments: missing field `path`."
    );
    // Unknown fields are ignored.
    ws.write("a", "x\n");
    assert_eq!(
        ws.ok("read", json!({"path": "a", "junk": true})).await,
        "     1\tx"
    );
}

#[tokio::test]
async fn absolute_and_directory_paths() {
    let ws = TestWorkspace::new();
    ws.write("d/f.txt", "x\n");
    let absolute = ws.path("d/f.txt").display().to_string();
    assert_eq!(ws.ok("read", json!({"path": absolute})).await, "     1\tx");
    assert_eq!(
        ws.err("read", json!({"path": "d"})).await,
        "d is a directory, not a file. Use ls to list it."
    );
}

fn document_fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../documents/tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[tokio::test]
async fn documents_are_read_as_numbered_text_with_page_markers() {
    let ws = TestWorkspace::new();
    ws.write("docs/spec.pdf", document_fixture("spec.pdf"));
    ws.write("budget.xlsx", document_fixture("budget.xlsx"));
    let output = ws
        .call("read", json!({"path": "docs/spec.pdf"}))
        .await
        .unwrap();
    let UserContent::Text(text) = &output.content[0] else {
        panic!("not text: {:?}", output.content);
    };
    assert!(
        text.text
            .starts_with("     1\t[docs/spec.pdf: PDF, 2 pages]\n     2\t--- page 1 ---"),
        "{}",
        text.text
    );
    assert!(text.text.contains("Second page: the import checks"));
    let details = output.details.unwrap();
    assert_eq!(details["document"], "PDF");

    // Paged like text: offset and limit over the document's lines.
    let sheet = ws
        .ok(
            "read",
            json!({"path": "budget.xlsx", "offset": 2, "limit": 2}),
        )
        .await;
    assert!(
        sheet.starts_with("     2\t--- sheet \"Q1\" ---\n     3\tItem\tCost"),
        "{sheet}"
    );

    // A damaged document is an error that says what to do, not a binary-file refusal.
    let mut cut = document_fixture("spec.docx");
    cut.truncate(200);
    ws.write("broken.docx", cut);
    let error = ws.err("read", json!({"path": "broken.docx"})).await;
    assert!(
        error.contains("broken.docx could not be read as a Word document"),
        "{error}"
    );
    assert!(error.contains("save it again"), "{error}");
}
