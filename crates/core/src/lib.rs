//! The agent-bridge engine: transport, provider registry, connections, the session and turn
//! state machine, the timeline snapshot store and the process supervisor.

pub mod agent;
pub mod agent_process;
pub mod carry_over;
pub mod codec;
pub mod connection;
pub mod effective_env;
pub mod elicitation;
pub mod emitter;
pub mod guard;
pub mod history;
pub mod host_input;
pub mod in_process;
pub mod inflight;
pub mod lifecycle;
/// The bridge's warm spares ([`lifecycle::spares`]), by their old path.
pub use lifecycle::spares;
pub mod limits;
pub mod login;
pub mod loopback_http;
pub mod probe;
pub mod probe_cache;
pub mod proc_info;
pub mod process_deaths;
#[cfg(target_os = "linux")]
mod proctree;
pub mod registry;
pub mod retry_notice;
pub mod rpc;
pub mod scope;
pub mod server;
pub mod session;
pub mod stop_signal;
pub mod supervisor;
pub mod timeline;

pub use agent::*;
