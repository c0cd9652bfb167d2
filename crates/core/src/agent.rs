//! The two traits every agent module implements: [`Provider`] (shaped like Paseo's
//! `ProviderRegistration`) and [`AgentSession`] (one live native session).
//!
//! The core owns the protocol: it answers requests, emits `session.opened` / `session.ready`,
//! the user message, `session.prompt_result`, `session.turn` and `session.closed`, keeps the
//! timeline snapshot store and the pending permissions, and guarantees every invariant of the
//! wire contract. An agent module only drives its CLI and reports what happened through its
//! [`SessionSink`] as [`AgentEvent`]s.
//!
//! Rules for implementors:
//! - `AgentSession` methods may wait on the CLI (an answer to a request, say), within a time
//!   limit the core enforces (60 s; a hang becomes a clear error). While a method runs the core
//!   keeps draining the sink, so reporting events from inside a method, or from a reader task
//!   the method waits on, cannot deadlock. A method (and `Provider::open`) is dropped when a
//!   close of the session is admitted, so keep them cancel-safe.
//! - Do not wait for a whole turn inside `start_turn`: start it and return. Report progress from
//!   a task of your own (e.g. the CLI's stdout reader) through the sink, which is bounded: a slow
//!   host slows the agent down instead of growing a queue.
//! - A turn is started by [`AgentSession::start_turn`] with a core-made `turn_id`; end it by
//!   sending [`AgentEvent::TurnEnded`] with that id. Ends for a turn that is not the active one
//!   are ignored, so a stale `result` after an interrupt is harmless.
//! - When the CLI dies, send [`AgentEvent::RuntimeFailed`]; the core fails the active turn.
//!   A session whose [`AgentSession::can_restart`] is true stays open: before its next prompt,
//!   command or configure the core calls [`AgentSession::restart`] (a crash loop or a failed
//!   restart ends it with `session.runtime_failed`).
//! - Events sent while `Provider::open` runs (a replayed history, say) are drained as they come
//!   and published in order after `session.opened` + `session.config` and before
//!   `session.ready`; any number is fine (the core spools them, memory-bounded). A `Config`
//!   sent then is superseded by [`OpenedSession::config`]; of `Commands` only the newest counts.
//! - Register every process spawned for a session in [`OpenRequest::scope`]: a close is
//!   answered only once they are gone (the core drops the session, or the open, first).
//! - When the core ends a turn itself it calls [`AgentSession::abandon_turn`] first.

pub use crate::scope::ProcessScope;
use crate::supervisor::LaunchOverride;
use agent_bridge_protocol::{
    Capability, HistoryMode, ItemBody, ProviderAvailability, ProviderCatalog,
    ProviderCatalogOptions, ProviderCommand, ProviderConfigChanges, ProviderConfigState,
    ProviderError, ProviderNotice, ProviderPermissionRequest, ProviderPermissionResponse,
    ProviderPersistence, ProviderPrompt, ProviderSessionConfig, ProviderSessionSummary,
    ProviderUsage, RevertScope, TimelineItem,
};
use async_trait::async_trait;
use std::path::PathBuf;
use tokio::sync::mpsc;

/// Static facts about a provider, from `plugin.json` and the agent module.
#[derive(Debug, Clone)]
pub struct ProviderDescriptor {
    pub id: String,
    pub label: String,
    pub description: Option<String>,
    pub icon: Option<String>,
}

/// Everything a provider call may need from its environment.
#[derive(Debug, Clone, Default)]
pub struct ProviderContext {
    /// The command + argument prefix + env that launch the vendor CLI: the connect request's
    /// `launch` when given, else the provider's `command` from `plugin.json`, else the agent's
    /// default. `None` fields mean "use the agent's default".
    pub launch: LaunchOverride,
    /// The plugin's data folder (`initialize.plugin.dataDir`), for agents that keep state.
    pub data_dir: Option<PathBuf>,
    /// The plugin folder.
    pub plugin_dir: Option<PathBuf>,
}

/// What the host asked of a catalog or session list.
#[derive(Debug, Clone, Default)]
pub struct CatalogQuery {
    pub cwd: Option<String>,
    pub provider_options: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Default)]
pub struct SessionsQuery {
    pub cwd: Option<String>,
    pub query: Option<String>,
    pub limit: Option<u32>,
    pub provider_options: serde_json::Map<String, serde_json::Value>,
}

/// A `session.open`, as the core hands it to a provider.
#[derive(Debug, Clone)]
pub struct OpenRequest {
    pub session_id: String,
    pub config: ProviderSessionConfig,
    pub persistence: Option<ProviderPersistence>,
    pub history: HistoryMode,
    /// Register here the pid of every process spawned for this session: a close (even one
    /// that cancels this open) is answered only once they are gone. Its token is cancelled
    /// when a close of the session is admitted.
    pub scope: ProcessScope,
}

/// What a provider returns from a successful open.
pub struct OpenedSession {
    pub session: Box<dyn AgentSession>,
    /// The committed config the native agent selected (not a copy of the request).
    pub config: ProviderConfigState,
    pub persistence: Option<ProviderPersistence>,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Replayed history (only when `history` was `replay`), in provider order. Emitted before
    /// `session.ready`.
    pub replay: Vec<TimelineItem>,
    /// Child sessions restored with the parent (`restoration: "parent"`), each with its replay.
    pub children: Vec<ChildSession>,
    pub commands: Vec<ProviderCommand>,
    /// Capabilities this session supports, a subset of the provider's; `None` = all of them.
    pub capabilities: Option<Vec<Capability>>,
}

impl OpenedSession {
    pub fn new(session: Box<dyn AgentSession>, config: ProviderConfigState) -> Self {
        Self {
            session,
            config,
            persistence: None,
            title: None,
            description: None,
            replay: Vec::new(),
            children: Vec::new(),
            commands: Vec::new(),
            capabilities: None,
        }
    }
}

/// A provider-owned child session (a sub-agent).
#[derive(Debug, Clone)]
pub struct ChildSession {
    pub session_id: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub cwd: String,
    pub items: Vec<TimelineItem>,
}

/// The vendor CLI a provider drives, for `agent-bridge doctor` and availability probes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliSpec {
    /// Default program name, looked up on PATH unless `launch`/`plugin.json` override it.
    pub program: String,
    /// Arguments that print the version (e.g. `["--version"]`).
    pub version_args: Vec<String>,
}

impl CliSpec {
    pub fn new(program: impl Into<String>, version_args: &[&str]) -> Self {
        CliSpec {
            program: program.into(),
            version_args: version_args.iter().map(|a| a.to_string()).collect(),
        }
    }
}

/// One agent family (Claude Code, Codex, the demo agent, ...).
#[async_trait]
pub trait Provider: Send + Sync + 'static {
    /// Capabilities this provider implements; a connection gets offered ∩ these.
    fn capabilities(&self) -> Vec<Capability>;

    /// The capabilities a connection with `ctx`'s launch is offered from: by default
    /// [`capabilities`](Self::capabilities); an agent that tells what it supports (a user's own
    /// ACP agent in its `initialize`) may be asked here, its answer remembered.
    async fn capabilities_for(&self, ctx: &ProviderContext) -> Vec<Capability> {
        let _ = ctx;
        self.capabilities()
    }

    /// The vendor CLI this provider runs; `None` for a built-in agent.
    fn cli(&self) -> Option<CliSpec> {
        None
    }

    /// Probes the native runtime without opening a session.
    async fn availability(
        &self,
        ctx: &ProviderContext,
        options: &ProviderCatalogOptions,
    ) -> ProviderAvailability;

    /// Equal keys share discovery. `None` = no caching.
    async fn catalog_cache_key(
        &self,
        ctx: &ProviderContext,
        options: &ProviderCatalogOptions,
    ) -> Option<String>;

    async fn catalog(
        &self,
        ctx: &ProviderContext,
        query: CatalogQuery,
    ) -> Result<ProviderCatalog, ProviderError>;

    /// Native sessions for `session.list`. Only called when the provider declares `session.list`.
    async fn list_sessions(
        &self,
        ctx: &ProviderContext,
        query: SessionsQuery,
    ) -> Result<Vec<ProviderSessionSummary>, ProviderError> {
        let _ = (ctx, query);
        Ok(Vec::new())
    }

    /// Archives (`archived`) or unarchives the native session `persistence` names: an archived
    /// session leaves [`list_sessions`](Self::list_sessions), an unarchived one comes back.
    /// Only called when the provider declares `session.archive` / `session.unarchive`.
    async fn set_archived(
        &self,
        ctx: &ProviderContext,
        persistence: ProviderPersistence,
        archived: bool,
    ) -> Result<(), ProviderError> {
        let _ = (ctx, persistence, archived);
        Err(ProviderError::new(
            "archiving is not supported by this agent",
        ))
    }

    /// Opens (or resumes, when `persistence` is set) a native session. Events from the session
    /// go through `sink`.
    async fn open(
        &self,
        ctx: &ProviderContext,
        request: OpenRequest,
        sink: SessionSink,
    ) -> Result<OpenedSession, ProviderError>;
}

/// The id of the `user_message` row the core publishes for the prompt that starts turn
/// `turn_id`: an agent re-sends that row (say, with a `revertToken`) under this id.
pub fn user_item_id(turn_id: &str) -> String {
    format!("user:{turn_id}")
}

/// A prompt, as handed to the agent when a turn starts.
#[derive(Debug, Clone)]
pub struct TurnRequest {
    pub turn_id: String,
    pub prompt: ProviderPrompt,
    /// The prompt as plain text (text parts and attachments).
    pub text: String,
}

/// What running a command did.
#[derive(Debug, Clone, PartialEq)]
pub enum CommandOutcome {
    /// The command started a normal turn (the agent will end it with `TurnEnded`).
    Turn,
    /// As [`CommandOutcome::Turn`], and the turn's `user_message` gets the native message id
    /// and the `revertToken` that rewinds the conversation to before it (a prompt's row gets
    /// them from the agent; a command's row is published after `run_command` returns).
    TurnWithRevert {
        message_id: Option<String>,
        revert_token: serde_json::Value,
    },
    /// The command finished as a side effect, without a turn.
    Completed,
}

/// One live native session.
#[async_trait]
pub trait AgentSession: Send + 'static {
    /// Starts a turn with a message prompt. Return an error if the turn could not start.
    async fn start_turn(&mut self, turn: TurnRequest) -> Result<(), ProviderError>;

    /// Adds input to the active turn `turn_id`. Only called when the provider declares
    /// `prompt.steer`.
    async fn steer(&mut self, turn_id: &str, turn: TurnRequest) -> Result<(), ProviderError> {
        let _ = (turn_id, turn);
        Err(ProviderError::new(
            "steering is not supported by this agent",
        ))
    }

    /// Runs a slash command. `turn.turn_id` is the id to use if the command starts a turn.
    async fn run_command(
        &mut self,
        name: &str,
        arguments: &str,
        turn: TurnRequest,
    ) -> Result<CommandOutcome, ProviderError> {
        let _ = (name, arguments, turn);
        Err(ProviderError::new(
            "commands are not supported by this agent",
        ))
    }

    /// Asks the native agent to stop the active turn. The agent then ends the turn as
    /// `Canceled`; the core ends it itself if the agent does not within a grace period.
    async fn interrupt(&mut self, turn_id: &str) -> Result<(), ProviderError>;

    /// The core ended the turn `turn_id` itself: the interrupt grace expired, the session is
    /// closing, the runtime died, or the turn failed to start. Answer/cancel these pending
    /// native requests natively and stop the native turn so it cannot wedge. `pending` are the
    /// permission ids raised during that turn and still unanswered. Called (within a short time
    /// limit) before the core settles the turn and reports each permission resolved; events
    /// sent meanwhile are handled first. A later `TurnEnded` for this turn is ignored.
    async fn abandon_turn(&mut self, turn_id: &str, pending: Vec<String>) {
        let _ = (turn_id, pending);
    }

    /// Rewinds the session to the timeline item whose `revertToken` is `token` (the agent's
    /// own value, sent back by the host), in `scope`. Only called with no turn running, and
    /// only for the scopes the provider declares (`session.revert.<scope>`).
    async fn revert(
        &mut self,
        token: serde_json::Value,
        scope: RevertScope,
    ) -> Result<(), ProviderError> {
        let _ = (token, scope);
        Err(ProviderError::new(
            "rewinding is not supported by this agent",
        ))
    }

    /// Answers a permission request the agent raised.
    async fn respond_permission(
        &mut self,
        permission_id: &str,
        response: ProviderPermissionResponse,
    ) -> Result<(), ProviderError>;

    /// Applies every change or none; returns the committed config.
    async fn configure(
        &mut self,
        changes: ProviderConfigChanges,
    ) -> Result<ProviderConfigState, ProviderError>;

    /// True when releasing the runtime would lose nothing the agent knows of (background
    /// shells, sub-agents, queued work). The core already checks turns and permissions.
    async fn can_stop_runtime(&mut self) -> bool {
        true
    }

    /// On a process shared with other sessions: its launch's crash-loop count and which
    /// process it is now, so that a death of the process counts once for the crash-loop guard,
    /// not once per session (see [`crate::process_deaths`]). `None` (the default): the
    /// session's own deaths count.
    fn shared_death(&self) -> Option<crate::process_deaths::SharedDeath> {
        None
    }

    /// Whether [`restart`](Self::restart) can bring the runtime back after it died. When false
    /// (the default) a runtime failure ends the session (`session.runtime_failed`).
    fn can_restart(&self) -> bool {
        false
    }

    /// The runtime died (this session reported [`AgentEvent::RuntimeFailed`], or dropped every
    /// sink): start it again and resume the native session where it was, without replaying
    /// its history as new timeline items. From now on report through `sink`; what is sent on
    /// the previous sink is dropped. Called before the next prompt, command or configure,
    /// within [`OPEN_TIMEOUT`](crate::limits::OPEN_TIMEOUT); an error ends the session with
    /// `session.runtime_failed`. Register the new processes in the session's scope.
    ///
    /// A native session that cannot be brought back (never saved, or gone) is no error: start
    /// a new conversation, send its persistence handle, and answer [`Restarted::Fresh`]; the
    /// core tells the user and gives the model the conversation it still holds with the next
    /// prompt (see [`crate::carry_over`]). An error is for an agent that cannot start at all.
    async fn restart(&mut self, sink: SessionSink) -> Result<Restarted, ProviderError> {
        let _ = sink;
        Err(ProviderError::new("this agent cannot be restarted"))
    }

    /// Stops the native session and releases its processes (graceful, then forced).
    async fn close(&mut self);
}

/// How a restarted runtime came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Restarted {
    /// The native session is back: the agent remembers the conversation.
    Resumed,
    /// The native session could not be brought back; the agent runs a new conversation.
    /// `reason` says why, in the agent's words where it gave any.
    Fresh { reason: String },
}

/// How a turn ended, as the agent reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    Completed,
    Failed(ProviderError),
    Canceled,
}

/// What an agent reports about its session.
#[derive(Debug, Clone)]
pub enum AgentEvent {
    /// Insert or replace a timeline row (complete snapshot) of this session.
    Item(TimelineItem),
    /// Insert or replace a row in a child session.
    ChildItem {
        child_session_id: String,
        item: TimelineItem,
    },
    /// A provider-owned child session appeared (e.g. a sub-agent started).
    ChildOpened(ChildSession),
    /// A child session ended.
    ChildClosed {
        child_session_id: String,
    },
    /// The turn `turn_id` ended.
    TurnEnded {
        turn_id: String,
        outcome: TurnOutcome,
    },
    Usage {
        turn_id: Option<String>,
        usage: ProviderUsage,
    },
    Config(ProviderConfigState),
    Commands(Vec<ProviderCommand>),
    Permission(ProviderPermissionRequest),
    /// The agent withdrew or settled a permission request itself.
    PermissionResolved {
        permission_id: String,
    },
    Notice(ProviderNotice),
    Persistence(ProviderPersistence),
    /// The native runtime died; the active turn fails with this error.
    RuntimeFailed(ProviderError),
}

/// The agent's handle for reporting events. Bounded: a slow host slows the agent down
/// (backpressure) instead of growing a queue.
#[derive(Debug, Clone)]
pub struct SessionSink {
    tx: mpsc::Sender<AgentEvent>,
}

/// Capacity of each session's event queue.
pub const SESSION_QUEUE: usize = 64;

impl SessionSink {
    pub fn channel() -> (SessionSink, mpsc::Receiver<AgentEvent>) {
        let (tx, rx) = mpsc::channel(SESSION_QUEUE);
        (SessionSink { tx }, rx)
    }

    /// Sends an event; returns false when the session is gone (closed), which the agent may
    /// take as a signal to stop.
    pub async fn send(&self, event: AgentEvent) -> bool {
        self.tx.send(event).await.is_ok()
    }

    pub async fn item(&self, item: TimelineItem) -> bool {
        self.send(AgentEvent::Item(item)).await
    }

    pub async fn item_body(&self, id: impl Into<String>, body: ItemBody) -> bool {
        self.send(AgentEvent::Item(TimelineItem::new(id, body)))
            .await
    }

    pub async fn turn_ended(&self, turn_id: impl Into<String>, outcome: TurnOutcome) -> bool {
        self.send(AgentEvent::TurnEnded {
            turn_id: turn_id.into(),
            outcome,
        })
        .await
    }

    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Resolves once the session is gone (its receiver dropped): a task that only serves the
    /// session ends with it.
    pub async fn closed(&self) {
        self.tx.closed().await
    }
}
