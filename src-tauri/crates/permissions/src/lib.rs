//! `arbor-permissions`: what the model may do in a project, decided before a tool runs and
//! enforced again by the tools themselves.
//!
//! Map:
//! - [`rule`]: rules as users write them (`Bash(cargo test *)`, `Edit(src/**)`, `Read(~/.x/**)`,
//!   `Net(*)`, `Mcp(server:tool)`), parsed and matched.
//! - [`shell`]: a `bash` line split into simple commands with a real shell parser; what a rule
//!   cannot see through (substitutions, `eval`, `sh -c`, redirections to files…) is opaque.
//! - [`paths`]: paths resolved before any check (links followed, `..` applied), the default
//!   secret-path list, the paths protected inside a project (`.git/hooks`, `.git/config`,
//!   `.arbor`).
//! - [`policy`]: a project's mode, rules, secret paths and sandbox, and the verdict on one
//!   action (deny → ask → allow, first match wins, the mode's default last).
//! - [`guard`]: the policy as a session's tools share it; grants for calls the user allowed;
//!   how an allowed command is confined.
//! - [`gate`]: the hook before every tool call that asks the user (or refuses where nobody
//!   can answer).
//!
//! The modes and the wire types (requests, decisions, rules as listed) are
//! `arbor_protocol::views::permissions`.

pub mod gate;
pub mod guard;
pub mod paths;
pub mod policy;
pub mod rule;
pub mod shell;

pub use gate::{PermissionGate, UnknownRequest};
pub use guard::{Confinement, PermissionGuard, Refusal};
pub use policy::{Action, Escalation, Evaluation, Policy, SandboxProbe, SourcedRule};
pub use rule::{FileAccess, Rule, RuleError};
