//! Restarting a session's app-server after it died (the core calls
//! [`AgentSession::restart`](agent_bridge_core::AgentSession::restart) before the next prompt,
//! command or configure): a new `codex app-server` from the open's launch spec, in the
//! session's process scope, `initialize` (on a shared app-server: the first of its sessions to
//! restart starts it, the others join it), then `thread/resume` of the session's thread with
//! its committed config. The resume answer leaves history out and nothing of it becomes a
//! timeline row: the rows are in the host's timeline already. A thread Codex cannot resume
//! (killed before it wrote a rollout) is replaced by a new thread with the same settings, a
//! new persistence handle and `Restarted::Fresh` (the core tells the user and carries the
//! conversation over).

use super::{Applied, CodexSession};
use crate::catalog::{self, SessionConfig};
use crate::history;
use crate::launch;
use crate::state::lock;
use crate::threads::{self, ThreadAnswer};
use crate::wire::params::ThreadStartParams;
use crate::wire::thread::ThreadOpened;
use agent_bridge_core::lifecycle::{Relaunch, SharedProcesses};
use agent_bridge_core::{AgentEvent, Restarted, SessionSink};
use agent_bridge_protocol::ProviderError;

/// What starting the session's app-server again takes, kept from the open.
#[derive(Debug, Clone)]
pub struct SessionRelaunch {
    /// The open's launch (program, arguments, environment with `CODEX_HOME`, folder) and the
    /// session's process scope.
    pub runtime: Relaunch,
    /// The open's thread settings (folder, instructions, MCP servers, denied tools); model,
    /// approval policy and sandbox are replaced by the committed config's.
    pub thread: ThreadStartParams,
    /// The provider's shared app-servers, when the session runs on one (it joins the one of its
    /// launch again: the first session to restart starts it, the others join it).
    pub processes: Option<SharedProcesses>,
}

impl SessionRelaunch {
    /// The thread settings a restart resumes with: the open's, under the committed config.
    pub fn thread_params(&self, config: &SessionConfig) -> ThreadStartParams {
        let mode = config.mode.as_deref().and_then(catalog::mode);
        let mut thread_config = self.thread.config.clone().unwrap_or_default();
        thread_config.insert(
            "web_search".into(),
            config.controls.web_search.clone().into(),
        );
        ThreadStartParams {
            config: Some(thread_config),
            model: config.model.clone().or(self.thread.model.clone()),
            approval_policy: mode
                .map(|m| m.approval.to_string())
                .or(self.thread.approval_policy.clone()),
            sandbox: mode
                .map(|m| m.sandbox.to_string())
                .or(self.thread.sandbox.clone()),
            ..self.thread.clone()
        }
    }
}

impl CodexSession {
    /// Starts the app-server again and resumes the thread; from now on every event goes to
    /// `sink`. Cancel-safe: the session changes only once everything succeeded (a new
    /// app-server dropped half-way is killed, and the scope's close waits for it).
    pub(super) async fn restart_runtime(
        &mut self,
        sink: SessionSink,
    ) -> Result<Restarted, ProviderError> {
        let began = std::time::Instant::now();
        // The dead app-server's group goes for good (a guard or launcher may linger); a shared
        // one is left (the other sessions on it leave it too, and it goes with the last).
        self.server.liveness().close();
        self.server.discard().await;
        {
            let mut s = lock(&self.shared);
            // Requests of the dead app-server can no longer be answered; the core resolved them.
            s.approvals.clear();
            s.normalizer.forget_unfinished();
            // The new app-server numbers its requests from 0 again: new permission ids.
            s.runtime += 1;
        }
        // Until the thread is back an exit is the restart's error, not a new failure.
        let server = launch::session_runtime(
            &self.relaunch.runtime.spec,
            self.relaunch.processes.as_ref(),
            self.shared.clone(),
            sink.clone(),
            &self.relaunch.runtime.scope,
        )
        .await?;
        // On a shared app-server, what Codex says about the thread is this session's.
        server.claim(&self.thread_id);
        let params = self.relaunch.thread_params(&self.config);
        let ThreadAnswer {
            answer,
            resumed,
            resume_refused,
        } = threads::resume_or_start(server.runtime(), Some(&self.thread_id), params).await?;
        let opened: ThreadOpened = serde_json::from_value(answer)
            .map_err(|e| ProviderError::new(format!("unreadable thread answer: {e}")))?;
        let thread_id = opened.thread.id.clone();
        let mut restored = Restarted::Resumed;
        if !resumed {
            let cwd = opened
                .cwd
                .clone()
                .or(opened.thread.cwd.clone())
                .or(self.relaunch.thread.cwd.clone())
                .unwrap_or_default();
            let refused = resume_refused.unwrap_or_default();
            restored = Restarted::Fresh {
                reason: format!(
                    "Codex could not resume thread {}: {refused}",
                    self.thread_id
                ),
            };
            tracing::warn!(
                old = %self.thread_id,
                new = %thread_id,
                "the restarted codex could not resume the thread ({refused}); continuing in a new one"
            );
            let _ = sink
                .send(AgentEvent::Persistence(history::persistence(
                    &thread_id, &cwd,
                )))
                .await;
            lock(&self.shared).normalizer.bind_thread(&thread_id, &cwd);
            server.claim(&thread_id);
        }
        // A thread started anew (no rollout to resume) runs with `config.toml`'s summary.
        let summary = (!resumed).then_some(self.config.default_controls.reasoning_summary.as_str());
        self.applied = Applied::loaded(&opened, summary, &self.config.controls.web_search);
        self.thread_id = thread_id;
        // The dead app-server's handle goes (its process is gone already).
        self.server = server;
        self.server.liveness().go_live();
        self.sink = sink;
        tracing::info!(
            thread = %self.thread_id,
            resumed,
            elapsed_ms = began.elapsed().as_millis() as u64,
            "codex app-server restarted"
        );
        Ok(restored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_core::supervisor::LaunchOverride;
    use agent_bridge_core::ProcessScope;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn relaunch(thread: ThreadStartParams) -> SessionRelaunch {
        SessionRelaunch {
            runtime: Relaunch::new(
                launch::app_server_spec(
                    &LaunchOverride::default(),
                    Some("/w"),
                    &Default::default(),
                ),
                ProcessScope::default(),
            ),
            thread,
            processes: None,
        }
    }

    fn config(model: Option<&str>, mode: Option<&str>) -> SessionConfig {
        SessionConfig {
            model: model.map(str::to_string),
            effort: Some("high".into()),
            mode: mode.map(str::to_string),
            models: Vec::new(),
            modes: Vec::new(),
            default_model: None,
            default_mode: None,
            controls: Default::default(),
            default_controls: Default::default(),
        }
    }

    #[test]
    fn a_restart_resumes_with_the_open_settings_under_the_committed_config() {
        let open = ThreadStartParams {
            cwd: Some("/w".into()),
            model: None,
            approval_policy: Some("never".into()),
            sandbox: Some("danger-full-access".into()),
            developer_instructions: Some("be brief".into()),
            config: Some(serde_json::Map::from_iter([(
                "mcp_servers".to_string(),
                json!({"echo": {"command": "echo"}}),
            )])),
        };
        let r = relaunch(open.clone());
        // Configured since the open: another model and the ask mode.
        let mut configured = config(Some("gpt-5"), Some("ask"));
        configured.controls.web_search = "live".into();
        let params = r.thread_params(&configured);
        assert_eq!(
            params,
            ThreadStartParams {
                model: Some("gpt-5".into()),
                approval_policy: Some("untrusted".into()),
                sandbox: Some("danger-full-access".into()),
                config: Some(serde_json::Map::from_iter([
                    (
                        "mcp_servers".to_string(),
                        json!({"echo": {"command": "echo"}}),
                    ),
                    ("web_search".to_string(), json!("live")),
                ])),
                ..open.clone()
            }
        );
        // Nothing committed: what the open asked for, with the thread's web search.
        let mut cached = open.clone();
        if let Some(c) = cached.config.as_mut() {
            c.insert("web_search".into(), json!("cached"));
        }
        assert_eq!(r.thread_params(&config(None, None)), cached);
    }
}
