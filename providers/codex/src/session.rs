//! A live Codex session: one app-server process, one thread.
//!
//! Methods write to the app-server and return; the calls they await (`turn/start`,
//! `turn/steer`, `turn/interrupt`) are answered by the reader task directly, never behind the
//! host. The pump task turns notifications and server requests into [`AgentEvent`]s.

use crate::catalog::{self, SessionConfig};
use crate::client::{ProcessControl, RpcHandle, ServerMessage};
use crate::launch::call_error;
use crate::normalize::Normalizer;
use crate::permissions::{self, PendingApproval};
use crate::wire::notify::{method, Notification, ServerRequest};
use crate::wire::params::{InputItem, TurnInterruptParams, TurnStartParams, TurnSteerParams};
use crate::wire::thread::TurnStarted;
use agent_bridge_core::{AgentEvent, AgentSession, SessionSink, TurnRequest};
use agent_bridge_protocol::{
    PromptInput, ProviderConfigChanges, ProviderConfigState, ProviderContent, ProviderError,
    ProviderPermissionResponse, TaggedContent,
};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;

/// Longest a turn request (`turn/start`, `turn/steer`, `turn/interrupt`) may take to answer.
const TURN_CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest a close waits for the process group to go.
const CLOSE_LIMIT: Duration = Duration::from_millis(3500);

/// State shared by the session methods and the pump.
#[derive(Debug)]
pub struct Shared {
    pub normalizer: Normalizer,
    /// Permission id -> the Codex request waiting for it.
    pub approvals: HashMap<String, PendingApproval>,
    pub closing: bool,
}

pub type SharedState = Arc<Mutex<Shared>>;

fn lock(shared: &SharedState) -> MutexGuard<'_, Shared> {
    // A poisoned lock only means a panic elsewhere; the state itself stays usable.
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

pub struct CodexSession {
    rpc: RpcHandle,
    process: ProcessControl,
    shared: SharedState,
    thread_id: String,
    config: SessionConfig,
    pump: tokio::task::JoinHandle<()>,
}

impl CodexSession {
    pub fn start(
        rpc: RpcHandle,
        process: ProcessControl,
        messages: mpsc::UnboundedReceiver<ServerMessage>,
        normalizer: Normalizer,
        config: SessionConfig,
        sink: SessionSink,
    ) -> CodexSession {
        let thread_id = normalizer.thread_id().to_string();
        let shared = Arc::new(Mutex::new(Shared {
            normalizer,
            approvals: HashMap::new(),
            closing: false,
        }));
        let pump = tokio::spawn(pump(messages, rpc.clone(), shared.clone(), sink));
        CodexSession {
            rpc,
            process,
            shared,
            thread_id,
            config,
            pump,
        }
    }

    fn input(turn: &TurnRequest) -> Vec<InputItem> {
        prompt_input(&turn.prompt.input, &turn.text)
    }

    fn error(&self, e: crate::client::CallError) -> ProviderError {
        call_error(e, &self.process.stderr_tail())
    }
}

#[async_trait]
impl AgentSession for CodexSession {
    async fn start_turn(&mut self, turn: TurnRequest) -> Result<(), ProviderError> {
        lock(&self.shared).normalizer.begin_turn(&turn.turn_id);
        let mode = self.config.mode.as_deref().and_then(catalog::mode);
        let params = TurnStartParams {
            thread_id: self.thread_id.clone(),
            input: Self::input(&turn),
            model: self.config.model.clone(),
            effort: self.config.effort.clone(),
            approval_policy: mode.map(|m| m.approval.to_string()),
            sandbox_policy: mode.map(|m| m.sandbox_policy()),
            output_schema: turn.prompt.output_schema.clone(),
        };
        let params = serde_json::to_value(&params).unwrap_or(Value::Null);
        match self
            .rpc
            .call(method::TURN_START, params, TURN_CALL_TIMEOUT)
            .await
        {
            Ok(v) => {
                if let Ok(started) = serde_json::from_value::<TurnStarted>(v) {
                    lock(&self.shared)
                        .normalizer
                        .bind_native(&turn.turn_id, &started.turn.id);
                }
                Ok(())
            }
            Err(e) => {
                lock(&self.shared).normalizer.drop_turn(&turn.turn_id);
                Err(self.error(e))
            }
        }
    }

    async fn steer(&mut self, turn_id: &str, turn: TurnRequest) -> Result<(), ProviderError> {
        let native = {
            let s = lock(&self.shared);
            match s.normalizer.active_turn() {
                Some((core, Some(native))) if core == turn_id => native.to_string(),
                _ => {
                    return Err(ProviderError::new("the turn is not running in Codex (yet)")
                        .with_code("turn_not_active"))
                }
            }
        };
        let params = TurnSteerParams {
            thread_id: self.thread_id.clone(),
            input: Self::input(&turn),
            expected_turn_id: native,
        };
        let params = serde_json::to_value(&params).unwrap_or(Value::Null);
        self.rpc
            .call(method::TURN_STEER, params, TURN_CALL_TIMEOUT)
            .await
            .map(|_| ())
            .map_err(|e| self.error(e))
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
                match self
                    .rpc
                    .call(method::TURN_INTERRUPT, params, TURN_CALL_TIMEOUT)
                    .await
                {
                    Ok(_) => Ok(()),
                    // The turn ended meanwhile (e.g. a cancelled approval stopped it).
                    Err(crate::client::CallError::Rpc { error, .. }) => {
                        tracing::info!("turn/interrupt refused: {error}");
                        Ok(())
                    }
                    Err(e) => Err(self.error(e)),
                }
            }
            // Codex never started it; the core ends the turn after its grace period.
            None => Ok(()),
        };
        // A pending approval is cancelled with the turn.
        let pending: Vec<PendingApproval> = lock(&self.shared)
            .approvals
            .drain()
            .map(|(_, a)| a)
            .collect();
        for approval in pending {
            self.rpc
                .respond(&approval.rpc_id, &json!({ "decision": "cancel" }));
        }
        result
    }

    async fn respond_permission(
        &mut self,
        permission_id: &str,
        response: ProviderPermissionResponse,
    ) -> Result<(), ProviderError> {
        let approval = lock(&self.shared).approvals.remove(permission_id);
        let Some(approval) = approval else {
            return Err(ProviderError::new(format!(
                "no pending Codex approval `{permission_id}`"
            )));
        };
        let decision = permissions::decision(&response);
        tracing::debug!(permission_id, decision, "answering codex approval");
        self.rpc
            .respond(&approval.rpc_id, &json!({ "decision": decision }));
        Ok(())
    }

    async fn configure(
        &mut self,
        changes: ProviderConfigChanges,
    ) -> Result<ProviderConfigState, ProviderError> {
        let next = self.config.apply(&changes)?;
        self.config = next;
        Ok(self.config.state())
    }

    async fn can_stop_runtime(&mut self) -> bool {
        let s = lock(&self.shared);
        s.normalizer.active_turn().is_none()
            && s.approvals.is_empty()
            && s.normalizer.running_tools() == 0
    }

    async fn close(&mut self) {
        lock(&self.shared).closing = true;
        self.rpc.close_input();
        self.process.shutdown(CLOSE_LIMIT).await;
        self.pump.abort();
    }
}

impl Drop for CodexSession {
    fn drop(&mut self) {
        self.pump.abort();
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

/// Turns the app-server's messages into agent events until it exits.
async fn pump(
    mut messages: mpsc::UnboundedReceiver<ServerMessage>,
    rpc: RpcHandle,
    shared: SharedState,
    sink: SessionSink,
) {
    while let Some(msg) = messages.recv().await {
        let (events, last) = match msg {
            ServerMessage::Notification { method, params } => {
                (notification(&shared, &method, params), false)
            }
            ServerMessage::Request { id, method, params } => {
                (server_request(&shared, &rpc, id, &method, params), false)
            }
            ServerMessage::Exited { status, stderr } => {
                if lock(&shared).closing {
                    return;
                }
                let message = match status {
                    Some(s) => format!("codex app-server exited unexpectedly ({s})"),
                    None => "codex app-server exited unexpectedly".to_string(),
                };
                let error = ProviderError::new(message)
                    .with_code("runtime_exited")
                    .with_diagnostic(stderr);
                (vec![AgentEvent::RuntimeFailed(error)], true)
            }
        };
        for ev in events {
            if !sink.send(ev).await {
                return;
            }
        }
        if last {
            return;
        }
    }
}

fn notification(shared: &SharedState, method: &str, params: Value) -> Vec<AgentEvent> {
    let mut s = lock(shared);
    if method == "serverRequest/resolved" {
        if let Notification::RequestResolved(r) = Notification::parse(method, params) {
            let id = permissions::permission_id(&r.request_id);
            s.approvals.remove(&id);
            return vec![AgentEvent::PermissionResolved { permission_id: id }];
        }
        return Vec::new();
    }
    s.normalizer.notification(method, params)
}

fn server_request(
    shared: &SharedState,
    rpc: &RpcHandle,
    id: Value,
    method: &str,
    params: Value,
) -> Vec<AgentEvent> {
    let mut s = lock(shared);
    let (request, item_id) = match ServerRequest::parse(method, params) {
        ServerRequest::CommandApproval(p) => (permissions::command_request(&p, &id), p.item_id),
        ServerRequest::FileChangeApproval(p) => {
            let snapshot = s.normalizer.tool(&p.item_id);
            (
                permissions::file_change_request(&p, &id, snapshot),
                p.item_id,
            )
        }
        ServerRequest::Other(m) => {
            tracing::warn!(method = %m, "codex server request not supported; answered with an error");
            rpc.respond_error(&id, -32601, &format!("agent-bridge does not handle `{m}`"));
            return Vec::new();
        }
    };
    s.approvals.insert(
        request.id.clone(),
        PendingApproval {
            rpc_id: id,
            item_id,
        },
    );
    vec![AgentEvent::Permission(request)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

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
