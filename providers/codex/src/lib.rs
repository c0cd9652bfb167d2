//! The Codex provider (agent `codex`): drives `codex app-server` over JSON-RPC lines.
//!
//! One app-server process per session. The protocol can multiplex threads over one process, but
//! a process per session keeps each session's environment (`config.env`, `CODEX_HOME`), crash
//! and kill semantics (a crash or `kill -9` fails exactly one session) and shutdown independent,
//! and needs no routing of approvals and notifications between sessions. Catalog and session
//! list use a short-lived app-server of their own.

pub mod archive;
pub mod auth;
pub mod availability;
pub mod catalog;
pub mod commands;
pub mod history;
pub mod launch;
pub mod normalize;
pub mod options;
pub mod permissions;
mod provider;
mod queries;
pub mod questions;
pub mod sandbox_cache;
pub mod session;
pub mod state;
pub mod sub_agents;
pub mod threads;
pub mod tool_denial;
pub mod translate;
pub mod wire;

pub use provider::CodexProvider;
