//! The error every command returns to the UI: serialised as `{code, message}` so the UI can
//! branch on a stable code and show the message as written.

use serde::ser::SerializeStruct;

use crate::project::ProjectError;

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    Project(#[from] ProjectError),
}

impl CommandError {
    /// A stable, machine-readable code (snake_case) for the UI.
    pub fn code(&self) -> &'static str {
        match self {
            CommandError::Project(error) => error.code(),
        }
    }
}

impl serde::Serialize for CommandError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("CommandError", 2)?;
        state.serialize_field("code", self.code())?;
        state.serialize_field("message", &self.to_string())?;
        state.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_code_and_message() {
        let error = CommandError::from(ProjectError::Empty);
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(json["code"], "invalid_path");
        assert_eq!(json["message"], error.to_string());
        assert_eq!(json.as_object().unwrap().len(), 2);
    }
}
