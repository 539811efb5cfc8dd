//! Files that are not regular files: a FIFO blocks the reader until someone writes (forever,
//! usually), `/dev/zero` never ends, a socket cannot be read at all. The tools that read file
//! content refuse them, judged from metadata with links followed, before anything is opened
//! (opening a FIFO for reading already blocks).

use std::fs::Metadata;

/// What `metadata` describes in words, when it is neither a regular file nor a folder.
#[cfg(unix)]
pub fn special_kind(metadata: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let file_type = metadata.file_type();
    if file_type.is_file() || file_type.is_dir() {
        None
    } else if file_type.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if file_type.is_socket() {
        Some("a socket")
    } else if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else {
        Some("not a regular file")
    }
}

/// [`special_kind`] where files have no Unix kinds: anything but a file or folder.
#[cfg(not(unix))]
pub fn special_kind(metadata: &Metadata) -> Option<&'static str> {
    let file_type = metadata.file_type();
    (!file_type.is_file() && !file_type.is_dir()).then_some("not a regular file")
}

/// The refusal for `shown`, which is `kind` (from [`special_kind`]).
pub fn refusal(shown: &str, kind: &str) -> String {
    format!(
        "{shown} is {kind}, not a regular file: reading it could block or never end, so it was \
         not opened. If you really mean to read from it, use bash with a bound, for example \
         `timeout 5 head -c 4096 {shown}`."
    )
}
