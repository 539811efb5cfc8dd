//! The built-in tools under the failures of the "Nothing lost" trials, in one test binary:
//! `bash`'s processes die with Arbor (a watchdog per command), `edit` refuses huge files before
//! reading them and keeps its result small, special files (FIFOs, devices, sockets) are refused
//! instead of blocking, a deleted project folder is never recreated, and names that are not
//! UTF-8 can be listed and opened.

mod bash_watchdog;
mod edit_huge_file;
mod non_utf8_names;
mod project_gone;
mod special_files;
