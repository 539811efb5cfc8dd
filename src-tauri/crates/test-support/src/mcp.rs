//! MCP servers for tests: the misbehaving mock (`mcp/mock-mcp-server.mjs`, run by Node; its
//! header lists its tools) and the real servers `npm ci` installs from npm.

use std::path::{Path, PathBuf};

/// The repository root (this crate sits at `<repository>/src-tauri/crates/test-support`).
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// The mock server's script: run it as `node <script>`.
pub fn mock_mcp_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/mock-mcp-server.mjs")
}

/// The command of a server installed from npm into the repository's `node_modules` (a
/// devDependency, so `npm ci` installs it), e.g. `mcp-server-everything`. Panics with what to
/// run when it is missing: a test never skips for want of it.
pub fn npm_server(bin: &str) -> PathBuf {
    let path = repository().join("node_modules/.bin").join(bin);
    assert!(
        path.exists(),
        "{} is missing: run `npm ci` at the repository root (the MCP servers tests run are \
         devDependencies)",
        path.display()
    );
    path
}
