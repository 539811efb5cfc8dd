//! The built-in tools a session offers: `arbor-tools`' own, and `js`, which runs model-written
//! JavaScript and so lives with the model's tools (`skills`). Built here so that `arbor-tools`
//! knows nothing of the model's tools (the import used to point the other way).

use std::sync::Arc;

use arbor_agent::AgentTool;

use crate::skills::JsTool;
use crate::tools::{BuiltinToolOptions, BuiltinToolsError, RedactingTool};
use crate::workspace::Workspace;

/// The enabled built-in tools over `workspace`, in the order `options.names` gives, each behind
/// a [`RedactingTool`] (see [`crate::tools::builtin_tools`]); `js` included.
pub fn builtin_tools(
    workspace: &Workspace,
    options: &BuiltinToolOptions,
) -> Result<Vec<Arc<dyn AgentTool>>, BuiltinToolsError> {
    let mut tools: Vec<Arc<dyn AgentTool>> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for name in &options.names {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        if name == "js" {
            let js: Arc<dyn AgentTool> = Arc::new(JsTool::new(workspace.cwd().to_path_buf()));
            tools.push(RedactingTool::wrap(js, options.redactor.clone()));
        } else {
            let one = BuiltinToolOptions {
                names: vec![name.clone()],
                ..options.clone()
            };
            tools.extend(crate::tools::builtin_tools(workspace, &one)?);
        }
    }
    Ok(tools)
}
