//! The error every command returns to the UI: serialised as `{code, message}` so the UI can
//! branch on a stable code and show the message as written.

use arbor_protocol::ErrorCode;
use serde::ser::SerializeStruct;

use arbor_app::AppError;

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    App(#[from] AppError),
    /// The app could not open its data folder at start-up; every command says why.
    #[error("{message}")]
    Startup { code: ErrorCode, message: String },
    #[error("No project is open in this window. Open a folder first.")]
    NoProject,
    #[error("No chat is open in this window yet.")]
    NoSession,
    #[error("The window could not be opened: {0}")]
    Window(String),
}

impl CommandError {
    /// A stable, machine-readable code (snake_case) for the UI.
    pub fn code(&self) -> ErrorCode {
        match self {
            CommandError::App(error) => error.code(),
            CommandError::Startup { code, .. } => *code,
            CommandError::NoProject => ErrorCode::NoProject,
            CommandError::NoSession => ErrorCode::NoSession,
            CommandError::Window(_) => ErrorCode::Window,
        }
    }
}

impl serde::Serialize for CommandError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("CommandError", 2)?;
        state.serialize_field("code", &self.code())?;
        state.serialize_field("message", &self.to_string())?;
        state.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_app::ProjectError;

    #[test]
    fn serialises_as_code_and_message() {
        let error = CommandError::from(AppError::from(ProjectError::Empty));
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(json["code"], "invalid_path");
        assert_eq!(json["message"], error.to_string());
        assert_eq!(json.as_object().unwrap().len(), 2);
    }
}
