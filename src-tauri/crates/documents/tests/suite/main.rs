//! The document readers against real files made by LibreOffice and Ghostscript, and hostile ones.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod documents;
