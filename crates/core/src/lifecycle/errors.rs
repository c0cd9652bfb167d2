//! Spawn and call failures of an agent runtime as provider errors, with one set of codes for
//! every provider.

use crate::rpc::PeerError;
use crate::supervisor::SpawnError;
use agent_bridge_protocol::{ErrorCode, ProviderError};

/// A process that could not be spawned. `install` says how to get the CLI (appended when it
/// is not found).
pub fn spawn_error(e: SpawnError, install: &str) -> ProviderError {
    match e {
        SpawnError::NotFound { .. } => {
            let message = if install.is_empty() {
                e.to_string()
            } else {
                format!("{e}; {install}")
            };
            ProviderError::new(message).with_code(ErrorCode::CliMissing)
        }
        SpawnError::Io { .. } => {
            ProviderError::new(e.to_string()).with_code(ErrorCode::CliUnrunnable)
        }
        SpawnError::MissingCwd { .. } | SpawnError::CwdNotAFolder { .. } => {
            ProviderError::new(e.to_string()).with_code(ErrorCode::CwdMissing)
        }
    }
}

/// A call the agent failed, with `stderr` (its last lines) as diagnostic: its own error
/// (`agent_error`, its words and details first), its exit (`runtime_exited`) or its silence
/// (`timeout`).
pub fn call_error(e: PeerError, stderr: &str) -> ProviderError {
    let code = match &e {
        PeerError::Rpc { .. } => ErrorCode::AgentError,
        PeerError::Closed { .. } => ErrorCode::RuntimeExited,
        PeerError::Timeout { .. } => ErrorCode::Timeout,
    };
    let message = match e.rpc() {
        Some(error) => match &error.data {
            Some(serde_json::Value::String(d)) => format!("{}: {d}", error.message),
            Some(d) if !d.is_null() => format!("{}: {d}", error.message),
            _ => error.message.clone(),
        },
        None => e.to_string(),
    };
    ProviderError::new(message)
        .with_code(code)
        .with_diagnostic(stderr.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::rpc_error;
    use pretty_assertions::assert_eq;
    use std::time::Duration;

    #[test]
    fn calls_fail_with_the_agents_words_and_one_code_per_cause() {
        let mut error = rpc_error(-32603, "Internal error");
        error.data = Some(serde_json::json!("model not found"));
        let e = call_error(
            PeerError::Rpc {
                peer: "agent".into(),
                method: "session/prompt".into(),
                error,
            },
            "last line",
        );
        assert_eq!(e.message, "Internal error: model not found");
        assert_eq!(e.code, Some(ErrorCode::AgentError));
        assert_eq!(e.diagnostic.as_deref(), Some("last line"));
        let gone = call_error(
            PeerError::Closed {
                peer: "agent".into(),
                method: "x".into(),
                reason: "exited".into(),
            },
            "",
        );
        assert_eq!(gone.code, Some(ErrorCode::RuntimeExited));
        assert_eq!(gone.diagnostic, None);
        let slow = call_error(
            PeerError::Timeout {
                peer: "agent".into(),
                method: "x".into(),
                limit: Duration::from_secs(1),
            },
            "",
        );
        assert_eq!(slow.code, Some(ErrorCode::Timeout));
    }

    #[test]
    fn spawn_failures_say_what_to_do() {
        let missing = spawn_error(
            SpawnError::NotFound {
                program: "claude".into(),
                searched: "/bin".into(),
            },
            "install it",
        );
        assert_eq!(missing.code, Some(ErrorCode::CliMissing));
        assert!(
            missing.message.ends_with("; install it"),
            "{}",
            missing.message
        );
        let cwd = spawn_error(
            SpawnError::MissingCwd {
                cwd: "/nowhere".into(),
            },
            "install it",
        );
        assert_eq!(cwd.code, Some(ErrorCode::CwdMissing));
    }
}
