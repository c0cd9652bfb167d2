//! Settings Codex reads only when a thread loads (`web_search`): a configure that changes one
//! loads the session's thread again in the same app-server, `thread/unsubscribe` then
//! `thread/resume` with the new thread config (codex 0.171.0 ignores a resume's overrides
//! while a client is subscribed to the loaded thread; once the last one left, the resume
//! loads it afresh). Only between turns: the reload would drop a running turn.

use super::{Applied, CodexSession};
use crate::catalog::SessionConfig;
use crate::state::lock;
use crate::wire::notify::method;
use crate::wire::params::ThreadResumeParams;
use crate::wire::thread::ThreadOpened;
use agent_bridge_core::AgentEvent;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;
use serde_json::json;

impl CodexSession {
    /// Loads the thread again with `next`'s thread config when it differs from what the
    /// thread runs with; on failure the thread is loaded back with the committed config (and
    /// when even that fails, the runtime is reported failed, to be restarted).
    pub(super) async fn reload_thread_config(
        &mut self,
        next: &SessionConfig,
    ) -> Result<(), ProviderError> {
        if self.applied.web_search.as_deref() == Some(next.controls.web_search.as_str()) {
            return Ok(());
        }
        let busy = {
            let s = lock(&self.shared);
            s.normalizer.active_turn().is_some() || !s.approvals.is_empty()
        };
        if busy {
            return Err(ProviderError::new(
                "providerOptions.webSearch changes between turns only (Codex loads the thread again to apply it); try again when the turn has ended",
            )
            .with_code(ErrorCode::SessionBusy));
        }
        let unsubscribe = json!({ "threadId": self.thread_id });
        if let Err(e) = self.call(method::THREAD_UNSUBSCRIBE, unsubscribe).await {
            return Err(self.failure(e).await);
        }
        match self.resume_with(next).await {
            Ok(()) => Ok(()),
            Err(e) => {
                let committed = self.config.clone();
                if let Err(again) = self.resume_with(&committed).await {
                    // The thread is not loaded: the core restarts the app-server with the next
                    // prompt, which resumes the thread with the committed config.
                    tracing::warn!("codex thread not loaded back after a failed reload: {again}");
                    let _ = self.sink.send(AgentEvent::RuntimeFailed(again)).await;
                }
                Err(e)
            }
        }
    }

    async fn resume_with(&mut self, config: &SessionConfig) -> Result<(), ProviderError> {
        let params = ThreadResumeParams {
            thread_id: self.thread_id.clone(),
            overrides: self.relaunch.thread_params(config),
            exclude_turns: true,
        };
        let answer = match self.call(method::THREAD_RESUME, json!(params)).await {
            Ok(v) => v,
            Err(e) => return Err(self.failure(e).await),
        };
        let opened: ThreadOpened = serde_json::from_value(answer)
            .map_err(|e| ProviderError::new(format!("unreadable thread/resume answer: {e}")))?;
        self.applied = Applied::loaded(&opened, None, &config.controls.web_search);
        tracing::info!(
            thread = %self.thread_id,
            web_search = %config.controls.web_search,
            "codex thread loaded again with a new thread config"
        );
        Ok(())
    }
}
