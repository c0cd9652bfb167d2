//! A mode change of an open session whose modes are process modes ([`crate::process_modes`]):
//! the session leaves its process (closed on it where the agent has `session/close`; a process
//! of its own stops), moves to a process of the new mode (a fresh one, or the shared one of
//! that launch) and is brought back there with `session/resume`, else `session/load` (its
//! replay dropped: the timeline shows it already, [`Phase::Restoring`]); its committed model
//! and thinking level are set again. The session keeps its id, history and handle.
//!
//! Refused, with nothing changed: while a turn runs or a permission waits (the turn lives in
//! the old process), and for an agent that can neither resume nor load a session. When the
//! new process cannot take the session (Deep Agents Code refuses one its old process, still
//! serving other sessions, holds), the session is brought back on a process of its old mode as
//! after a crash ([`crate::session`]), and the change fails with the agent's words.

use crate::config::{AcpConfig, MODE};
use crate::launch::{self, Agent};
use crate::persistence;
use crate::restart::{reapply, restore_method, SessionRelaunch};
use crate::state::{lock, Phase, SharedState};
use crate::wire::{requests, SessionAnswer};
use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::{ErrorCode, ProviderError, ProviderNotice, Severity};

/// Why the session of `agent` cannot move to a process of `mode` now, if it cannot.
pub fn refusal(
    agent: &Agent,
    shared: &SharedState,
    label: &str,
    mode: &str,
) -> Option<ProviderError> {
    let busy = {
        let s = lock(shared);
        s.normalizer.active_turn().is_some() || !s.pending.is_empty()
    };
    if busy {
        return Some(
            ProviderError::new(format!(
                "mode `{mode}` runs {label} in another process: wait for the running turn to end or interrupt it, then change the mode"
            ))
            .with_code(ErrorCode::TurnActive),
        );
    }
    if restore_method(&agent.init.agent_capabilities).is_none() {
        return Some(
            ProviderError::new(format!(
                "mode `{mode}` runs {label} in another process, and {label} can neither resume nor load a session there; open a new session in that mode"
            ))
            .with_code(ErrorCode::Unsupported),
        );
    }
    None
}

/// How the session runs in `mode`: `relaunch` with that mode's arguments.
pub fn relaunch_in(relaunch: &SessionRelaunch, mode: &str) -> SessionRelaunch {
    let mut next = relaunch.clone();
    next.runtime.spec = relaunch
        .profile
        .process_modes
        .spec(&relaunch.base, Some(mode));
    next.process_mode = Some(mode.to_string());
    next
}

/// Starts (or joins) the agent of `next` and brings `session_id` back there, set as before in
/// `mode`. The old process must have let go of the session first: an agent may hold a session
/// as long as the process that opened it lives (Deep Agents Code's thread lease: "Thread … is
/// open elsewhere").
pub async fn bring_to(
    next: &SessionRelaunch,
    shared: &SharedState,
    sink: &SessionSink,
    session_id: &str,
    mode: &str,
) -> Result<Agent, ProviderError> {
    let profile = &next.profile;
    let new = launch::session_agent(
        profile,
        &next.runtime.spec,
        next.processes.as_ref().map(|p| (p, &next.warm)),
        shared.clone(),
        sink.clone(),
        &next.runtime.scope,
    )
    .await?;
    crate::opencode::retry_log::follow(profile, &new.runtime, shared, sink);
    match bring_over(&new, next, shared, sink, session_id, mode).await {
        Ok(()) => {
            new.runtime.liveness().go_live();
            tracing::info!(agent = %profile.label, mode, "session moved to a process of its new mode");
            Ok(new)
        }
        Err(e) => {
            new.shutdown(None).await;
            Err(e)
        }
    }
}

/// Reopens the session on the new agent and sets it as the old one was, in `mode`.
async fn bring_over(
    new: &Agent,
    next: &SessionRelaunch,
    shared: &SharedState,
    sink: &SessionSink,
    session_id: &str,
    mode: &str,
) -> Result<(), ProviderError> {
    let caps = &new.init.agent_capabilities;
    let how = restore_method(caps).ok_or_else(|| {
        ProviderError::new(format!(
            "{} can neither resume nor load a session",
            next.profile.label
        ))
        .with_code(ErrorCode::Unsupported)
    })?;
    let mcp = persistence::mcp_servers(&next.mcp_servers, caps)?;
    lock(shared).phase = Phase::Restoring;
    new.runtime.claim(session_id);
    let params = requests::reopen(how, session_id, &next.cwd, mcp);
    let answer = new.runtime.rpc().call(how, params).await;
    // What it replayed before answering is dropped too.
    new.runtime.settle().wait().await;
    lock(shared).phase = Phase::Live;
    let answer = answer.map_err(|e| new.error(e))?;
    let state: SessionAnswer = serde_json::from_value(answer).unwrap_or_default();
    let previous = {
        let mut s = lock(shared);
        let mut previous = s.config.clone();
        previous.set_local(MODE, mode);
        let mut config = AcpConfig::for_profile(&state, &next.profile, Some(mode));
        config.inherit_defaults(&previous);
        s.config = config;
        previous
    };
    let refused = reapply(new, shared, session_id, &previous).await?;
    if !refused.is_empty() {
        tracing::warn!(agent = %next.profile.label, ?refused, "the moved session did not take its config");
        sink.send(AgentEvent::Notice(ProviderNotice {
            id: format!("agent-config-not-moved:{session_id}:{mode}"),
            severity: Severity::Warning,
            title: "Part of the session's configuration did not follow the mode change".into(),
            description: Some(format!(
                "The agent process of mode `{mode}` did not take: {}",
                refused.join("; ")
            )),
            dismissed: None,
        }))
        .await;
    }
    Ok(())
}
