//! Restarting a session's agent after its process died ([`AgentSession::restart`]): the agent
//! is spawned again as the open spawned it (same launch, environment and process scope),
//! initialized (a shared process: the first of its sessions to restart starts it, the others
//! join it), and its native session brought back:
//!
//! - `session/resume` where the agent advertises it (the history stays in the agent, nothing
//!   is replayed);
//! - else `session/load`, whose replay of the history is dropped (the session state's
//!   [`Phase::Restoring`]): the timeline already shows it, under the same item ids;
//! - else, or when that call fails, `session/new` in the same cwd with the same MCP servers,
//!   answered as `Restarted::Fresh`: the core says in a warning notice that the agent lost the
//!   conversation and gives the model what the session still holds with the next prompt. A
//!   fresh session keeps the Paseo session (its timeline, config and tab) usable, which ending
//!   it would not.
//!
//! What the agent advertises is taken minus the profile's `unusableMethods` (Gemini's
//! `session/load`, see `profiles.json`). The session's committed model, mode and thinking
//! level are then set again on the new native session; a value it does not take is named in a
//! warning notice.
//!
//! [`AgentSession::restart`]: agent_bridge_core::AgentSession::restart

use crate::config::{AcpConfig, MODE, MODEL};
use crate::launch::{self, auth_error, Agent};
use crate::persistence;
use crate::profile::Profile;
use crate::state::{lock, Phase, SharedState};
use crate::wire::{method, requests, AgentCapabilities, SessionAnswer};
use agent_bridge_core::lifecycle::{Relaunch, SharedProcesses};
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    McpServerConfig, ProviderConfigChanges, ProviderError, ProviderNotice, Severity,
};

use std::collections::BTreeMap;
use std::time::Instant;

/// How a session's agent was started and its native session made: what a restart repeats.
#[derive(Debug, Clone)]
pub struct SessionRelaunch {
    pub profile: Profile,
    /// The agent's launch and the session's process scope (a close waits for the restarted
    /// agent too).
    pub runtime: Relaunch,
    /// The launch without a process mode's arguments, and the process mode the session runs
    /// in ([`crate::process_modes`]; `None`: the profile has none).
    pub base: SpawnSpec,
    pub process_mode: Option<String>,
    /// The native session's cwd.
    pub cwd: String,
    /// The provider's shared agent processes, when the session runs on one (it joins the one
    /// of its launch again: the first session to restart starts it, the others join it).
    pub processes: Option<SharedProcesses>,
    /// The provider's spare warm-up target (see [`crate::opencode::spare_warmup`]).
    pub warm: crate::opencode::spare_warmup::WarmTarget,
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
}

/// How the native session came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Restore {
    /// `session/resume`: the agent kept the conversation.
    Resumed,
    /// `session/load`: the conversation was reloaded (its replay dropped).
    Loaded,
    /// `session/new`: a new conversation; the earlier context is lost, for `reason`.
    Fresh { reason: String },
}

/// A restarted agent and its native session.
pub struct Restarted {
    pub agent: Agent,
    pub session_id: String,
    pub restore: Restore,
}

/// The call that brings `session_id` back in a new agent process: resume, else load.
pub fn restore_method(caps: &AgentCapabilities) -> Option<&'static str> {
    if caps.session("resume") {
        Some(method::SESSION_RESUME)
    } else if caps.load_session {
        Some(method::SESSION_LOAD)
    } else {
        None
    }
}

/// Starts the agent of `launch` again for the native session `session_id`, reporting through
/// `sink`. An exit of the new process meanwhile is this call's failure, not a runtime failure.
pub async fn restart(
    launch: &SessionRelaunch,
    shared: &SharedState,
    sink: &SessionSink,
    session_id: &str,
) -> Result<Restarted, ProviderError> {
    let started = Instant::now();
    let (previous, restarts) = {
        let mut s = lock(shared);
        // The dead process's requests and turn died with it (the core resolved them).
        s.pending.clear();
        if s.normalizer.active_turn().is_some() {
            s.normalizer.end_turn(true);
        }
        s.restarts += 1;
        (s.config.clone(), s.restarts)
    };
    let restarted = bring_back(launch, shared, sink, session_id, &previous, restarts).await;
    let mut s = lock(shared);
    s.phase = Phase::Live;
    let restarted = restarted?;
    if restarted.agent.runtime.rpc().is_closed() {
        return Err(ProviderError::new(format!(
            "{} exited while it was restarted",
            launch.profile.label
        ))
        .with_code(ErrorCode::RuntimeExited)
        .with_diagnostic(restarted.agent.stderr()));
    }
    restarted.agent.runtime.liveness().go_live();
    tracing::info!(
        agent = %launch.profile.label,
        restore = ?restarted.restore,
        ms = started.elapsed().as_millis() as u64,
        "ACP agent restarted"
    );
    Ok(restarted)
}

async fn spawn(
    launch: &SessionRelaunch,
    shared: &SharedState,
    sink: &SessionSink,
) -> Result<Agent, ProviderError> {
    // Until the session is back an exit is the restart's error, not a new failure.
    let agent = launch::session_agent(
        &launch.profile,
        &launch.runtime.spec,
        launch.processes.as_ref().map(|p| (p, &launch.warm)),
        shared.clone(),
        sink.clone(),
        &launch.runtime.scope,
    )
    .await?;
    crate::opencode::retry_log::follow(&launch.profile, &agent.runtime, shared, sink);
    Ok(agent)
}

async fn bring_back(
    launch: &SessionRelaunch,
    shared: &SharedState,
    sink: &SessionSink,
    session_id: &str,
    previous: &AcpConfig,
    restarts: u32,
) -> Result<Restarted, ProviderError> {
    let label = &launch.profile.label;
    let mut agent = spawn(launch, shared, sink).await?;
    let mcp = persistence::mcp_servers(&launch.mcp_servers, &agent.init.agent_capabilities)?;
    let mut restored = None;
    let lost = match restore_method(&agent.init.agent_capabilities) {
        None => format!("{label} can neither resume nor load a session"),
        Some(how) => {
            lock(shared).phase = Phase::Restoring;
            agent.runtime.claim(session_id);
            let params = requests::reopen(how, session_id, &launch.cwd, mcp.clone());
            let answer = agent.runtime.rpc().call(how, params).await;
            // What it replayed before answering is dropped too.
            agent.runtime.settle().wait().await;
            lock(shared).phase = Phase::Live;
            match answer {
                Ok(answer) => {
                    let restore = if how == method::SESSION_RESUME {
                        Restore::Resumed
                    } else {
                        Restore::Loaded
                    };
                    restored = Some((session_id.to_string(), answer, restore));
                    String::new()
                }
                Err(e) => {
                    let error = agent.error(e);
                    tracing::warn!(agent = %label, "{how} of the restarted agent failed: {error}");
                    if agent.runtime.rpc().is_closed() {
                        // It died of it: a new process for the new session.
                        agent.shutdown(None).await;
                        agent = spawn(launch, shared, sink).await?;
                    }
                    format!("its {how} failed: {}", error.message)
                }
            }
        }
    };
    let (session_id, answer, restore) = match restored {
        Some(r) => r,
        None => {
            let params = requests::new_session(&launch.cwd, mcp);
            let answer = agent
                .runtime
                .rpc()
                .call(method::SESSION_NEW, params)
                .await
                .map_err(|e| auth_error(&agent, agent.error(e)))?;
            let id = answer["sessionId"]
                .as_str()
                .ok_or_else(|| {
                    ProviderError::new("session/new answered without a sessionId")
                        .with_code(ErrorCode::AgentError)
                })?
                .to_string();
            agent.runtime.claim(&id);
            sink.send(AgentEvent::Persistence(persistence::persistence(
                &id,
                &launch.cwd,
            )))
            .await;
            (id, answer, Restore::Fresh { reason: lost })
        }
    };
    let state: SessionAnswer = serde_json::from_value(answer).unwrap_or_default();
    let mut config =
        AcpConfig::for_profile(&state, &launch.profile, launch.process_mode.as_deref());
    config.inherit_defaults(previous);
    lock(shared).config = config;
    let refused = reapply(&agent, shared, &session_id, previous).await?;
    if !refused.is_empty() {
        sink.send(AgentEvent::Notice(config_not_restored(&refused, restarts)))
            .await;
    }
    let now = lock(shared).config.state();
    if now != previous.state() {
        sink.send(AgentEvent::Config(now)).await;
    }
    Ok(Restarted {
        agent,
        session_id,
        restore,
    })
}

fn change(category: &str, value: &str) -> ProviderConfigChanges {
    let value = Some(Some(value.to_string()));
    match category {
        MODEL => ProviderConfigChanges {
            model: value,
            ..Default::default()
        },
        MODE => ProviderConfigChanges {
            mode: value,
            ..Default::default()
        },
        _ => ProviderConfigChanges {
            thinking_option: value,
            ..Default::default()
        },
    }
}

/// Sets the restarted session to the committed values of `previous`, one category at a time;
/// returns what it did not take. Fails only when the agent died meanwhile.
pub(crate) async fn reapply(
    agent: &Agent,
    shared: &SharedState,
    session_id: &str,
    previous: &AcpConfig,
) -> Result<Vec<String>, ProviderError> {
    let mut refused = Vec::new();
    for (category, value) in previous.committed() {
        let plan = lock(shared)
            .config
            .plan(session_id, &change(category, &value));
        let calls = match plan {
            Ok(calls) => calls,
            Err(e) => {
                refused.push(format!("{category} `{value}`: {}", e.message));
                continue;
            }
        };
        for call in calls {
            match agent
                .runtime
                .rpc()
                .call(call.method, call.params.clone())
                .await
            {
                Ok(answer) => {
                    let mut s = lock(shared);
                    s.config.set_local(call.category, &call.value);
                    s.config.replace_options(&answer);
                }
                Err(e) => {
                    let closed = agent.runtime.rpc().is_closed();
                    let error = agent.error(e);
                    if closed {
                        return Err(error);
                    }
                    refused.push(format!("{category} `{value}`: {}", error.message));
                }
            }
        }
    }
    Ok(refused)
}

fn config_not_restored(refused: &[String], restarts: u32) -> ProviderNotice {
    ProviderNotice {
        id: format!("agent-config-not-restored:{restarts}"),
        severity: Severity::Warning,
        title: "Part of the session's configuration was not restored".into(),
        description: Some(format!(
            "The restarted agent did not take: {}",
            refused.join("; ")
        )),
        dismissed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use serde_json::Value;

    fn caps(v: Value) -> AgentCapabilities {
        serde_json::from_value(v).expect("caps")
    }

    #[test]
    fn a_restart_resumes_else_loads_else_starts_afresh() {
        let both = caps(json!({"loadSession": true, "sessionCapabilities": {"resume": {}}}));
        assert_eq!(restore_method(&both), Some(method::SESSION_RESUME));
        let load = caps(json!({"loadSession": true}));
        assert_eq!(restore_method(&load), Some(method::SESSION_LOAD));
        assert_eq!(restore_method(&caps(json!({}))), None);
    }

    #[test]
    fn a_profiles_unusable_methods_are_not_used() {
        let restore = |profile: &str, advertised: Value| {
            let profile = crate::profile::builtin(profile).expect("profile");
            let mut caps = caps(advertised);
            for method in profile.unusable_methods.keys() {
                caps.withdraw(method).expect("a session method");
            }
            restore_method(&caps)
        };
        let both = json!({"loadSession": true, "sessionCapabilities": {"resume": {}}});
        // What the pinned agents advertise (tests/fixtures/*-say-hi.jsonl).
        assert_eq!(restore("gemini", json!({"loadSession": true})), None);
        assert_eq!(restore("qwen", both.clone()), Some(method::SESSION_LOAD));
        assert_eq!(restore("opencode", both), Some(method::SESSION_RESUME));
        assert!(caps(json!({})).withdraw("session/prompt").is_err());
    }
}
