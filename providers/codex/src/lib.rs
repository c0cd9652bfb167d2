//! The Codex provider (agent `codex`): drives `codex app-server` over JSON-RPC lines.
//!
//! Sessions whose launch (program, arguments, environment with `config.env` and `CODEX_HOME`)
//! is the same share one app-server (the default; see `route` and the core's
//! `lifecycle::shared`): each has its own thread, folder, model, mode and MCP servers. With
//! `"processPerSession": true` each session has an app-server of its own. Catalog and session
//! list use a short-lived app-server of their own.

pub mod archive;
pub mod auth;
pub mod availability;
pub mod catalog;
pub mod commands;
pub mod history;
pub mod launch;
pub mod normalize;
mod open;
pub mod options;
pub mod permissions;
mod provider;
mod queries;
pub mod questions;
pub mod route;
pub mod sandbox_cache;
pub mod session;
pub mod spare;
pub mod state;
pub mod sub_agents;
pub mod threads;
pub mod tool_denial;
pub mod translate;
pub mod wire;

pub use provider::CodexProvider;
