//! Starting the CLI again for the same session: with new flags for a change the CLI cannot
//! apply live (thinking), and after the CLI died (the core's restart). Either way the new
//! process resumes the native session (`--resume`) when its transcript exists; a session
//! whose CLI died before it saved the conversation, or whose transcript the CLI cannot find,
//! starts a new conversation (`Restarted::Fresh`).

use crate::session::{initialize, spawn_runtime, startup_error, ClaudeSession, ConfigSnapshot};
use crate::state::persistence;
use crate::{saved, transcript};
use agent_bridge_core::lifecycle::lock;
use agent_bridge_core::{AgentEvent, Restarted, SessionSink};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;

impl ClaudeSession {
    /// Restarts the CLI on the same native session with `next` as its flags (model, mode,
    /// effort); the old process is stopped only once the new one answered `initialize`.
    pub(crate) async fn respawn_with(
        &mut self,
        next: &ConfigSnapshot,
    ) -> Result<(), ProviderError> {
        let native = {
            let s = lock(&self.runtime.shared);
            if s.turn.is_some() {
                return Err(ProviderError::new(
                    "this change restarts Claude Code (with `--resume`), which waits for the running turn to end",
                )
                .with_code(ErrorCode::TurnActive));
            }
            s.native_session_id.clone()
        };
        self.replace_runtime(next, native, "restart for a configuration change")
            .await
    }

    /// The CLI died: starts it again with the session's committed config, reporting through
    /// `sink` from now on. Resumes the native session when its transcript is on disk; when
    /// there is none (the CLI died before it wrote the conversation, see [`crate::saved`]) or
    /// the CLI cannot find it ("No conversation found"), starts a new conversation instead
    /// and answers [`Restarted::Fresh`]: the core tells the user and carries the conversation
    /// it holds over to the next prompt.
    pub(crate) async fn restart_after_death(
        &mut self,
        sink: SessionSink,
    ) -> Result<Restarted, ProviderError> {
        let (config, native, cwd, held) = {
            let s = lock(&self.runtime.shared);
            (
                s.config.clone(),
                s.native_session_id.clone(),
                s.cwd.clone(),
                s.persistence_held,
            )
        };
        self.relaunch.sink = sink.clone();
        let what = "restart after the CLI stopped";
        let Some(native) = native else {
            self.replace_runtime(&config, None, what).await?;
            return Ok(Restarted::Fresh {
                reason: "Claude Code stopped before it had started the conversation".into(),
            });
        };
        let projects =
            transcript::projects_dir(&self.relaunch.launch.effective_env(&self.relaunch.env));
        if !saved::resumable(projects.as_deref(), &cwd, &native).await {
            tracing::warn!(session = %self.relaunch.session_id, native = %native, "Claude Code stopped before it wrote the conversation to disk; starting a new one");
            self.replace_runtime(&config, None, what).await?;
            return Ok(Restarted::Fresh {
                reason: format!(
                    "Claude Code stopped before it had written conversation {native} to disk"
                ),
            });
        }
        match self
            .replace_runtime(&config, Some(native.clone()), what)
            .await
        {
            Ok(()) => {
                // The dead CLI wrote the conversation before the bridge saw it saved: the host
                // has no handle yet, and this one resumes.
                if held {
                    sink.send(AgentEvent::Persistence(persistence(&native, &cwd)))
                        .await;
                }
                Ok(Restarted::Resumed)
            }
            Err(e) => match conversation_missing(&e) {
                Some(words) => {
                    tracing::warn!(session = %self.relaunch.session_id, "{words}; starting a new conversation");
                    self.replace_runtime(&config, None, what).await?;
                    Ok(Restarted::Fresh { reason: words })
                }
                None => Err(e),
            },
        }
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
        let rewound_at = lock(&self.runtime.shared).rewound_at.clone();
        let info = &self.relaunch;
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
        fresh.agent.process.register(&info.scope);
        let answer = match initialize(&fresh.channel).await {
            Ok(answer) => answer,
            Err(e) => return Err(startup_error(&mut fresh, what, e).await),
        };
        fresh.release_mcp_config().await;
        let before = lock(&self.runtime.shared).commands.clone();
        let changed = {
            let mut s = lock(&fresh.shared);
            s.config.models = models;
            s.commands = before;
            crate::commands::replace(&mut s, crate::commands::of_initialize(&answer))
        };
        if let Some(event) = changed {
            fresh.events.send(event).await;
        }
        let mut old = std::mem::replace(&mut self.runtime, fresh);
        old.shutdown().await;
        self.relaunch.opts = opts;
        Ok(())
    }
}

/// The CLI's words when it could not find the conversation it was asked to resume (its stderr
/// says `No conversation found with session ID: <id>` and it exits).
pub fn conversation_missing(error: &ProviderError) -> Option<String> {
    let text = error.diagnostic.as_deref().unwrap_or_default();
    text.lines()
        .chain(error.message.lines())
        .find(|l| l.contains("No conversation found"))
        .map(|l| l.trim().to_string())
}
