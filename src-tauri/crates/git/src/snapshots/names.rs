//! File names that are not UTF-8, kept byte for byte.
//!
//! Snapshots key files by a `/`-separated `String` path (the recorder, the diffs, the restore
//! plan and the front ends all speak strings), but a Unix file name is any bytes. Leaving such
//! a file out meant a restore could not bring it back. So a path's bytes are encoded into a
//! string reversibly: valid UTF-8 stays as it is, and each byte of an invalid sequence becomes
//! one character of the Private Use Area, `U+F700 + byte` (`U+F780`–`U+F7FF`). A real name that
//! contains one of those characters has its bytes escaped the same way, so the mapping is
//! one-to-one and [`decode`] gives back exactly the bytes [`encode`] was given. The tree in the
//! shadow repository holds the real bytes.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// Where escaped bytes start: byte `b` (always ≥ 0x80) is `ESCAPE_BASE + b`.
const ESCAPE_BASE: u32 = 0xF700;

fn is_escape(c: char) -> bool {
    (0xF780..=0xF7FF).contains(&u32::from(c))
}

fn push_escaped(out: &mut String, byte: u8) {
    if let Some(c) = char::from_u32(ESCAPE_BASE + u32::from(byte)) {
        out.push(c);
    }
}

/// A path's bytes as a string that [`decode`] turns back into the same bytes.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    encode_into(&mut out, bytes);
    out
}

/// [`encode`], appended to `out`.
fn encode_into(out: &mut String, bytes: &[u8]) {
    // Nearly every name: UTF-8 without a character that needs escaping, kept as it is.
    if let Ok(text) = std::str::from_utf8(bytes) {
        if !text.chars().any(is_escape) {
            out.push_str(text);
            return;
        }
    }
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_escape(c) {
                let mut buffer = [0u8; 4];
                for byte in c.encode_utf8(&mut buffer).bytes() {
                    push_escaped(out, byte);
                }
            } else {
                out.push(c);
            }
        }
        for &byte in chunk.invalid() {
            push_escaped(out, byte);
        }
    }
}

/// The bytes an [`encode`]d path stands for.
pub fn decode(encoded: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded.len());
    for c in encoded.chars() {
        if is_escape(c) {
            out.push((u32::from(c) - ESCAPE_BASE) as u8);
        } else {
            let mut buffer = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
        }
    }
    out
}

/// An [`encode`]d workspace-relative path as a path to join onto the workspace.
#[cfg(unix)]
pub fn to_path(encoded: &str) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(OsString::from_vec(decode(encoded)))
}

#[cfg(not(unix))]
pub fn to_path(encoded: &str) -> PathBuf {
    PathBuf::from(encoded)
}

/// A name as an [`encode`]d string.
#[cfg(unix)]
pub fn from_os(name: &OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    encode(name.as_bytes())
}

/// [`from_os`], appended to `out`.
#[cfg(unix)]
pub fn push_os(out: &mut String, name: &OsStr) {
    use std::os::unix::ffi::OsStrExt;
    encode_into(out, name.as_bytes());
}

#[cfg(not(unix))]
pub fn from_os(name: &OsStr) -> String {
    name.to_string_lossy().into_owned()
}

/// [`from_os`], appended to `out`.
#[cfg(not(unix))]
pub fn push_os(out: &mut String, name: &OsStr) {
    out.push_str(&name.to_string_lossy());
}

/// Whether an encoded path stands for a name that is not UTF-8 (shown with the escapes).
pub fn is_escaped(encoded: &str) -> bool {
    encoded.chars().any(is_escape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_name() {
        let names: [&[u8]; 6] = [
            b"src/main.rs",
            b"caf\xe9.txt",
            b"dir\xff\xfe/x",
            "na\u{F7E9}me".as_bytes(),
            "é/ü".as_bytes(),
            b"\xed\xa0\x80",
        ];
        for name in names {
            let encoded = encode(name);
            assert_eq!(decode(&encoded), name, "{encoded:?}");
        }
        assert_eq!(encode(b"plain/path.rs"), "plain/path.rs");
        assert!(is_escaped(&encode(b"caf\xe9")));
        assert!(!is_escaped("café"));
        // A real name holding an escape character does not collide with an escaped byte.
        assert_ne!(encode("\u{F7E9}".as_bytes()), encode(b"\xe9"));
    }
}
