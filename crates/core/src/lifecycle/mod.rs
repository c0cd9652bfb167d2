//! The lifecycle of an agent's runtime, the same for every provider: a provider says how its
//! CLI is launched and translates what it says; everything else is here.
//!
//! - [`AgentRuntime`]: the one owner of an agent process and the JSON-RPC peer over its pipes:
//!   spawn (in the session's process scope), a failed start with the CLI's last stderr lines
//!   (waiting for stderr to close, bounded), graceful stop within a limit.
//! - [`errors`]: spawn and call failures as [`ProviderError`](agent_bridge_protocol::ProviderError)s
//!   with one set of codes.
//! - [`Liveness`]: whether an exit of the runtime is a failure (live) or expected (starting,
//!   closing, asked for).
//! - [`InboundDriver`]: the peer's [`Inbound`](crate::rpc::Inbound) for a session: hands each
//!   message to the provider's [`Translator`], sends the events into the session's sink
//!   ([`EventTarget`]), and reports an unexpected exit as `AgentEvent::RuntimeFailed`.
//! - [`RefuseAll`]: the inbound of a runtime without a session (a catalog probe, a spare);
//!   [`LateInbound`]: a prestarted spare's, refusing until the session that takes it binds its
//!   own.
//! - [`PendingRequests`]: the agent's requests waiting for the user, bound to their turn.
//! - [`Relaunch`]: how a session's runtime was started, so a restart starts it the same way.
//! - [`ProcessChoice`]: how a session gets its process (its own, a shared one, a prestarted or a
//!   warm spare), decided here for every provider from its plugin.json options; a provider
//!   gives only its [`ProcessLaunch`] (start, route, an optional warm-up).
//! - [`spares`]: the bridge's warm spares ([`spares::Spares`]: their idle time and the
//!   bridge's stop; the prestarted pool; the registry `doctor --json` reads).
//! - [`SessionRuntime`]: a session's runtime, its own process or its place on a shared one.
//! - [`shared`](mod@shared): one process for several sessions ([`SharedProcesses`], routing by native
//!   session id, per-session bounded queues, idle stop).
//! - [`SharedState`] and [`lock`]: state shared by a session's methods and its inbound, with
//!   one policy on a poisoned lock.

mod agent_runtime;
pub mod choice;
mod driver;
pub mod errors;
mod liveness;
mod pending;
mod refuse;
mod relaunch;
mod session_runtime;
pub mod shared;
pub mod spares;
mod state;

pub use agent_runtime::{AgentRuntime, RuntimeLaunch, START_EXIT_WAIT};
pub use choice::{join_shared, ProcessChoice, ProcessLaunch, ProcessOptions, Sharing};
pub use driver::{EventTarget, InboundDriver, Translator};
pub use liveness::Liveness;
pub use pending::{Pending, PendingRequests};
pub use refuse::{LateInbound, RefuseAll};
pub use relaunch::Relaunch;
pub use session_runtime::SessionRuntime;
pub use shared::{SharedKey, SharedMember, SharedProcesses};
pub use state::{lock, shared, SharedState};
