//! A live ACP session: one ACP session on an agent process of its own or shared with other
//! sessions.
//!
//! A turn is one `session/prompt` request: `start_turn` sends it and returns; a task of the
//! turn awaits its answer (the turn end) and reports it. Meanwhile the reader sends the
//! agent's updates into the bounded sink ([`crate::translate`]).

use crate::launch::Agent;
use crate::permissions;
use crate::process_switch;
use crate::restart::{self, SessionRelaunch};
use crate::state::{lock, SharedState};
use crate::wire::acp::{ContentBlock, ImageContent};
use crate::wire::{method, requests};
use agent_bridge_core::rpc::PeerError;
use agent_bridge_core::{
    AgentEvent, AgentSession, CommandOutcome, SessionSink, TurnOutcome, TurnRequest,
};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    PromptInput, ProviderConfigChanges, ProviderConfigState, ProviderContent, ProviderError,
    ProviderPermissionResponse, RevertScope, TaggedContent,
};
use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

/// Longest a configure call may take.
const CONFIG_CALL_TIMEOUT: Duration = Duration::from_secs(20);

pub struct AcpSession {
    agent: Agent,
    shared: SharedState,
    sink: SessionSink,
    session_id: String,
    relaunch: SessionRelaunch,
}

impl AcpSession {
    pub fn new(
        agent: Agent,
        shared: SharedState,
        sink: SessionSink,
        session_id: String,
        relaunch: SessionRelaunch,
    ) -> Self {
        agent.runtime.liveness().go_live();
        AcpSession {
            agent,
            shared,
            sink,
            session_id,
            relaunch,
        }
    }

    /// Answers every pending permission (of `turn_id`, or all) `cancelled`; returns their ids.
    async fn cancel_pending(&mut self, turn_id: Option<&str>) -> Vec<String> {
        let pending = lock(&self.shared).pending.take_turn(turn_id);
        let mut ids = Vec::new();
        for (id, p) in pending {
            self.agent
                .runtime
                .rpc()
                .respond_to(&p.native.rpc_id, Ok(permissions::outcome(None)))
                .await;
            ids.push(id);
        }
        ids
    }

    /// Sends `session/prompt` as the turn `turn`; a task of the turn reports its end (after
    /// giving the turn's user message its revert token, where the session can be rewound).
    async fn prompt(
        &mut self,
        turn: &TurnRequest,
        prompt: Vec<ContentBlock>,
    ) -> Result<(), ProviderError> {
        let turn_id = turn.turn_id.clone();
        lock(&self.shared).normalizer.begin_turn(&turn_id);
        let tag =
            self.agent.server.clone().map(|http| {
                crate::opencode::revert_tag::TurnTag::new(http, &self.session_id, turn)
            });
        let early = tag.clone().map(|tag| {
            let (answered, on_answer) = tokio::sync::oneshot::channel();
            lock(&self.shared).turn_answered = Some(answered);
            let shared = self.shared.clone();
            tokio::spawn(async move {
                on_answer.await.ok()?;
                tag.lookup(&shared).await
            })
        });
        let params = requests::prompt(&self.session_id, prompt);
        let rx = match self
            .agent
            .runtime
            .rpc()
            .start_call(method::SESSION_PROMPT, &params)
            .await
        {
            Ok((_, rx)) => rx,
            Err(e) => {
                let mut s = lock(&self.shared);
                s.turn_answered = None;
                s.normalizer.end_turn(false);
                return Err(self.agent.error(e));
            }
        };
        let shared = self.shared.clone();
        let sink = self.sink.clone();
        let settle = self.agent.runtime.settle();
        tokio::spawn(async move {
            let answer = rx.await;
            // The turn's last updates came before the answer that ends it (on a shared
            // process they may still be queued); meanwhile the server names its user message
            // (looked up since the turn's first item; now if no item came).
            let answered = lock(&shared).turn_answered.take().is_none();
            let (_, tagged) = tokio::join!(settle.wait(), async {
                let found = match early {
                    Some(lookup) if answered => lookup.await.ok().flatten(),
                    Some(lookup) => {
                        lookup.abort();
                        None
                    }
                    None => None,
                };
                match (&tag, &answer) {
                    (Some(tag), Ok(Ok(_))) => tag.row(&shared, found).await,
                    _ => None,
                }
            });
            let (outcome, usage) = match answer {
                Ok(Ok(v)) => {
                    let (outcome, usage) = crate::translate::prompt_answer(v);
                    let cancelled =
                        lock(&shared).cancelled_turn.as_deref() == Some(turn_id.as_str());
                    (crate::translate::after_cancel(outcome, cancelled), usage)
                }
                Ok(Err(PeerError::Rpc { error, .. })) => (
                    TurnOutcome::Failed(
                        ProviderError::new(error.message).with_code(ErrorCode::AgentError),
                    ),
                    None,
                ),
                // The agent is gone: its exit is reported as a runtime failure (or the session
                // is closing), which ends the turn.
                Ok(Err(_)) | Err(_) => return,
            };
            let Some(events) = crate::translate::turn_end(&shared, turn_id, outcome, usage, tagged)
            else {
                return;
            };
            for ev in events {
                if !sink.send(ev).await {
                    return;
                }
            }
        });
        Ok(())
    }

    /// Moves the session to a process of the process mode `mode` ([`crate::process_switch`]):
    /// its process lets go of it first; if the new one cannot take it, it comes back on a
    /// process of its old mode (else its runtime is reported failed) and the change fails.
    async fn move_process(&mut self, mode: &str) -> Result<(), ProviderError> {
        let label = self.relaunch.profile.label.clone();
        if let Some(refused) = process_switch::refusal(&self.agent, &self.shared, &label, mode) {
            return Err(refused);
        }
        let next = process_switch::relaunch_in(&self.relaunch, mode);
        self.agent.shutdown(Some(&self.session_id)).await;
        let moved =
            process_switch::bring_to(&next, &self.shared, &self.sink, &self.session_id, mode).await;
        let mut error = match moved {
            Ok(agent) => {
                self.agent = agent;
                self.relaunch = next;
                return Ok(());
            }
            Err(error) => error,
        };
        tracing::warn!(agent = %label, mode, "the session could not move: {error}; back to its mode");
        let old = self.relaunch.process_mode.clone().unwrap_or_default();
        lock(&self.shared)
            .config
            .set_local(crate::config::MODE, &old);
        error.message = format!(
            "mode `{mode}` runs {label} in another process, which could not take this session ({}); it stays in mode `{old}`",
            error.message
        );
        let sink = self.sink.clone();
        match restart::restart(&self.relaunch, &self.shared, &sink, &self.session_id).await {
            Ok(back) => {
                self.agent = back.agent;
                self.session_id = back.session_id;
            }
            Err(lost) => {
                let _ = sink.send(AgentEvent::RuntimeFailed(lost)).await;
            }
        }
        Err(error)
    }

    async fn cancel(&mut self, turn_id: &str) -> Result<(), ProviderError> {
        lock(&self.shared).cancelled_turn = Some(turn_id.to_string());
        let cancelled = self.cancel_pending(Some(turn_id)).await;
        for id in cancelled {
            let _ = self
                .sink
                .send(AgentEvent::PermissionResolved { permission_id: id })
                .await;
        }
        let params = requests::cancel(&self.session_id);
        self.agent
            .runtime
            .rpc()
            .notify(method::SESSION_CANCEL, Some(&params))
            .await
            .map_err(|e| self.agent.error(e))
    }
}

/// The prompt as ACP content blocks: text parts, images as image blocks (only when the agent
/// takes images; refused otherwise, never dropped).
pub fn prompt_blocks(
    input: &PromptInput,
    fallback: &str,
    images: bool,
) -> Result<Vec<ContentBlock>, ProviderError> {
    let PromptInput::Message { content } = input else {
        return Ok(vec![ContentBlock::from(fallback)]);
    };
    let mut out = Vec::new();
    for part in content {
        match part {
            ProviderContent::Tagged(TaggedContent::Image { data, mime_type }) => {
                if !images {
                    return Err(ProviderError::new(
                        "this agent does not take images (promptCapabilities.image is false)",
                    )
                    .with_code(ErrorCode::UnsupportedContent));
                }
                out.push(ContentBlock::Image(ImageContent::new(
                    data.as_str(),
                    mime_type.as_str(),
                )));
            }
            other => {
                if let Some(text) = other.as_text() {
                    out.push(ContentBlock::from(text));
                }
            }
        }
    }
    if out.is_empty() {
        out.push(ContentBlock::from(fallback));
    }
    Ok(out)
}

#[async_trait]
impl AgentSession for AcpSession {
    async fn start_turn(&mut self, turn: TurnRequest) -> Result<(), ProviderError> {
        let images = self.agent.init.agent_capabilities.prompt_capabilities.image;
        let prompt = prompt_blocks(&turn.prompt.input, &turn.text, images)?;
        self.prompt(&turn, prompt).await
    }

    /// A command the agent advertised (`available_commands_update`) runs as a prompt
    /// `/name arguments`, the ACP convention; it is a turn like any other.
    async fn run_command(
        &mut self,
        name: &str,
        arguments: &str,
        turn: TurnRequest,
    ) -> Result<CommandOutcome, ProviderError> {
        let text = if arguments.trim().is_empty() {
            format!("/{name}")
        } else {
            format!("/{name} {arguments}")
        };
        self.prompt(&turn, vec![ContentBlock::from(text)]).await?;
        Ok(CommandOutcome::Turn)
    }

    async fn interrupt(&mut self, turn_id: &str) -> Result<(), ProviderError> {
        self.cancel(turn_id).await
    }

    /// The core ended the turn itself: cancel its permissions natively and the native turn, so
    /// the session cannot stay wedged on an unanswered request.
    async fn abandon_turn(&mut self, turn_id: &str, pending: Vec<String>) {
        tracing::debug!(turn_id, ?pending, "ACP turn abandoned by the core");
        self.cancel_pending(Some(turn_id)).await;
        let params = requests::cancel(&self.session_id);
        let _ = self
            .agent
            .runtime
            .rpc()
            .notify(method::SESSION_CANCEL, Some(&params))
            .await;
        let mut s = lock(&self.shared);
        if s.normalizer.active_turn() == Some(turn_id) {
            s.normalizer.end_turn(true);
        }
    }

    /// Rewinds through the agent's own server ([`crate::opencode::revert`]); only OpenCode's profile
    /// declares it.
    async fn revert(&mut self, token: Value, scope: RevertScope) -> Result<(), ProviderError> {
        let Some(http) = self.agent.server.as_ref() else {
            return Err(ProviderError::new(format!(
                "{} cannot rewind a session",
                self.agent.runtime.runtime().label()
            ))
            .with_code(ErrorCode::Unsupported));
        };
        crate::opencode::revert::revert(http, &self.session_id, &token, scope).await
    }

    async fn respond_permission(
        &mut self,
        permission_id: &str,
        response: ProviderPermissionResponse,
    ) -> Result<(), ProviderError> {
        let pending = lock(&self.shared).pending.take(permission_id);
        let Some(pending) = pending else {
            return Err(ProviderError::new(format!(
                "no pending permission `{permission_id}`"
            )));
        };
        let pending = pending.native;
        let option = permissions::option_for(&pending.options, &response);
        tracing::debug!(permission_id, ?option, "answering ACP permission");
        self.agent
            .runtime
            .rpc()
            .respond_to(&pending.rpc_id, Ok(permissions::outcome(option.as_deref())))
            .await;
        Ok(())
    }

    async fn configure(
        &mut self,
        changes: ProviderConfigChanges,
    ) -> Result<ProviderConfigState, ProviderError> {
        let plan = lock(&self.shared).config.plan(&self.session_id, &changes)?;
        let mut done = Vec::new();
        for call in plan {
            let answer = if call.method == crate::config::PROCESS {
                self.move_process(&call.value).await.map(|()| Value::Null)
            } else {
                self.agent
                    .runtime
                    .rpc()
                    .call_within(call.method, call.params.clone(), CONFIG_CALL_TIMEOUT)
                    .await
                    .map_err(|e| self.agent.error(e))
            };
            // What the agent said before its answer is applied first (on a shared process it
            // may still be queued): OpenCode sends a `config_option_update` with the other
            // values as they were just before answering, which must not undo this change.
            self.agent.runtime.settle().wait().await;
            match answer {
                Ok(answer) => {
                    let mut s = lock(&self.shared);
                    s.config.set_local(call.category, &call.value);
                    s.config.replace_options(&answer);
                    done.push(call);
                }
                Err(error) => {
                    // All or nothing: put back what was already changed.
                    for undo in done.into_iter().rev() {
                        let Some(previous) = undo.previous else {
                            continue;
                        };
                        let back = lock(&self.shared).config.call(
                            &self.session_id,
                            undo.category,
                            &previous,
                        );
                        if let Some(back) = back {
                            if self
                                .agent
                                .runtime
                                .rpc()
                                .call_within(back.method, back.params, CONFIG_CALL_TIMEOUT)
                                .await
                                .is_ok()
                            {
                                self.agent.runtime.settle().wait().await;
                                lock(&self.shared)
                                    .config
                                    .set_local(undo.category, &previous);
                            }
                        }
                    }
                    return Err(error);
                }
            }
        }
        Ok(lock(&self.shared).config.state())
    }

    async fn can_stop_runtime(&mut self) -> bool {
        let s = lock(&self.shared);
        s.normalizer.active_turn().is_none() && s.pending.is_empty()
    }

    fn shared_death(&self) -> Option<agent_bridge_core::lifecycle::shared::SharedDeath> {
        self.agent.runtime.shared_death()
    }

    /// A new agent process resumes the native session ([`crate::restart`]).
    fn can_restart(&self) -> bool {
        true
    }

    async fn restart(
        &mut self,
        sink: SessionSink,
    ) -> Result<agent_bridge_core::Restarted, ProviderError> {
        // The old process is gone or going: make sure of it (it is no failure to report).
        self.agent.runtime.liveness().close();
        self.agent.runtime.discard().await;
        let restarted =
            restart::restart(&self.relaunch, &self.shared, &sink, &self.session_id).await?;
        self.agent = restarted.agent;
        self.session_id = restarted.session_id;
        self.sink = sink;
        Ok(match restarted.restore {
            restart::Restore::Resumed | restart::Restore::Loaded => {
                agent_bridge_core::Restarted::Resumed
            }
            restart::Restore::Fresh { reason } => agent_bridge_core::Restarted::Fresh { reason },
        })
    }

    async fn close(&mut self) {
        let seen = {
            let s = lock(&self.shared);
            s.seen.iter().cloned().collect::<Vec<_>>().join(", ")
        };
        tracing::info!(agent = %self.agent.runtime.runtime().label(), "ACP traffic seen: {seen}");
        self.cancel_pending(None).await;
        let id = self.session_id.clone();
        // A shared process outlives the session: its running turn is cancelled.
        let running = lock(&self.shared).normalizer.active_turn().is_some();
        if running && self.agent.runtime.is_shared() {
            let params = requests::cancel(&id);
            if let Err(e) = self
                .agent
                .runtime
                .rpc()
                .notify(method::SESSION_CANCEL, Some(&params))
                .await
            {
                tracing::debug!("session/cancel at close: {e}");
            }
        }
        self.agent.shutdown(Some(&id)).await;
    }
}

impl Drop for AcpSession {
    fn drop(&mut self) {
        // Dropping the session kills its agent (or leaves a shared one); that exit is no
        // failure to report.
        self.agent.runtime.kill_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn images_are_refused_unless_the_agent_takes_them() {
        let input: PromptInput = serde_json::from_value(json!({"type": "message", "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"}]}))
        .unwrap();
        assert_eq!(
            json!(prompt_blocks(&input, "", true).unwrap()),
            json!([
                json!({"type": "text", "text": "what is this?"}),
                json!({"type": "image", "data": "AA==", "mimeType": "image/png"})
            ])
        );
        let refused = prompt_blocks(&input, "", false).unwrap_err();
        assert_eq!(refused.code, Some(ErrorCode::UnsupportedContent));
    }
}
