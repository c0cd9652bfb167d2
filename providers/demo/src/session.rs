//! A live demo session: turn tasks, steering, permissions, configure, persistence.

use crate::catalog::DemoConfig;
use crate::script::Script;
use crate::store::{self, StoredSession};
use crate::turn::{run_turn, PendingPermissions, TurnContext};
use agent_bridge_core::{
    AgentEvent, AgentSession, CommandOutcome, ProcessScope, SessionSink, TurnRequest,
};
use agent_bridge_protocol::{
    ItemBody, ProviderConfigChanges, ProviderConfigState, ProviderError, ProviderNotice,
    ProviderPermissionResponse, Severity, TimelineItem,
};
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

struct Active {
    turn_id: String,
    cancel: CancellationToken,
    steer: mpsc::Sender<String>,
    task: tokio::task::JoinHandle<()>,
}

pub struct DemoSession {
    pub(crate) sink: SessionSink,
    pub(crate) config: DemoConfig,
    pub(crate) cwd: String,
    pub(crate) base_env: Option<BTreeMap<String, String>>,
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) data_dir: Option<PathBuf>,
    pub(crate) stored: StoredSession,
    pub(crate) record: Arc<Mutex<Vec<TimelineItem>>>,
    pub(crate) permissions: PendingPermissions,
    pub(crate) running_tools: Arc<Mutex<usize>>,
    /// Where the shell tools' pids are registered, so a close waits until they are gone.
    scope: ProcessScope,
    active: Option<Active>,
    turns: u32,
}

impl DemoSession {
    pub(crate) fn new(
        sink: SessionSink,
        config: DemoConfig,
        cwd: String,
        base_env: Option<BTreeMap<String, String>>,
        env: BTreeMap<String, String>,
        data_dir: Option<PathBuf>,
        stored: StoredSession,
    ) -> Self {
        Self {
            sink,
            config,
            cwd,
            base_env,
            env,
            data_dir,
            stored,
            record: Arc::new(Mutex::new(Vec::new())),
            permissions: Arc::new(Mutex::new(Default::default())),
            running_tools: Arc::new(Mutex::new(0)),
            scope: ProcessScope::default(),
            active: None,
            turns: 0,
        }
    }

    /// Registers the shell tools' processes in the session's scope.
    pub(crate) fn with_scope(mut self, scope: ProcessScope) -> Self {
        self.scope = scope;
        self
    }

    /// Moves what finished turns produced into the stored transcript and writes it. A session
    /// that does not persist keeps nothing: its memory stays flat however long it runs.
    async fn persist(&mut self) {
        let produced: Vec<TimelineItem> = self
            .record
            .lock()
            .map(|mut r| std::mem::take(&mut *r))
            .unwrap_or_default();
        if self.data_dir.is_none() {
            self.stored.prompts.clear();
            return;
        }
        for item in produced {
            match self.stored.items.iter_mut().find(|i| i.id == item.id) {
                Some(slot) => *slot = item,
                None => self.stored.items.push(item),
            }
        }
        let Some(dir) = &self.data_dir else { return };
        self.stored.updated_at = store::now_stamp();
        if let Err(e) = store::save(dir, &self.stored).await {
            tracing::warn!(
                "could not save demo session {}: {e}",
                self.stored.session_id
            );
        }
    }

    fn spawn_turn(&mut self, turn: &TurnRequest, text: String) {
        let cancel = CancellationToken::new();
        let (steer_tx, steer_rx) = mpsc::channel(16);
        let ctx = TurnContext {
            turn_id: turn.turn_id.clone(),
            text: text.clone(),
            config: self.config.clone(),
            cwd: self.cwd.clone(),
            base_env: self.base_env.clone(),
            env: self.env.clone(),
            sink: self.sink.clone(),
            cancel: cancel.clone(),
            steer: steer_rx,
            permissions: self.permissions.clone(),
            record: self.record.clone(),
            running_tools: self.running_tools.clone(),
            scope: self.scope.clone(),
        };
        let task = tokio::spawn(run_turn(ctx, Script::parse(&text)));
        if let Some(old) = self.active.replace(Active {
            turn_id: turn.turn_id.clone(),
            cancel,
            steer: steer_tx,
            task,
        }) {
            old.cancel.cancel();
        }
    }

    fn record_user(&mut self, turn_id: &str, text: &str) {
        if self.stored.title.is_none() {
            self.stored.title = Some(
                agent_bridge_protocol::prompt_preview(text)
                    .chars()
                    .take(60)
                    .collect(),
            );
        }
        self.stored.prompts.push(text.to_string());
        let item = TimelineItem::new(
            format!("user:{turn_id}"),
            ItemBody::UserMessage {
                text: text.to_string(),
                message_id: None,
                client_message_id: None,
            },
        );
        if let Ok(mut r) = self.record.lock() {
            r.push(item);
        }
    }
}

#[async_trait]
impl AgentSession for DemoSession {
    async fn start_turn(&mut self, turn: TurnRequest) -> Result<(), ProviderError> {
        self.persist().await;
        self.turns += 1;
        let text = turn.text.clone();
        self.record_user(&turn.turn_id, &text);
        self.spawn_turn(&turn, text);
        Ok(())
    }

    async fn steer(&mut self, turn_id: &str, turn: TurnRequest) -> Result<(), ProviderError> {
        let active = self
            .active
            .as_ref()
            .filter(|a| a.turn_id == turn_id && !a.task.is_finished());
        let Some(active) = active else {
            return Err(ProviderError::new(
                "the turn already finished; send the message as a new prompt",
            ));
        };
        active
            .steer
            .try_send(turn.text.clone())
            .map_err(|_| ProviderError::new("the turn cannot take more steering right now"))?;
        self.stored.prompts.push(turn.text);
        Ok(())
    }

    async fn run_command(
        &mut self,
        name: &str,
        arguments: &str,
        turn: TurnRequest,
    ) -> Result<CommandOutcome, ProviderError> {
        match name {
            "echo" => {
                self.turns += 1;
                self.record_user(&turn.turn_id, &format!("/echo {arguments}"));
                self.spawn_turn(&turn, arguments.to_string());
                Ok(CommandOutcome::Turn)
            }
            "status" => {
                let notice = ProviderNotice {
                    id: format!("status:{}", turn.turn_id),
                    severity: Severity::Info,
                    title: format!(
                        "Demo session: {} turns, model {}, mode {}",
                        self.turns, self.config.model, self.config.mode
                    ),
                    description: None,
                    dismissed: None,
                };
                self.sink.send(AgentEvent::Notice(notice)).await;
                Ok(CommandOutcome::Completed)
            }
            other => Err(ProviderError::new(format!(
                "unknown command `/{other}`; the demo has /echo and /status"
            ))),
        }
    }

    async fn interrupt(&mut self, turn_id: &str) -> Result<(), ProviderError> {
        match &self.active {
            Some(a) if a.turn_id == turn_id => {
                a.cancel.cancel();
                Ok(())
            }
            _ => Ok(()),
        }
    }

    async fn abandon_turn(&mut self, turn_id: &str, pending: Vec<String>) {
        if let Some(a) = self.active.as_ref().filter(|a| a.turn_id == turn_id) {
            a.cancel.cancel();
        }
        // Dropping a waiter cancels the question: the turn task stops waiting on it.
        if let Ok(mut waiting) = self.permissions.lock() {
            for id in &pending {
                waiting.remove(id);
            }
        }
    }

    async fn respond_permission(
        &mut self,
        permission_id: &str,
        response: ProviderPermissionResponse,
    ) -> Result<(), ProviderError> {
        let waiter = self
            .permissions
            .lock()
            .ok()
            .and_then(|mut p| p.remove(permission_id));
        match waiter {
            Some(tx) => {
                let _ = tx.send(response);
                Ok(())
            }
            None => Err(ProviderError::new(format!(
                "no pending permission `{permission_id}`"
            ))),
        }
    }

    async fn configure(
        &mut self,
        changes: ProviderConfigChanges,
    ) -> Result<ProviderConfigState, ProviderError> {
        self.config = self.config.apply(&changes)?;
        Ok(self.config.state())
    }

    async fn can_stop_runtime(&mut self) -> bool {
        let busy = self.active.as_ref().is_some_and(|a| !a.task.is_finished());
        let tools = self.running_tools.lock().map(|n| *n).unwrap_or(0);
        !busy && tools == 0
    }

    /// The demo's runtime lives in the bridge: a restart keeps the conversation and takes the
    /// new sink; the crashed turn's task has ended.
    fn can_restart(&self) -> bool {
        true
    }

    async fn restart(
        &mut self,
        sink: SessionSink,
    ) -> Result<agent_bridge_core::Restarted, ProviderError> {
        if let Some(active) = self.active.take() {
            active.cancel.cancel();
        }
        self.sink = sink;
        Ok(agent_bridge_core::Restarted::Resumed)
    }

    async fn close(&mut self) {
        if let Some(active) = self.active.take() {
            active.cancel.cancel();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), active.task).await;
        }
        self.persist().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(n: u32) -> TurnRequest {
        let prompt = serde_json::from_value(serde_json::json!({
            "clientMessageId": format!("m{n}"),
            "delivery": "auto",
            "input": {"type": "message", "content": [{"type": "text", "text": "say hi"}]}
        }))
        .expect("a prompt");
        TurnRequest {
            turn_id: format!("t{n}"),
            prompt,
            text: "say hi".into(),
        }
    }

    #[tokio::test]
    async fn a_session_that_does_not_persist_keeps_no_transcript() {
        let (sink, mut events) = SessionSink::channel();
        let stored = StoredSession {
            session_id: "s".into(),
            cwd: "/".into(),
            title: None,
            updated_at: String::new(),
            prompts: Vec::new(),
            items: Vec::new(),
        };
        let mut session = DemoSession::new(
            sink,
            DemoConfig::default(),
            "/".into(),
            None,
            BTreeMap::new(),
            None,
            stored,
        );
        for n in 0..5 {
            session.start_turn(turn(n)).await.expect("a turn");
            while let Some(event) = events.recv().await {
                if matches!(event, AgentEvent::TurnEnded { .. }) {
                    break;
                }
            }
        }
        session.persist().await;
        assert!(
            session.stored.items.is_empty(),
            "{:?}",
            session.stored.items
        );
        assert!(session.stored.prompts.is_empty());
        assert!(session.record.lock().map(|r| r.is_empty()).unwrap_or(false));
    }
}
