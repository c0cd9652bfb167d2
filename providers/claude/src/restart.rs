//! Starting the CLI again for the same session: with new flags for a change the CLI cannot
//! apply live (thinking), and after the CLI died (the core's restart). Either way the new
//! process resumes the native session (`--resume`) when its transcript exists; a session
//! whose CLI died before it saved anything starts a new conversation, and says so.

use crate::session::{
    initialize, poisoned, spawn_runtime, startup_error, ClaudeSession, ConfigSnapshot,
};
use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::{ProviderError, ProviderNotice, Severity};

impl ClaudeSession {
    /// Restarts the CLI on the same native session with `next` as its flags (model, mode,
    /// effort); the old process is stopped only once the new one answered `initialize`.
    pub(crate) async fn respawn_with(
        &mut self,
        next: &ConfigSnapshot,
    ) -> Result<(), ProviderError> {
        let native = {
            let s = self.runtime.shared.lock().map_err(|_| poisoned())?;
            if s.turn.is_some() {
                return Err(ProviderError::new(
                    "this change restarts Claude Code (with `--resume`), which waits for the running turn to end",
                )
                .with_code("turn_active"));
            }
            s.native_session_id.clone()
        };
        self.replace_runtime(next, native, "restart for a configuration change")
            .await
    }

    /// The CLI died: starts it again with the session's committed config, reporting through
    /// `sink` from now on. Resumes the native session if its transcript exists; otherwise
    /// (it died during the session's first turn, before a result) starts a new conversation
    /// and sends a warning notice.
    pub(crate) async fn restart_after_death(
        &mut self,
        sink: SessionSink,
    ) -> Result<(), ProviderError> {
        let (config, native, saved) = {
            let s = self.runtime.shared.lock().map_err(|_| poisoned())?;
            (
                s.config.clone(),
                s.native_session_id.clone(),
                s.transcript_saved,
            )
        };
        self.respawn.sink = sink.clone();
        let resume = native.filter(|_| saved);
        let fresh = resume.is_none();
        self.replace_runtime(&config, resume, "restart after the CLI stopped")
            .await?;
        if fresh {
            let notice = ProviderNotice {
                id: format!("claude-fresh-conversation:{}", uuid::Uuid::new_v4().simple()),
                severity: Severity::Warning,
                title: "A new conversation was started".into(),
                description: Some(
                    "Claude Code stopped before it had saved this session's first turn, so there was nothing to resume; the next prompt starts a new conversation."
                        .into(),
                ),
                dismissed: None,
            };
            sink.send(AgentEvent::Notice(notice)).await;
        }
        Ok(())
    }

    /// Starts a CLI with `config`'s flags resuming `resume` (or a new conversation), waits for
    /// its `initialize` answer and makes it the session's runtime; the old one is stopped
    /// after (a no-op when it is already dead).
    /// A conversation rewound (and not run since) resumes at its rewind point.
    pub(crate) async fn replace_runtime(
        &mut self,
        config: &ConfigSnapshot,
        resume: Option<String>,
        what: &str,
    ) -> Result<(), ProviderError> {
        let models = config.models.clone();
        let rewound_at = self
            .runtime
            .shared
            .lock()
            .map_err(|_| poisoned())?
            .rewound_at
            .clone();
        let info = &self.respawn;
        let mut opts = info.opts.clone();
        opts.model = (config.model != "default").then(|| config.model.clone());
        opts.mode = config.mode.clone();
        opts.effort = config.thinking.clone();
        opts.options = config.options.clone();
        opts.resume_at = resume.as_ref().and(rewound_at);
        opts.resume = resume;
        let mut fresh = spawn_runtime(
            &info.session_id,
            &info.launch,
            &info.env,
            &opts,
            Some(info.sink.clone()),
        )
        .await?;
        fresh.process.register(&info.scope);
        let answer = match initialize(&fresh.channel).await {
            Ok(answer) => answer,
            Err(e) => return Err(startup_error(&mut fresh, what, e).await),
        };
        fresh.release_mcp_config().await;
        let before = self
            .runtime
            .shared
            .lock()
            .map(|s| s.commands.clone())
            .unwrap_or_default();
        let changed = match fresh.shared.lock() {
            Ok(mut s) => {
                s.config.models = models;
                s.commands = before;
                crate::commands::replace(&mut s, crate::commands::of_initialize(&answer))
            }
            Err(_) => None,
        };
        if let Some(event) = changed {
            fresh.events.send(event).await;
        }
        let mut old = std::mem::replace(&mut self.runtime, fresh);
        old.shutdown().await;
        self.respawn.opts = opts;
        Ok(())
    }
}
