//! One live Claude Code session: the process, its shared state, and the `AgentSession` methods.

use crate::catalog::{self, CliModel};
use crate::control::{ControlChannel, ControlError};
use crate::launch::LaunchOptions;
use crate::normalize::Normalizer;
use crate::permissions::{self, PendingPermission};
use crate::prompt::prompt_content;
use crate::wire;
use agent_bridge_core::lifecycle::lock;
use agent_bridge_core::lifecycle::PendingRequests;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{AgentEvent, AgentSession, CommandOutcome, SessionSink, TurnRequest};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    ProviderCommand, ProviderConfigChanges, ProviderConfigState, ProviderError,
    ProviderPermissionResponse, RevertScope,
};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};

/// The turn the CLI is working on.
#[derive(Debug, Clone)]
pub struct TurnState {
    pub id: String,
    /// uuids of the user lines written for this turn that the CLI has not echoed yet.
    pub pending: HashSet<String>,
    /// Slash commands are not echoed: their first `result` ends the turn.
    pub any_result_ends: bool,
    pub interrupted: bool,
}

/// What the session knows about its configuration.
#[derive(Debug, Clone)]
pub struct ConfigSnapshot {
    pub models: Vec<CliModel>,
    pub model: String,
    pub mode: String,
    pub thinking: Option<String>,
    /// The `providerOptions` values (see [`crate::controls`]).
    pub options: crate::controls::Options,
}

/// State shared by the session methods and the stdout reader.
#[derive(Debug)]
pub struct Shared {
    pub normalizer: Normalizer,
    pub turn: Option<TurnState>,
    pub canceled_inputs: HashSet<String>,
    pub echo_seen: bool,
    /// The CLI's requests waiting for the user.
    pub permissions: PendingRequests<PendingPermission>,
    pub config: ConfigSnapshot,
    /// The CLI's slash commands as last published (see [`crate::commands`]).
    pub commands: Vec<ProviderCommand>,
    pub native_session_id: Option<String>,
    /// The native session has a transcript (`--resume` can find it): it was resumed, or the
    /// CLI wrote a run's entries to disk (see [`crate::saved`]). Until then its persistence
    /// handle is held back (a handle that cannot be resumed would fail the host's reopen).
    pub transcript_saved: bool,
    /// The handle of `native_session_id` waits for `transcript_saved`.
    pub persistence_held: bool,
    /// The uuid of the current run's last main-chain `assistant` / `user` line.
    pub last_entry: Option<String>,
    /// A run ended and its last entry is awaited in the transcript (see [`crate::saved`]).
    pub awaiting_save: Option<crate::saved::AwaitedEntry>,
    /// A watch of the transcript runs for `awaiting_save`.
    pub save_watch_running: bool,
    /// The conversation was rewound to this entry (`--resume-session-at`) and no run has ended
    /// since: a restart resumes at it too (see [`crate::rewind`]).
    pub rewound_at: Option<String>,
    pub cwd: String,
    /// The process died on its own (the bridge did not stop it).
    pub dead: bool,
    /// A `configure` is applying changes: the CLI's own mode/model notices are not published
    /// (the core publishes the committed config when it returns).
    pub configuring: bool,
}

impl Shared {
    /// The state of a process started for session `session_id` with `opts`.
    pub fn new(session_id: &str, opts: &LaunchOptions) -> Shared {
        Shared {
            normalizer: Normalizer::new(session_id, crate::normalize::Mode::Live),
            turn: None,
            canceled_inputs: HashSet::new(),
            echo_seen: false,
            permissions: PendingRequests::default(),
            config: ConfigSnapshot {
                models: catalog::fallback_models(),
                model: opts.model.clone().unwrap_or_else(|| "default".into()),
                mode: opts.mode.clone(),
                thinking: opts.effort.clone(),
                options: opts.options.clone(),
            },
            commands: Vec::new(),
            native_session_id: opts.resume.clone(),
            transcript_saved: opts.resume.is_some(),
            persistence_held: false,
            last_entry: None,
            awaiting_save: None,
            save_watch_running: false,
            rewound_at: opts.resume_at.clone(),
            cwd: opts.cwd.clone(),
            dead: false,
            configuring: false,
        }
    }

    pub fn config_state(&self) -> ProviderConfigState {
        let mut state = catalog::config_state(
            &self.config.models,
            &self.config.model,
            &self.config.mode,
            self.config.thinking.as_deref(),
        );
        state.controls = crate::controls::controls();
        state.provider_options = self.config.options.provider_options();
        state
    }
}

pub(crate) fn control_error(e: ControlError) -> ProviderError {
    let code = match e {
        // The process died before the bridge heard of it: the core restarts it and retries.
        ControlError::Gone => ErrorCode::RuntimeExited,
        ControlError::Timeout(_) | ControlError::Refused { .. } => ErrorCode::AgentError,
    };
    ProviderError::new(e.to_string()).with_code(code)
}

pub use crate::runtime::{spawn_runtime, Runtime};

pub struct ClaudeSession {
    pub runtime: Runtime,
    /// What a respawn needs (a thinking change the CLI cannot apply live).
    pub respawn: RespawnInfo,
}

/// How the session's process was started, to start it again with `--resume`.
pub struct RespawnInfo {
    pub session_id: String,
    pub launch: LaunchOverride,
    pub env: BTreeMap<String, String>,
    pub opts: LaunchOptions,
    pub sink: SessionSink,
    /// The session's process scope (a respawned CLI joins it).
    pub scope: agent_bridge_core::ProcessScope,
}

/// `initialize` first: the CLI answers with its commands and models.
pub async fn initialize(channel: &ControlChannel) -> Result<Value, ControlError> {
    channel
        .request_within(
            json!({"subtype": "initialize", "hooks": null}),
            crate::control::STARTUP_TIMEOUT,
        )
        .await
}

/// Why a process failed to come up, with its last stderr lines; stops it.
pub async fn startup_error(runtime: &mut Runtime, what: &str, e: ControlError) -> ProviderError {
    let stderr = runtime.agent.last_words().await;
    runtime.shutdown().await;
    ProviderError::new(format!("Claude Code failed to start ({what}): {e}"))
        .with_code(ErrorCode::CliStartFailed)
        .with_diagnostic(stderr)
}

impl ClaudeSession {
    async fn write_user(
        &self,
        content: Vec<Value>,
        turn: Option<TurnState>,
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
        turn: Option<TurnState>,
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

    fn new_turn(id: &str, any_result_ends: bool) -> TurnState {
        TurnState {
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
        let content = prompt_content(&turn);
        let uuid = self
            .write_user(content, Some(Self::new_turn(&turn.turn_id, false)), None)
            .await?;
        let row = crate::rewind::user_row(&turn, &uuid);
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
        let text = self.command_line(name, arguments)?;
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
            Ok(crate::configure::Applied::Live) => Ok(()),
            Ok(crate::configure::Applied::NeedsRespawn) => self.respawn_with(&next).await,
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
