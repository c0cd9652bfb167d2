//! Claude Code as a Paseo provider.
//!
//! One long-lived `claude -p --input-format stream-json --output-format stream-json` process per
//! session, driven through the CLI's control protocol (`initialize`, `can_use_tool`,
//! `interrupt`, `set_model`, `set_permission_mode`, `apply_flag_settings`). The pure
//! [`normalize::Normalizer`] turns the CLI's stdout into complete timeline snapshots; the
//! [`session`] module owns the process, the turn accounting and the control plumbing.

pub mod auth;
pub mod availability;
pub mod catalog;
pub mod commands;
pub mod control;
pub mod dialect;
pub mod launch;
pub mod list;
pub mod mcp_file;
pub mod normalize;
pub mod options;
pub mod permissions;
pub mod prompt;
pub mod provider;
pub mod runtime;
pub mod saved;
pub mod session;
pub mod sidechains;
pub mod state;
pub mod transcript;
pub mod transcript_peek;
pub mod translate;
pub mod warm;
pub mod wire;

pub use provider::ClaudeProvider;

/// The provider's agent name in `plugin.json`.
pub const AGENT: &str = "claude";
/// The program launched when neither `launch` nor `plugin.json` overrides it.
pub const DEFAULT_PROGRAM: &str = "claude";
