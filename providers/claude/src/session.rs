//! One live Claude Code session: the process, its shared state, and the `AgentSession` methods.

use crate::control::control_error;
use crate::launch::LaunchOptions;
use crate::permissions::{self};
use crate::prompt::prompt_content;
use crate::wire;
use agent_bridge_core::lifecycle::lock;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{AgentEvent, AgentSession, CommandOutcome, SessionSink, TurnRequest};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    ProviderConfigChanges, ProviderConfigState, ProviderError, ProviderPermissionResponse,
    RevertScope,
};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};

mod configure;
pub mod output_schema;
mod restart;
pub mod rewind;

pub use crate::runtime::{initialize, spawn_runtime, startup_error, Runtime};
pub use crate::state::{ConfigSnapshot, RunningTurn, SessionState};
pub use restart::conversation_missing;

pub struct ClaudeSession {
    pub runtime: Runtime,
    /// What starting the CLI again needs (after it died, or for a thinking change it cannot
    /// apply live).
    pub relaunch: SessionRelaunch,
}

/// How the session's process was started, to start it again with `--resume`. Unlike the
/// other providers' `SessionRelaunch`, it keeps the parts of the launch rather than one
/// `lifecycle::Relaunch`: Claude Code's arguments change with each start (`--resume`,
/// `--resume-session-at`, the flags of the options in force, a fresh MCP config file), so
/// they are built again from `opts` each time.
pub struct SessionRelaunch {
    pub session_id: String,
    pub launch: LaunchOverride,
    pub env: BTreeMap<String, String>,
    pub opts: LaunchOptions,
    pub sink: SessionSink,
    /// The session's process scope (a respawned CLI joins it).
    pub scope: agent_bridge_core::ProcessScope,
}

impl ClaudeSession {
    async fn write_user(
        &self,
        content: Vec<Value>,
        turn: Option<RunningTurn>,
        steer_of: Option<&str>,
    ) -> Result<String, ProviderError> {
        let uuid = uuid::Uuid::new_v4().to_string();
        self.track_input(&uuid, turn, steer_of)?;
        self.runtime
            .channel
            .write(wire::user_line(content, &uuid))
            .await
            .map_err(control_error)?;
        Ok(uuid)
    }

    /// Records the user line `uuid` as input of a new turn or of the running one.
    fn track_input(
        &self,
        uuid: &str,
        turn: Option<RunningTurn>,
        steer_of: Option<&str>,
    ) -> Result<(), ProviderError> {
        let mut s = lock(&self.runtime.shared);
        if s.dead {
            return Err(ProviderError::new("the Claude Code process is not running")
                .with_code(ErrorCode::RuntimeExited));
        }
        match (turn, steer_of) {
            (Some(mut t), _) => {
                t.pending.insert(uuid.to_string());
                s.turn = Some(t);
            }
            (None, Some(turn_id)) => match s.turn.as_mut() {
                Some(t) if t.id == turn_id && !t.interrupted => {
                    t.pending.insert(uuid.to_string());
                }
                _ => {
                    return Err(ProviderError::new("no running turn to steer")
                        .with_code(ErrorCode::NoActiveTurn))
                }
            },
            (None, None) => {}
        }
        Ok(())
    }

    fn new_turn(id: &str, any_result_ends: bool) -> RunningTurn {
        RunningTurn {
            id: id.to_string(),
            pending: HashSet::new(),
            any_result_ends,
            interrupted: false,
        }
    }
}

#[async_trait]
impl AgentSession for ClaudeSession {
    async fn start_turn(&mut self, turn: TurnRequest) -> Result<(), ProviderError> {
        self.use_output_schema(output_schema::schema_text(
            turn.prompt.output_schema.as_ref(),
        ))
        .await?;
        let content = prompt_content(&turn);
        let uuid = self
            .write_user(content, Some(Self::new_turn(&turn.turn_id, false)), None)
            .await?;
        let row = crate::session::rewind::user_row(&turn, &uuid);
        self.runtime.events.send(AgentEvent::Item(row)).await;
        Ok(())
    }

    async fn steer(&mut self, turn_id: &str, turn: TurnRequest) -> Result<(), ProviderError> {
        let content = prompt_content(&turn);
        self.write_user(content, None, Some(turn_id)).await?;
        Ok(())
    }

    async fn run_command(
        &mut self,
        name: &str,
        arguments: &str,
        turn: TurnRequest,
    ) -> Result<CommandOutcome, ProviderError> {
        let text = crate::commands::command_line(&lock(&self.runtime.shared), name, arguments)?;
        let uuid = self
            .write_user(
                vec![json!({"type": "text", "text": text})],
                Some(Self::new_turn(&turn.turn_id, true)),
                None,
            )
            .await?;
        // Like a prompt's row (`rewind::user_row`): the line's uuid rewinds to before it.
        Ok(CommandOutcome::TurnWithRevert {
            message_id: Some(uuid.clone()),
            revert_token: Value::String(uuid),
        })
    }

    async fn interrupt(&mut self, turn_id: &str) -> Result<(), ProviderError> {
        {
            let mut s = lock(&self.runtime.shared);
            match s.turn.as_mut() {
                Some(t) if t.id == turn_id => t.interrupted = true,
                _ => return Ok(()),
            }
            s.normalizer.set_interrupted();
        }
        self.runtime
            .channel
            .send(json!({"subtype": "interrupt"}))
            .await
            .map_err(control_error)
    }

    /// The core ended the turn itself: deny its pending tool permissions natively (so the
    /// CLI is not left waiting on them) and interrupt the run.
    async fn abandon_turn(&mut self, turn_id: &str, pending: Vec<String>) {
        for id in pending {
            let deny = ProviderPermissionResponse::deny("The turn was ended by agent-bridge");
            if let Err(e) = self.respond_permission(&id, deny).await {
                tracing::debug!("abandoned permission {id}: {e}");
            }
        }
        if let Err(e) = self.interrupt(turn_id).await {
            tracing::warn!("interrupting an abandoned claude turn failed: {e}");
        }
    }

    async fn respond_permission(
        &mut self,
        permission_id: &str,
        response: ProviderPermissionResponse,
    ) -> Result<(), ProviderError> {
        let (answer, pending) = {
            let mut s = lock(&self.runtime.shared);
            let pending = s
                .permissions
                .take(permission_id)
                .map(|p| p.native)
                .ok_or_else(|| {
                    ProviderError::new(format!("no pending permission `{permission_id}`"))
                        .with_code(ErrorCode::UnknownPermission)
                })?;
            let answer = permissions::answer(&pending, &response);
            if answer.interrupt {
                if let Some(t) = s.turn.as_mut() {
                    t.interrupted = true;
                }
                s.normalizer.set_interrupted();
            }
            (answer, pending)
        };
        self.runtime
            .channel
            .write(wire::control_success_line(
                &pending.request_id,
                answer.response,
            ))
            .await
            .map_err(control_error)?;
        if let Some(mode) = answer.set_mode {
            let result = self
                .runtime
                .channel
                .request(json!({"subtype": "set_permission_mode", "mode": mode}))
                .await;
            match result {
                Ok(_) => {
                    let state = {
                        let mut s = lock(&self.runtime.shared);
                        s.config.mode = mode.to_string();
                        s.config_state()
                    };
                    self.runtime.events.send(AgentEvent::Config(state)).await;
                }
                Err(e) => tracing::warn!("plan approved but switching to {mode} failed: {e}"),
            }
        }
        Ok(())
    }

    async fn configure(
        &mut self,
        changes: ProviderConfigChanges,
    ) -> Result<ProviderConfigState, ProviderError> {
        let current = lock(&self.runtime.shared).config.clone();
        let next = self.validate(&current, &changes)?;
        let result = match self.apply(&current, &next, &changes).await {
            Ok(configure::Applied::Live) => Ok(()),
            Ok(configure::Applied::NeedsRespawn) => self.respawn_with(&next).await,
            Err(e) => Err(e),
        };
        let mut s = lock(&self.runtime.shared);
        s.configuring = false;
        match result {
            Ok(()) => {
                s.config = next;
                Ok(s.config_state())
            }
            Err(e) => {
                s.config = current;
                Err(e)
            }
        }
    }

    async fn can_stop_runtime(&mut self) -> bool {
        let s = lock(&self.runtime.shared);
        s.dead
            || (s.turn.is_none()
                && s.permissions.is_empty()
                && !s.normalizer.run_active()
                && s.normalizer.background_tasks() == 0)
    }

    async fn revert(&mut self, token: Value, scope: RevertScope) -> Result<(), ProviderError> {
        self.rewind(&token, scope).await
    }

    fn can_restart(&self) -> bool {
        true
    }

    async fn restart(
        &mut self,
        sink: SessionSink,
    ) -> Result<agent_bridge_core::Restarted, ProviderError> {
        self.restart_after_death(sink).await
    }

    async fn close(&mut self) {
        self.runtime.shutdown().await;
        self.publish_saved_on_close().await;
    }
}

impl ClaudeSession {
    /// A handle still held when the session closes (it closed within moments of its first
    /// run's end), or a rewound session's handle still carrying `resumeAt` although a run
    /// followed the rewind: the CLI wrote its transcript when it exited, so the host gets the
    /// plain handle (the core publishes what is reported while closing, before
    /// `session.closed`). A rewound one only when the transcript holds the run after the
    /// rewind point: without it, the plain handle would resume the branch the rewind left.
    pub(crate) async fn publish_saved_on_close(&self) {
        let pending = {
            let s = lock(&self.runtime.shared);
            match (&s.awaiting_save, &s.native_session_id) {
                (Some(awaited), Some(id)) if s.persistence_held || s.rewound_at.is_some() => {
                    let entry = s.rewound_at.is_some().then(|| awaited.0.clone()).flatten();
                    Some((id.clone(), s.cwd.clone(), entry))
                }
                _ => None,
            }
        };
        let Some((native, cwd, entry)) = pending else {
            return;
        };
        let projects = crate::transcript::projects_dir(
            &self.relaunch.launch.effective_env(&self.relaunch.env),
        );
        if !crate::saved::on_disk(projects.as_deref(), &cwd, &native, entry.as_deref()).await {
            return;
        }
        if let Some(sink) = self.runtime.events.sink() {
            let handle = crate::state::persistence(&native, &cwd);
            let sent = tokio::time::timeout(
                std::time::Duration::from_millis(200),
                sink.send(AgentEvent::Persistence(handle)),
            )
            .await;
            if sent.is_err() {
                tracing::debug!(
                    "the session's sink was full at close; its handle was not published"
                );
            }
        }
    }
}
