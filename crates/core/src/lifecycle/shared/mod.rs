//! One agent process for several sessions (codex app-server threads, ACP sessions).
//!
//! - [`SharedProcesses`]: the pool of a provider, keyed by the launch ([`SharedKey`]: program,
//!   arguments, effective environment; not the folder, which each native session takes for
//!   itself). [`SharedProcesses::join`] gives a session a [`SharedMember`] of the running
//!   process of its key, or starts one (once: concurrent joins of one key wait for the same
//!   start, so a crash with many sessions restarts the process once).
//! - [`SharedProcess`] (in `process`): the process, its JSON-RPC peer and its members. The
//!   peer's reader hands each message to a demultiplexer, which asks the provider's [`Route`]
//!   whose native session (thread, ACP session) it is, and queues it for that member only: each
//!   member has its own bounded queue and its own task running its [`Translator`](crate::lifecycle::Translator) and sending
//!   into its session's sink. A slow session fills its own queue; the reader waits only when the
//!   queue of the session a message is for is full (backpressure on the agent, nothing
//!   dropped), never for another session's. Sessions open one at a time on a process: the
//!   member that has not claimed its native session yet (it is opening: the id comes with the
//!   answer) takes the messages of native sessions nobody claimed, as a process of its own
//!   would have given it; the next opens once it claimed.
//! - A member has its own [`Liveness`](crate::lifecycle::Liveness): the process's death is a runtime failure of every live
//!   member (each gets `RuntimeFailed` after the messages queued before it); a member that
//!   leaves (close, restart) stops receiving at once.
//! - Crash loops are counted per launch key ([`ProcessDeaths`]): one death of the process is one
//!   death, however many members it failed.
//! - The last member leaving stops the process after the pool's idle grace (at once, awaited by
//!   the leaving session's close, when the grace is zero). With an idle grace and a fresh start
//!   given by the provider ([`SharedProcesses::spare_start`], `fresh`), the process stops at once
//!   as well and a new one of the same launch is started as the provider's spare.
//!
//! Ordering: a member's messages reach its translator in the agent's order, but an answer to a
//! call is not queued: it may overtake notifications of the same session still in its queue.
//! Where that matters (a replay before its answer, a turn's last updates before the answer that
//! ends it) the session waits on its [`Settle`] after the answer.

mod fresh;
mod open_again;
mod pool;
mod process;

pub use crate::process_deaths::{ProcessDeaths, SharedDeath};
pub use fresh::StartFresh;
pub use open_again::open_again_if_died;
pub use pool::{SharedKey, SharedProcesses};
pub use process::{Settle, SharedMember, SharedProcess};

use serde_json::Value;

/// Whose message it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteKey {
    /// The native session (thread, ACP session) with this id, or the member that owns it
    /// ([`Translator::owns`](super::Translator::owns): a sub-agent's thread).
    Session(String),
    /// Every member (a notification about the process, not a session: a warning, a changed
    /// list of skills).
    All,
    /// Nobody: a notification is dropped, a request refused.
    Nobody,
}

/// How a provider tells whose message it is.
pub trait Route: Send + Sync + 'static {
    /// The owner of the notification `method` with `params`.
    fn notification(&self, method: &str, params: &Value) -> RouteKey;
    /// The owner of the request `method` with `params`.
    fn request(&self, method: &str, params: &Value) -> RouteKey;
}

/// Routes by a string member of the params (`threadId` for Codex, `sessionId` for ACP); a
/// notification without it goes to every member, a request without it to nobody.
#[derive(Debug, Clone, Copy)]
pub struct ByParam(pub &'static str);

impl Route for ByParam {
    fn notification(&self, _method: &str, params: &Value) -> RouteKey {
        match params.get(self.0).and_then(Value::as_str) {
            Some(id) => RouteKey::Session(id.to_string()),
            None => RouteKey::All,
        }
    }

    fn request(&self, _method: &str, params: &Value) -> RouteKey {
        match params.get(self.0).and_then(Value::as_str) {
            Some(id) => RouteKey::Session(id.to_string()),
            None => RouteKey::Nobody,
        }
    }
}
