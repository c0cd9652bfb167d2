//! The bridge's error codes: `ProviderError.code` on the wire (`request.failed`, a failed
//! turn, `session.runtime_failed`, a failed prompt result).
//!
//! One enum, one string per meaning. A code the bridge does not know (a host's, a newer
//! bridge's, or a vendor's own word such as Claude Code's `error_max_turns` result subtype) is
//! kept as [`ErrorCode::Other`] and written back unchanged, so nothing is lost and nothing is
//! refused.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $variant:ident = $text:literal, )*) => {
        /// An error code (see the [module](self)).
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* $variant, )*
            /// A code this bridge does not define, kept as it came.
            Other(String),
        }

        impl ErrorCode {
            /// Every code the bridge defines, with what it means.
            pub const KNOWN: &'static [(&'static str, &'static str)] = &[
                $( ($text, concat!($($doc),*)), )*
            ];

            /// The code as it appears on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( ErrorCode::$variant => $text, )*
                    ErrorCode::Other(other) => other,
                }
            }

            /// The code a wire string names (unknown strings are [`ErrorCode::Other`]).
            pub fn parse(text: &str) -> ErrorCode {
                match text {
                    $( $text => ErrorCode::$variant, )*
                    other => ErrorCode::Other(other.to_string()),
                }
            }
        }
    };
}

error_codes! {
    // The agent process.
    /// The agent's CLI is not installed (not found on `PATH`, or the configured command is missing).
    CliMissing = "cli_missing",
    /// The agent's CLI exists but could not be executed (permissions, a bad interpreter).
    CliUnrunnable = "cli_unrunnable",
    /// The agent's CLI started but failed before it answered its handshake.
    CliStartFailed = "cli_start_failed",
    /// The session's working folder does not exist or is not a folder.
    CwdMissing = "cwd_missing",
    /// The agent's process exited (or closed its output) while it was needed.
    RuntimeExited = "runtime_exited",
    /// The session's runtime is gone for good; the session no longer takes prompts.
    RuntimeFailed = "runtime_failed",
    /// The agent stopped again and again without completing a turn; the session was given up.
    CrashLoop = "crash_loop",
    /// The agent could not be started again after it stopped.
    RestartFailed = "restart_failed",
    /// The agent did not answer in time.
    Timeout = "timeout",
    /// The agent refused a request (its own error, in `message`).
    AgentError = "agent_error",
    /// The model API failed (an HTTP error, an overloaded or unauthorized API).
    ApiError = "api_error",
    /// The agent needs a login first.
    AuthRequired = "auth_required",
    /// The agent speaks a protocol version this bridge does not.
    Incompatible = "incompatible",
    /// The model refused to continue.
    Refusal = "refusal",
    /// The built-in demo agent failed as its script asked it to.
    DemoFailure = "demo_failure",
    // Sessions and turns.
    /// The session is closing or closed.
    SessionClosed = "session_closed",
    /// The session failed to open.
    SessionNotOpen = "session_not_open",
    /// The native session a persistence handle names does not exist.
    SessionNotFound = "session_not_found",
    /// The session is busy with something that cannot run alongside this request.
    SessionBusy = "session_busy",
    /// A turn is running; this needs none (or a steer).
    TurnActive = "turn_active",
    /// No turn is running.
    NoActiveTurn = "no_active_turn",
    /// The request was canceled (the session closed while it ran).
    Canceled = "canceled",
    // Inputs the bridge or the agent refuses.
    /// A persistence handle the agent cannot read.
    InvalidPersistence = "invalid_persistence",
    /// A mode the agent does not offer.
    InvalidMode = "invalid_mode",
    /// A model the agent does not offer.
    InvalidModel = "invalid_model",
    /// A thinking option the agent does not offer.
    InvalidThinkingOption = "invalid_thinking_option",
    /// A `providerOptions` key or value the agent does not take.
    InvalidProviderOption = "invalid_provider_option",
    /// A configuration option of the agent with a value it does not take.
    InvalidConfig = "invalid_config",
    /// A setting the agent does not take.
    InvalidSetting = "invalid_setting",
    /// A command's arguments the command does not take.
    InvalidArguments = "invalid_arguments",
    /// A `revertToken` that is not one of this agent's.
    InvalidRevertToken = "invalid_revert_token",
    /// A command the session does not list.
    UnknownCommand = "unknown_command",
    /// A permission that is not pending (answered already, or never asked).
    UnknownPermission = "unknown_permission",
    /// A message a rewind names that the conversation does not hold.
    UnknownMessage = "unknown_message",
    /// A rewind of a conversation that has nothing saved to rewind.
    NothingToRewind = "nothing_to_rewind",
    /// The agent could not restore the files a rewind asked for.
    RewindFilesFailed = "rewind_files_failed",
    /// Something this agent does not support.
    Unsupported = "unsupported",
    /// Prompt content this agent does not take (an image, say).
    UnsupportedContent = "unsupported_content",
    /// An MCP server transport this agent does not take.
    UnsupportedMcpTransport = "unsupported_mcp_transport",
    /// A rewind scope this agent does not support.
    UnsupportedScope = "unsupported_scope",
    /// The MCP servers' configuration could not be handed to the agent.
    McpConfig = "mcp_config",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(ErrorCode::parse(&text))
    }
}

impl JsonSchema for ErrorCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let known: Vec<&str> = ErrorCode::KNOWN.iter().map(|(code, _)| *code).collect();
        schemars::json_schema!({
            "description": "The bridge's error codes (`enum`); any other string is a code from elsewhere, passed on unchanged.",
            "anyOf": [
                {"type": "string", "enum": known},
                {"type": "string"}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn every_known_code_reads_back_as_itself() {
        for (text, doc) in ErrorCode::KNOWN {
            let code = ErrorCode::parse(text);
            assert!(!matches!(code, ErrorCode::Other(_)), "{text}");
            assert_eq!(code.as_str(), *text);
            assert!(!doc.is_empty(), "{text} says what it means");
        }
        let mut texts: Vec<&str> = ErrorCode::KNOWN.iter().map(|(t, _)| *t).collect();
        texts.sort();
        texts.dedup();
        assert_eq!(texts.len(), ErrorCode::KNOWN.len(), "one string per code");
    }

    #[test]
    fn an_unknown_code_is_kept_and_written_back() {
        let code: ErrorCode = serde_json::from_str("\"error_max_turns\"").expect("a string");
        assert_eq!(code, ErrorCode::Other("error_max_turns".into()));
        assert_eq!(
            serde_json::to_string(&code).expect("json"),
            "\"error_max_turns\""
        );
        assert_eq!(
            serde_json::to_string(&ErrorCode::RuntimeExited).expect("json"),
            "\"runtime_exited\""
        );
        assert!(serde_json::from_str::<ErrorCode>("3").is_err());
    }
}
