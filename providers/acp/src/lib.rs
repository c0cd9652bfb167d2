//! The ACP provider family (agent `acp`): drives any Agent Client Protocol agent over
//! JSON-RPC 2.0 lines on its stdio — Gemini CLI, Qwen Code, OpenCode, claude-agent-acp,
//! codex-acp, or a user's own agent declared in plugin.json.
//!
//! Sessions with the same launch share one agent process (each its own ACP session), unless
//! the entry asks for a process per session (`processPerSession`); a session's environment
//! stays its own (another environment is another launch). Catalog and session list use a
//! short-lived agent of their own. Where the agents differ lives in `profiles.json`
//! ([`profile`]); every ACP call is gated on what the agent advertised in `initialize`.

pub mod advertised;
pub mod auth;
pub mod auth_probe;
pub mod auth_status;
pub mod config;
pub mod launch;
pub mod normalize;
pub mod opencode;
pub mod permissions;
pub mod persistence;
pub mod process_modes;
pub mod process_switch;
pub mod profile;
mod provider;
pub mod restart;
pub mod session;
pub mod session_list;
pub mod spare;
pub mod state;
pub mod translate;
pub mod unattended;
pub mod wire;

pub use provider::AcpProvider;
