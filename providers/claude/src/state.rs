//! What one Claude Code session knows while its process runs: the turn, the pending
//! permissions, the configuration, the native session and its transcript, shared by the
//! session's methods and the stdout translator (one lock, the core's policy).

use crate::catalog::{self, CliModel};
use crate::launch::LaunchOptions;
use crate::normalize::Normalizer;
use crate::permissions::PendingPermission;
use agent_bridge_core::lifecycle::PendingRequests;
use agent_bridge_protocol::{ProviderCommand, ProviderConfigState, ProviderPersistence};
use serde_json::json;
use std::collections::HashSet;

/// The turn the CLI is working on.
#[derive(Debug, Clone)]
pub struct RunningTurn {
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
    /// The `providerOptions` values (see [`crate::options`]).
    pub options: crate::options::Options,
}

/// State shared by the session methods and the stdout reader.
#[derive(Debug)]
pub struct SessionState {
    pub normalizer: Normalizer,
    pub turn: Option<RunningTurn>,
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
    pub awaiting_save: Option<AwaitedEntry>,
    /// A watch of the transcript runs for `awaiting_save`.
    pub save_watch_running: bool,
    /// The conversation was rewound to this entry (`--resume-session-at`) and no run has ended
    /// since: a restart resumes at it too (see `session/rewind.rs`).
    pub rewound_at: Option<String>,
    pub cwd: String,
    /// The process died on its own (the bridge did not stop it).
    pub dead: bool,
    /// A `configure` is applying changes: the CLI's own mode/model notices are not published
    /// (the core publishes the committed config when it returns).
    pub configuring: bool,
    /// The process answers with a structured output (`--json-schema`): a run that ends
    /// without one fails.
    pub output_schema: bool,
}

impl SessionState {
    /// The state of a process started for session `session_id` with `opts`.
    pub fn new(session_id: &str, opts: &LaunchOptions) -> SessionState {
        SessionState {
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
            output_schema: opts.json_schema.is_some(),
        }
    }

    pub fn config_state(&self) -> ProviderConfigState {
        let mut state = catalog::config_state(
            &self.config.models,
            &self.config.model,
            &self.config.mode,
            self.config.thinking.as_deref(),
        );
        state.controls = crate::options::controls();
        state.provider_options = self.config.options.provider_options();
        state
    }
}

/// The uuid of the last main-chain entry of a run, awaited in its transcript (`None`: the run
/// wrote no such entry; its transcript existing is enough). See [`crate::saved`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwaitedEntry(pub Option<String>);

/// The persistence handle of a native session.
pub fn persistence(session_id: &str, cwd: &str) -> ProviderPersistence {
    persistence_at(session_id, cwd, None)
}

/// The handle of a native session rewound to `resume_at` (see `session/rewind.rs`).
pub fn persistence_at(session_id: &str, cwd: &str, resume_at: Option<&str>) -> ProviderPersistence {
    let mut data = json!({"sessionId": session_id, "cwd": cwd});
    if let Some(at) = resume_at {
        data["resumeAt"] = json!(at);
    }
    ProviderPersistence { version: 1, data }
}
