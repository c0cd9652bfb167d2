//! Warming a fresh spare (a profile's `spareWarmup`): some agents are slow to set up their
//! first session in a process and fast afterwards. OpenCode 1.18's first `session/new` in a
//! process takes ~1 s (its later ones ~20 ms); neither `session/list` nor its HTTP server's
//! own session creation shortens it, a `session/resume` does. So a fresh spare of such an agent
//! resumes the last session its launch opened (in that session's folder) and closes it again
//! before it is offered: nothing is created, nothing is prompted, and the next `session/new`
//! is fast. Only with `sessionCapabilities.resume` and `close` advertised (a resumed session
//! left open would stay loaded in the spare); a warm-up that fails leaves the spare as it is.

use crate::profile::Profile;
use crate::wire::{method, InitializeResult};
use agent_bridge_core::rpc::PeerHandle;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The session a provider's next spare warms with: the last one opened (its id and folder).
#[derive(Debug, Clone, Default)]
pub struct WarmTarget(Arc<Mutex<Option<(String, String)>>>);

impl WarmTarget {
    /// Session `session_id` in `cwd` opened: the next spare warms with it.
    pub fn opened(&self, session_id: &str, cwd: &str) {
        if let Ok(mut t) = self.0.lock() {
            *t = Some((session_id.to_string(), cwd.to_string()));
        }
    }

    fn get(&self) -> Option<(String, String)> {
        self.0.lock().ok().and_then(|t| t.clone())
    }
}

/// Whether a spare of `profile` whose agent answered `init` is warmed.
pub fn wanted(profile: &Profile, init: &InitializeResult) -> bool {
    let caps = &init.agent_capabilities;
    profile.spare_warmup && caps.session("resume") && caps.session("close")
}

/// Resumes and closes the target session on the spare's peer `rpc` (see the module doc),
/// each call within `limit`.
pub async fn warm(
    profile: &Profile,
    init: &InitializeResult,
    rpc: &PeerHandle,
    target: &WarmTarget,
    limit: Duration,
) {
    if !wanted(profile, init) {
        return;
    }
    let Some((session_id, cwd)) = target.get() else {
        return;
    };
    let started = std::time::Instant::now();
    let params = json!({"sessionId": session_id, "cwd": cwd, "mcpServers": []});
    if let Err(e) = rpc.call_within(method::SESSION_RESUME, params, limit).await {
        tracing::debug!(agent = %profile.label, "warming the spare: session/resume failed: {e}");
        return;
    }
    let close = json!({"sessionId": session_id});
    if let Err(e) = rpc.call_within(method::SESSION_CLOSE, close, limit).await {
        tracing::debug!(agent = %profile.label, "warming the spare: session/close failed: {e}");
    }
    tracing::info!(
        agent = %profile.label,
        ms = started.elapsed().as_millis() as u64,
        "spare agent process warmed (session/resume and session/close of the last session)"
    );
}
