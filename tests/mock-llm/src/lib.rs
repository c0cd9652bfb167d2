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
pub mod structured;

pub use conversation::{Conversation, ToolDecl};
pub use hermetic::{Cli, HermeticEnv, HermeticError};
pub use locator::{cli_path, cli_version, package_version, report_ok, report_skipped, require_cli};
pub use record::{Family, RecordedRequest};
pub use reply::Reply;
pub use routes::classify;
pub use script::{Rule, Script, ScriptError, ScriptReply};
pub use server::{MockError, MockLlm, MockOptions};

/// The MCP stdio server whose tools ask through MCP elicitation (`fixtures/mcp-elicit.mjs`,
/// run by node): tool `pick` asks a form, tool `visit` a URL; each result is
/// `ELICIT action=<action> content=<JSON>`.
pub fn mcp_elicit_fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp-elicit.mjs")
}

/// `node` as an absolute path (from this process's `PATH`), else `node`: the program that runs
/// the MCP fixtures.
pub fn node_program() -> String {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join("node"))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "node".into())
}
