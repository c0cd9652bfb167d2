//! mock-llm: the real-CLI test rig of agent-bridge.
//!
//! - [`MockLlm`]: a scriptable mock model server on 127.0.0.1 speaking the Anthropic
//!   Messages, OpenAI Responses, OpenAI Chat Completions and Gemini APIs (SSE and JSON),
//!   logging every request, and trapping outbound proxy traffic (`proxy-refused`).
//! - [`hermetic`]: per-CLI HOME/config/env recipes for running the real CLIs offline.
//! - [`locator`]: finding the pinned CLIs installed by `tests/clis/install.sh`.
//!
//! Replies are chosen from the request content (see [`reply`]); [`Script`] adds regex rules
//! and an ordered step queue.

pub mod conversation;
pub mod hermetic;
pub mod http;
pub mod locator;
pub mod record;
pub mod reply;
mod routes;
pub mod schema;
pub mod script;
mod server;
pub mod sse;

pub use conversation::{Conversation, ToolDecl};
pub use hermetic::{Cli, HermeticEnv, HermeticError};
pub use locator::{cli_path, cli_version, package_version, report_ok, require_cli};
pub use record::{Family, RecordedRequest};
pub use reply::Reply;
pub use routes::classify;
pub use script::{Rule, Script, ScriptError, ScriptReply};
pub use server::{MockError, MockLlm, MockOptions};
