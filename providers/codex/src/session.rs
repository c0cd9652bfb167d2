//! A live Codex session: one thread on an app-server of its own or shared with other sessions
//! (started again after it died, see `restart`).
//!
//! Methods write to the app-server and await the answers of `turn/start`, `turn/steer` and
//! `turn/interrupt`, which the reader task hands over directly. Meanwhile the reader sends the
//! CLI's notifications into the bounded sink ([`crate::translate`]); the core drains the sink
//! while a method runs, so an answer behind a full sink only waits, it cannot deadlock.

use crate::catalog::{self, SessionConfig};
use crate::launch;
use crate::permissions::PendingApproval;
use crate::sandbox_cache::ProbeCell;
use crate::state::{lock, SharedState};
use crate::wire::notify::method;
use crate::wire::params::{InputItem, TurnInterruptParams, TurnStartParams, TurnSteerParams};
use crate::wire::thread::TurnStarted;
use agent_bridge_core::lifecycle::SessionRuntime;
use agent_bridge_core::rpc::PeerError;
use agent_bridge_core::{AgentEvent, AgentSession, CommandOutcome, SessionSink, TurnRequest};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    PromptInput, ProviderConfigChanges, ProviderConfigState, ProviderContent, ProviderError,
    ProviderPermissionResponse, RevertScope, TaggedContent,
};
use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

mod applied;
mod commands;
mod restart;
pub mod revert;
mod thread_config;

pub use applied::Applied;
pub use restart::SessionRelaunch;

/// Longest a turn request (`turn/start`, `turn/steer`, `turn/interrupt`) may take to answer.
const TURN_CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest each call of a session leaving a shared app-server may take.
const LEAVE_CALL_TIMEOUT: Duration = Duration::from_secs(2);
pub struct CodexSession {
    server: SessionRuntime,
    shared: SharedState,
    thread_id: String,
    config: SessionConfig,
    applied: Applied,
    sandbox: Option<PendingProbe>,
    relaunch: SessionRelaunch,
    sink: SessionSink,
}

/// The sandbox probe still running when the session opened (its config assumed the sandbox
/// works); settled at the next turn or configure.
#[derive(Debug)]
pub struct PendingProbe {
    pub cell: ProbeCell,
    /// `config.toml` names a default mode (then the probe does not change it).
    pub default_mode_configured: bool,
}

impl CodexSession {
    /// The session over a started app-server whose reader already feeds `shared`'s
    /// normalizer (bound to the thread) into the sink.
    pub fn start(
        server: SessionRuntime,
        shared: SharedState,
        config: SessionConfig,
        applied: Applied,
        sandbox: Option<PendingProbe>,
        relaunch: SessionRelaunch,
        sink: SessionSink,
    ) -> CodexSession {
        server.liveness().go_live();
        let thread_id = lock(&shared).normalizer.thread_id().to_string();
        CodexSession {
            server,
            shared,
            thread_id,
            config,
            applied,
            sandbox,
            relaunch,
            sink,
        }
    }

    /// Takes the late probe's answer into the config once it is there; true when the config
    /// changed.
    fn settle_sandbox(&mut self) -> bool {
        let Some(answer) = self.sandbox.as_ref().and_then(|p| p.cell.get().cloned()) else {
            return false;
        };
        let configured = self
            .sandbox
            .take()
            .is_some_and(|p| p.default_mode_configured);
        self.config.sandbox_answered(answer.as_deref(), configured)
    }

    /// `turn/start` of `turn` with `input`; returns the Codex turn's id. `tag`: send the user
    /// message again with the turn's revert token (a command's row is the core's, published
    /// after `run_command` returns, so it takes the token from the returned id instead).
    async fn submit(
        &mut self,
        turn: &TurnRequest,
        input: Vec<InputItem>,
        tag: bool,
    ) -> Result<Option<String>, ProviderError> {
        if self.settle_sandbox() {
            let _ = self
                .sink
                .send(AgentEvent::Config(self.config.state()))
                .await;
        }
        lock(&self.shared).normalizer.begin_turn(&turn.turn_id);
        let overrides = self.applied.overrides(&self.config);
        let mode = overrides.mode.as_deref().and_then(catalog::mode);
        let sandbox = Applied::sends_sandbox(&overrides)
            .then(|| self.config.mode.as_deref().and_then(catalog::mode))
            .flatten();
        let params = TurnStartParams {
            thread_id: self.thread_id.clone(),
            input,
            model: overrides.model.clone(),
            effort: overrides.effort.clone(),
            approval_policy: mode.map(|m| m.approval.to_string()),
            sandbox_policy: sandbox.map(|m| m.sandbox_policy(self.config.controls.network_access)),
            summary: overrides.summary.clone(),
            output_schema: turn.prompt.output_schema.clone(),
        };
        let params = serde_json::to_value(&params).unwrap_or(Value::Null);
        match self.call(method::TURN_START, params).await {
            Ok(v) => {
                self.applied.merge(overrides);
                let Ok(started) = serde_json::from_value::<TurnStarted>(v) else {
                    return Ok(None);
                };
                lock(&self.shared)
                    .normalizer
                    .bind_native(&turn.turn_id, &started.turn.id);
                if tag {
                    self.tag_user_message(turn, &started.turn.id).await;
                }
                Ok(Some(started.turn.id))
            }
            Err(e) => {
                lock(&self.shared).normalizer.drop_turn(&turn.turn_id);
                Err(self.failure(e).await)
            }
        }
    }

    fn input(turn: &TurnRequest) -> Vec<InputItem> {
        prompt_input(&turn.prompt.input, &turn.text)
    }

    /// A call's failure (when the app-server is gone, its exit).
    async fn failure(&self, e: PeerError) -> ProviderError {
        self.server.call_failure(e).await
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, PeerError> {
        self.server
            .rpc()
            .call_within(method, params, TURN_CALL_TIMEOUT)
            .await
    }

    /// On a shared app-server the thread outlives the session unless told: its running turn
    /// is interrupted (its approvals cancelled) and the thread unloaded, each within
    /// [`LEAVE_CALL_TIMEOUT`] (a close must not wait on a wedged app-server).
    async fn leave_thread(&mut self) {
        let running = lock(&self.shared)
            .normalizer
            .active_turn()
            .map(|(core, _)| core.to_string());
        if let Some(turn) = running {
            let interrupt = self.interrupt(&turn);
            match tokio::time::timeout(LEAVE_CALL_TIMEOUT, interrupt).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!("interrupting a closing codex session's turn: {e}"),
                Err(_) => tracing::warn!("codex did not interrupt a closing session's turn"),
            }
        }
        let params = serde_json::json!({ "threadId": self.thread_id });
        let unsubscribe =
            self.server
                .rpc()
                .call_within(method::THREAD_UNSUBSCRIBE, params, LEAVE_CALL_TIMEOUT);
        if let Err(e) = unsubscribe.await {
            tracing::info!("unloading the thread of a closing codex session: {e}");
        }
    }

    async fn answer(&self, approval: &PendingApproval, result: Value) {
        self.server
            .rpc()
            .respond_to(&approval.rpc_id, Ok(result))
            .await;
    }
}

#[async_trait]
impl AgentSession for CodexSession {
    async fn start_turn(&mut self, turn: TurnRequest) -> Result<(), ProviderError> {
        self.submit(&turn, Self::input(&turn), true).await?;
        Ok(())
    }

    /// A skill or custom prompt (see [`crate::commands`]) as a normal turn.
    async fn run_command(
        &mut self,
        name: &str,
        arguments: &str,
        turn: TurnRequest,
    ) -> Result<CommandOutcome, ProviderError> {
        let input = self
            .command_input(name.trim_start_matches('/'), arguments)
            .await?;
        // The core publishes a command's row after this returns: it takes the token from here.
        Ok(match self.submit(&turn, input, false).await? {
            Some(native) => CommandOutcome::TurnWithRevert {
                message_id: None,
                revert_token: revert::token(&native),
            },
            None => CommandOutcome::Turn,
        })
    }

    async fn steer(&mut self, turn_id: &str, turn: TurnRequest) -> Result<(), ProviderError> {
        let native = {
            let s = lock(&self.shared);
            match s.normalizer.active_turn() {
                Some((core, Some(native))) if core == turn_id => native.to_string(),
                _ => {
                    return Err(ProviderError::new("the turn is not running in Codex (yet)")
                        .with_code(ErrorCode::NoActiveTurn))
                }
            }
        };
        let params = TurnSteerParams {
            thread_id: self.thread_id.clone(),
            input: Self::input(&turn),
            expected_turn_id: native,
        };
        let params = serde_json::to_value(&params).unwrap_or(Value::Null);
        match self.call(method::TURN_STEER, params).await {
            Ok(_) => Ok(()),
            Err(e) => Err(self.failure(e).await),
        }
    }

    async fn interrupt(&mut self, turn_id: &str) -> Result<(), ProviderError> {
        let native = match lock(&self.shared).normalizer.active_turn() {
            Some((core, native)) if core == turn_id => native.map(str::to_string),
            _ => None,
        };
        let result = match native {
            Some(native) => {
                let params = TurnInterruptParams {
                    thread_id: self.thread_id.clone(),
                    turn_id: native,
                };
                let params = serde_json::to_value(&params).unwrap_or(Value::Null);
                match self.call(method::TURN_INTERRUPT, params).await {
                    Ok(_) => Ok(()),
                    // The turn ended meanwhile (e.g. a cancelled approval stopped it).
                    Err(PeerError::Rpc { error, .. }) => {
                        tracing::info!("turn/interrupt refused: {error}");
                        Ok(())
                    }
                    Err(e) => Err(self.failure(e).await),
                }
            }
            // Codex never started it; the core ends the turn after its grace period.
            None => Ok(()),
        };
        // A pending approval is cancelled with the turn (on a shared app-server, once the
        // approvals Codex asked for before answering are in).
        self.server.settle().wait().await;
        let pending: Vec<PendingApproval> = lock(&self.shared)
            .approvals
            .take_turn(None)
            .into_iter()
            .map(|(_, a)| a.native)
            .collect();
        for approval in pending {
            self.answer(&approval, approval.cancelled()).await;
        }
        result
    }

    /// The core ended the turn itself: cancel its approvals natively and stop the native
    /// turn, so the thread cannot stay wedged on an unanswered approval.
    async fn abandon_turn(&mut self, turn_id: &str, pending: Vec<String>) {
        tracing::debug!(turn_id, ?pending, "codex turn abandoned by the core");
        if let Err(e) = self.interrupt(turn_id).await {
            tracing::warn!("interrupting an abandoned codex turn failed: {e}");
        }
    }

    async fn respond_permission(
        &mut self,
        permission_id: &str,
        response: ProviderPermissionResponse,
    ) -> Result<(), ProviderError> {
        let approval = lock(&self.shared).approvals.take(permission_id);
        let Some(approval) = approval.map(|a| a.native) else {
            return Err(ProviderError::new(format!(
                "no pending Codex approval `{permission_id}`"
            )));
        };
        let result = approval.result(&response);
        tracing::debug!(permission_id, %result, "answering codex approval");
        self.answer(&approval, result).await;
        Ok(())
    }

    async fn configure(
        &mut self,
        changes: ProviderConfigChanges,
    ) -> Result<ProviderConfigState, ProviderError> {
        self.settle_sandbox();
        let next = self.config.apply(&changes)?;
        self.reload_thread_config(&next).await?;
        self.config = next;
        Ok(self.config.state())
    }

    async fn revert(&mut self, token: Value, scope: RevertScope) -> Result<(), ProviderError> {
        self.revert_to(token, scope).await
    }

    async fn can_stop_runtime(&mut self) -> bool {
        let s = lock(&self.shared);
        s.normalizer.active_turn().is_none()
            && s.approvals.is_empty()
            && s.normalizer.running_tools() == 0
    }

    fn shared_death(&self) -> Option<agent_bridge_core::lifecycle::shared::SharedDeath> {
        self.server.shared_death()
    }

    /// A dead app-server is started again and resumes the thread (see `restart`).
    fn can_restart(&self) -> bool {
        true
    }

    async fn restart(
        &mut self,
        sink: SessionSink,
    ) -> Result<agent_bridge_core::Restarted, ProviderError> {
        self.restart_runtime(sink).await
    }

    async fn close(&mut self) {
        if self.server.is_shared() {
            self.leave_thread().await;
        }
        self.server.close(launch::CLOSE_LIMIT).await;
    }
}

impl Drop for CodexSession {
    fn drop(&mut self) {
        // Dropping the session kills its CLI (or leaves a shared one); that exit is no failure
        // to report.
        self.server.kill_now();
    }
}

/// A prompt as Codex input: text parts joined into one text item, images as `data:` URLs.
pub fn prompt_input(input: &PromptInput, fallback: &str) -> Vec<InputItem> {
    let PromptInput::Message { content } = input else {
        return vec![InputItem::Text {
            text: fallback.to_string(),
        }];
    };
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for part in content {
        match part {
            ProviderContent::Tagged(TaggedContent::Image { data, mime_type }) => {
                images.push(InputItem::Image {
                    url: format!("data:{mime_type};base64,{data}"),
                });
            }
            other => texts.extend(other.as_text()),
        }
    }
    let mut out = Vec::new();
    if !texts.is_empty() || images.is_empty() {
        out.push(InputItem::Text {
            text: texts.join("\n\n"),
        });
    }
    out.extend(images);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn a_late_sandbox_problem_reaches_the_modes_and_the_unconfigured_default() {
        let mut works = SessionConfig::for_test("gpt-5", None, "full-access");
        works.modes = catalog::modes(None);
        works.default_mode = Some("auto".into());
        let before = works.clone();
        assert!(!works.sandbox_answered(None, false), "nothing to change");
        assert_eq!(works, before);
        let mut broken = before.clone();
        assert!(broken.sandbox_answered(Some("bwrap: no permission"), false));
        assert_eq!(broken.modes, catalog::modes(Some("bwrap: no permission")));
        assert_ne!(broken.modes, before.modes);
        assert_eq!(broken.default_mode.as_deref(), Some("ask"));
        assert_eq!(
            broken.mode.as_deref(),
            Some("full-access"),
            "the mode in force stays"
        );
        let mut configured = before.clone();
        configured.sandbox_answered(Some("x"), true);
        assert_eq!(configured.default_mode.as_deref(), Some("auto"));
    }

    #[test]
    fn images_travel_as_data_urls_next_to_the_text() {
        let input: PromptInput = serde_json::from_value(json!({"type": "message", "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "text", "mimeType": "text/plain", "title": "notes", "text": "n"}
        ]}))
        .unwrap();
        assert_eq!(
            serde_json::to_value(prompt_input(&input, "")).unwrap(),
            json!([
                {"type": "text", "text": "what is this?\n\nnotes\nn"},
                {"type": "image", "url": "data:image/png;base64,iVBORw0KGgo="}
            ])
        );
        let only_image: PromptInput =
            serde_json::from_value(json!({"type": "message", "content": [
            {"type": "image", "data": "AA==", "mimeType": "image/jpeg"}]}))
            .unwrap();
        assert_eq!(prompt_input(&only_image, "").len(), 1);
    }
}
