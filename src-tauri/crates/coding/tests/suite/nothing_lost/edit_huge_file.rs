//! `edit` on a 2 GB file: refused from its size alone, without a byte read (it used to be read,
//! rewritten, and then cost 24 GB of memory). Alone in its file: the check counts the bytes
//! this whole test process reads.
// Reads /proc.
#![cfg(target_os = "linux")]

use crate::common;

use arbor_coding::tools::MAX_EDIT_FILE_BYTES;
use common::TestWorkspace;
use serde_json::json;

/// Bytes this process has read through read(2) and friends so far (`/proc/self/io` `rchar`).
fn bytes_read_by_process() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").unwrap();
    io.lines()
        .find_map(|line| line.strip_prefix("rchar: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn a_2_gb_file_is_refused_unread_and_unchanged() {
    let ws = TestWorkspace::new();
    ws.write("huge.log", "hello world\n");
    let size = 2 * 1024 * 1024 * 1024_u64;
    // Sparse: 2 GB long, a few bytes on disk.
    std::fs::OpenOptions::new()
        .write(true)
        .open(ws.path("huge.log"))
        .unwrap()
        .set_len(size)
        .unwrap();
    let modified = std::fs::metadata(ws.path("huge.log"))
        .unwrap()
        .modified()
        .unwrap();

    let before = bytes_read_by_process();
    let error = ws
        .err(
            "edit",
            json!({"path": "huge.log", "edits": [{"old_text": "hello", "new_text": "bye"}]}),
        )
        .await;
    let read = bytes_read_by_process() - before;

    assert_eq!(
        error,
        format!(
            "huge.log is 2.0 GiB ({size} bytes), more than edit's limit of {} MiB, so it was \
             neither read nor changed. To change part of it use bash, which streams it (for \
             example `sed -i 's/old/new/' huge.log`, or a short script); to replace all of it use \
             write.",
            MAX_EDIT_FILE_BYTES / (1024 * 1024)
        )
    );
    // Reading /proc/self/io itself and the like: a few KiB, nowhere near the file.
    assert!(read < 1024 * 1024, "{read} bytes were read");
    let metadata = std::fs::metadata(ws.path("huge.log")).unwrap();
    assert_eq!(metadata.len(), size);
    assert_eq!(metadata.modified().unwrap(), modified);
    let mut start = [0u8; 12];
    use std::io::Read;
    std::fs::File::open(ws.path("huge.log"))
        .unwrap()
        .read_exact(&mut start)
        .unwrap();
    assert_eq!(&start, b"hello world\n");
}
