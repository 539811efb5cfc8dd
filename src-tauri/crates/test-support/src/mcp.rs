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

/// `count` tools for the mock server's `MOCK_MCP_TOOLS` file, sized like a real server's (a
/// paragraph of description and a schema of six parameters, about 500 tokens each, as GitHub's
/// server's tools are): `<prefix>_<i>` named, each answering as `echo` does only when named
/// `echo`. For measuring what many servers' schemas cost a request.
pub fn many_tools(prefix: &str, count: usize) -> serde_json::Value {
    let tools: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            let description = format!(
                "{prefix} operation number {i}. Reads or changes records of the {prefix} service: \
                 give the owner and the name of the collection, an optional filter and the page \
                 to read. Answers the matching records as JSON, newest first, with their ids, \
                 titles, states, labels, authors and the times they were created and last \
                 changed. Use it when the user asks about {prefix} records; prefer a filter to \
                 reading every page. Errors say which argument was wrong and what to give instead."
            );
            let field = |what: &str| serde_json::json!({"type": "string", "description": format!("The {what} of the {prefix} record set, as the service names it")});
            serde_json::json!({
                "name": format!("{prefix}_{i}"),
                "description": description,
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "owner": field("owner"),
                        "collection": field("collection"),
                        "filter": field("filter"),
                        "state": {"type": "string", "enum": ["open", "closed", "all"], "description": "Which records"},
                        "page": {"type": "integer", "minimum": 1, "description": "The page, from 1"},
                        "per_page": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Records per page"}
                    },
                    "required": ["owner", "collection"]
                }
            })
        })
        .collect();
    serde_json::Value::Array(tools)
}

/// The command of a server installed from PyPI into `tests/mcp-servers-py/.venv` (by
/// `scripts/setup.sh test`), e.g. `mcp-server-git`. Panics with what to run when missing.
pub fn pypi_server(bin: &str) -> PathBuf {
    let path = repository()
        .join("tests/mcp-servers-py/.venv/bin")
        .join(bin);
    assert!(
        path.exists(),
        "{} is missing: run `bash scripts/setup.sh test` (it installs the PyPI MCP servers the \
         tests run)",
        path.display()
    );
    path
}
