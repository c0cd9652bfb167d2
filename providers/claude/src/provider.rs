//! `ClaudeProvider`: availability, catalog, session list, and opening sessions.

use crate::auth::AuthCache;
use crate::catalog;
use crate::control::ControlError;
use crate::launch::LaunchOptions;
use crate::session::conversation_missing;
use crate::session::{
    initialize, spawn_runtime, startup_error, ClaudeSession, Runtime, SessionRelaunch,
};
use crate::state::persistence_at;
use crate::warm::{
    peek_init, prestart, process_options, ClaudeProcesses, Spare, SpareKey, SpareStart,
};
use crate::{saved, transcript};
use agent_bridge_core::lifecycle::ProcessOptions;
use agent_bridge_core::registry::ProviderManifest;
use agent_bridge_core::spares::Spares;
use agent_bridge_core::{
    AgentEvent, CatalogQuery, OpenRequest, OpenedSession, ProcessScope, Provider, ProviderContext,
    SessionSink, SessionsQuery,
};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    Capability, HistoryMode, ProviderAvailability, ProviderCatalog, ProviderCatalogOptions,
    ProviderError, ProviderNotice, ProviderSessionConfig, ProviderSessionSummary, Severity,
};
use async_trait::async_trait;
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub struct ClaudeProvider {
    /// How its sessions get their process: their own, a prestarted spare for warm opens.
    processes: ClaudeProcesses,
    /// Remembered `claude auth status` answers.
    auth: AuthCache,
}

impl Default for ClaudeProvider {
    fn default() -> Self {
        Self::new()
    }
}

impl ClaudeProvider {
    /// Spares on unless `AGENT_BRIDGE_CLAUDE_SPARE=0`.
    pub fn new() -> Self {
        Self::with_processes("claude-bridge", &process_options(None), &Spares::from_env())
    }

    /// The provider of one plugin.json entry, with the bridge's `spares`. Its `options` may
    /// hold `"warmSpares"`: the most spare processes kept (0 = none), under
    /// `AGENT_BRIDGE_CLAUDE_SPARE=0`, which wins.
    pub fn from_entry(entry: &ProviderManifest, spares: &Spares) -> Self {
        for key in entry.options.keys() {
            if !ProcessOptions::is_option(key) {
                tracing::warn!(provider = %entry.id, "unknown or invalid option `{key}` ignored");
            }
        }
        Self::with_processes(&entry.id, &process_options(Some(entry)), spares)
    }

    /// A provider `id` whose sessions get their processes as `options` say.
    pub fn with_processes(id: &str, options: &ProcessOptions, spares: &Spares) -> Self {
        ClaudeProvider {
            processes: ClaudeProcesses::new(id, options, spares, crate::runtime::CLOSE_LIMIT),
            auth: AuthCache::default(),
        }
    }

    /// How its sessions get their process (the spare processes kept ready).
    pub fn processes(&self) -> &ClaudeProcesses {
        &self.processes
    }

    /// A session's process: the ready spare for exactly this spawn, or a fresh one. Returns it
    /// with the CLI's `initialize` answer and its `get_settings` answer (what it applied).
    async fn session_runtime(
        &self,
        session_id: &str,
        start: &SpareStart,
        sink: &SessionSink,
        scope: &ProcessScope,
    ) -> Result<(Runtime, Value, Option<Value>), ProviderError> {
        if start.opts.resume.is_none() {
            if let Some(spare) = self.processes.take_spare(&start.key()).await {
                let (runtime, answer) = spare.attach(session_id, sink.clone());
                // The session's from here: a close waits for it.
                runtime.agent.process.register(scope);
                match settings(&runtime).await {
                    Err(ControlError::Gone) => {
                        tracing::debug!(session = %session_id, "the claude spare is gone; spawning")
                    }
                    applied => {
                        tracing::debug!(session = %session_id, "session served by a warm claude process");
                        return Ok((runtime, answer, applied.ok()));
                    }
                }
            }
        }
        let spawned = std::time::Instant::now();
        let mut runtime = spawn_runtime(
            session_id,
            &start.launch,
            &start.env,
            &start.opts,
            Some(sink.clone()),
        )
        .await?;
        // Registered before the handshake: a close while it runs waits for the process.
        runtime.agent.process.register(scope);
        // Both requests at once (the CLI answers them in order): no extra round trip.
        let (answer, applied) = tokio::join!(initialize(&runtime.channel), settings(&runtime));
        match answer {
            Ok(answer) => {
                runtime.release_mcp_config().await;
                let ms = spawned.elapsed().as_secs_f64() * 1e3;
                tracing::debug!(session = %session_id, "claude started and answered in {ms:.1} ms");
                Ok((runtime, answer, applied.ok()))
            }
            Err(e) => Err(startup_error(&mut runtime, "initialize", e).await),
        }
    }
}

/// What the CLI actually applied (model resolved, effort).
async fn settings(runtime: &Runtime) -> Result<Value, ControlError> {
    runtime
        .channel
        .request(json!({"subtype": "get_settings"}))
        .await
}

/// A resumed native session: its id, its folder and, for a rewound one, where it resumes.
struct Persisted {
    id: String,
    cwd: Option<String>,
    resume_at: Option<String>,
}

fn persisted_session(request: &OpenRequest) -> Result<Option<Persisted>, ProviderError> {
    let Some(p) = &request.persistence else {
        return Ok(None);
    };
    let text = |key: &str| {
        p.data
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    match text("sessionId") {
        Some(id) => Ok(Some(Persisted {
            id,
            cwd: text("cwd"),
            resume_at: text("resumeAt"),
        })),
        None => Err(ProviderError::new("persistence has no Claude sessionId")
            .with_code(ErrorCode::InvalidPersistence)),
    }
}

#[async_trait]
impl Provider for ClaudeProvider {
    fn cli(&self) -> Option<agent_bridge_core::CliSpec> {
        Some(agent_bridge_core::CliSpec::new(
            crate::DEFAULT_PROGRAM,
            &["--version"],
        ))
    }

    fn capabilities(&self) -> Vec<Capability> {
        vec![
            Capability::PromptMessage,
            Capability::PromptCommand,
            Capability::PromptImage,
            Capability::PromptSteer,
            // tests/e2e_output_schema.rs: the schema reaches the model (the CLI's
            // StructuredOutput tool), the answer is the JSON object, a turn whose output cannot
            // satisfy the schema fails with the CLI's words.
            Capability::PromptOutputSchema,
            Capability::SessionConfigure,
            Capability::SessionList,
            Capability::SessionPersistence,
            Capability::SessionRevertConversation,
            Capability::SessionRevertFiles,
            Capability::SessionRevertBoth,
            Capability::SessionSubsession,
            Capability::Permission,
            Capability::PermissionToolPolicy,
            Capability::SessionCanStopRuntime,
        ]
    }

    async fn availability(
        &self,
        ctx: &ProviderContext,
        _options: &ProviderCatalogOptions,
    ) -> ProviderAvailability {
        crate::availability::check(&self.auth, &ctx.launch).await
    }

    async fn catalog_cache_key(
        &self,
        ctx: &ProviderContext,
        options: &ProviderCatalogOptions,
    ) -> Option<String> {
        let env = ctx.launch.effective_env(&BTreeMap::new());
        let relevant: BTreeMap<&String, &String> = env
            .iter()
            .filter(|(k, _)| {
                k.starts_with("ANTHROPIC_") && !k.contains("KEY") && !k.contains("TOKEN")
                    || k.starts_with("CLAUDE_")
                    || *k == "HOME"
            })
            .collect();
        let key = json!({
            "program": ctx.launch.program(crate::DEFAULT_PROGRAM),
            "args": ctx.launch.args,
            "env": relevant,
            "providerOptions": options.provider_options,
        });
        Some(key.to_string())
    }

    async fn catalog(
        &self,
        ctx: &ProviderContext,
        query: CatalogQuery,
    ) -> Result<ProviderCatalog, ProviderError> {
        let cwd = match query.cwd {
            Some(c) if tokio::fs::metadata(&c).await.is_ok_and(|m| m.is_dir()) => Some(c),
            _ => None,
        };
        let Some(cwd) = cwd else {
            let opts = LaunchOptions {
                cwd: std::env::temp_dir().display().to_string(),
                mode: catalog::DEFAULT_MODE.into(),
                ..LaunchOptions::default()
            };
            let mut runtime =
                spawn_runtime("catalog", &ctx.launch, &BTreeMap::new(), &opts, None).await?;
            let answer = match initialize(&runtime.channel).await {
                Ok(a) => a,
                Err(e) => return Err(startup_error(&mut runtime, "initialize", e).await),
            };
            runtime.shutdown().await;
            return Ok(catalog::catalog(&catalog::models_from_initialize(&answer)));
        };
        // In a real cwd the probe is a session process with the default config, kept as the
        // spare for the first session there.
        let config = ProviderSessionConfig {
            cwd,
            ..ProviderSessionConfig::default()
        };
        let env = ctx.launch.effective_env(&BTreeMap::new());
        let start = SpareStart {
            launch: ctx.launch.clone(),
            env: BTreeMap::new(),
            opts: LaunchOptions::from_config(&config, &env),
        };
        let key: SpareKey = start.key();
        let Some(pool) = self.processes.prestarted() else {
            return Err(ProviderError::new(
                "a Claude session always has its own process",
            ));
        };
        pool.wait_started(&key).await;
        if let Some(answer) = peek_init(&self.processes, &key) {
            return Ok(catalog::catalog(&catalog::models_from_initialize(&answer)));
        }
        let spare = Spare::start(&start).await?;
        let models = catalog::models_from_initialize(&spare.init);
        if let Some(mut unused) = pool.offer(key, spare) {
            unused.runtime.shutdown().await;
        }
        Ok(catalog::catalog(&models))
    }

    async fn list_sessions(
        &self,
        ctx: &ProviderContext,
        query: SessionsQuery,
    ) -> Result<Vec<ProviderSessionSummary>, ProviderError> {
        let env = ctx.launch.effective_env(&BTreeMap::new());
        let limit = query.limit.map(|l| l as usize);
        let cwd = query.cwd.clone();
        let q = query.query.clone();
        tokio::task::spawn_blocking(move || {
            crate::list::list_sessions(&env, cwd.as_deref(), q.as_deref(), limit)
        })
        .await
        .map_err(|e| ProviderError::new(format!("listing Claude sessions failed: {e}")))
    }

    async fn open(
        &self,
        ctx: &ProviderContext,
        request: OpenRequest,
        sink: SessionSink,
    ) -> Result<OpenedSession, ProviderError> {
        let env = ctx.launch.effective_env(&request.config.env);
        let mut opts = LaunchOptions::from_config(&request.config, &env);
        if !catalog::MODES.contains(&opts.mode.as_str()) {
            return Err(
                ProviderError::new(format!("unknown permission mode `{}`", opts.mode))
                    .with_code(ErrorCode::InvalidMode),
            );
        }
        if let Some(options) = &request.config.provider_options {
            opts.options = opts.options.changed(options)?;
        }
        let mut resumed = persisted_session(&request)?;
        let projects = transcript::projects_dir(&env);
        if let Some(p) = &resumed {
            if !saved::resumable(projects.as_deref(), &opts.cwd, &p.id).await {
                let why = format!(
                    "its transcript is not on disk (No conversation found with session ID: {})",
                    p.id
                );
                sink.send(AgentEvent::Notice(not_resumed(&p.id, &why)))
                    .await;
                resumed = None;
            }
        }
        let mut replay = Vec::new();
        let mut children = Vec::new();
        if let Some(Persisted { id, resume_at, .. }) = &resumed {
            opts.resume = Some(id.clone());
            opts.resume_at = resume_at.clone();
            if request.history == HistoryMode::Replay {
                let (sid, cwd, native) = (request.session_id.clone(), opts.cwd.clone(), id.clone());
                let (leaf, projects) = (resume_at.clone(), projects.clone());
                // Finding the transcript walks folders: off the runtime, like reading it.
                let history = tokio::task::spawn_blocking(move || {
                    let path = transcript::find_transcript(&projects?, &cwd, &native)?;
                    Some(transcript::read_history(&path, &sid, &cwd, leaf.as_deref()))
                })
                .await
                .map_err(|e| ProviderError::new(format!("reading the transcript failed: {e}")))?;
                if let Some((items, kids)) = history {
                    replay = items;
                    children = kids;
                }
            }
        }
        let mut start = SpareStart {
            launch: ctx.launch.clone(),
            env: request.config.env.clone(),
            opts: opts.clone(),
        };
        let started = match self
            .session_runtime(&request.session_id, &start, &sink, &request.scope)
            .await
        {
            // The transcript is there but the CLI does not find it (another folder, say): the
            // session opens anyway, in a new conversation.
            Err(e) if opts.resume.is_some() => match conversation_missing(&e) {
                Some(words) => {
                    let id = opts.resume.take().unwrap_or_default();
                    sink.send(AgentEvent::Notice(not_resumed(&id, &words)))
                        .await;
                    opts.resume_at = None;
                    resumed = None;
                    replay.clear();
                    children.clear();
                    start.opts = opts.clone();
                    self.session_runtime(&request.session_id, &start, &sink, &request.scope)
                        .await
                }
                None => Err(e),
            },
            other => other,
        };
        let (runtime, answer, applied) = started?;
        // The next session here opens warm: a fresh spare like this one (never resuming).
        let mut next = start;
        next.opts.resume = None;
        prestart(&self.processes, next);
        let models = catalog::models_from_initialize(&answer);
        let commands = crate::commands::of_initialize(&answer);
        let applied_model = applied
            .as_ref()
            .and_then(|a| a.pointer("/applied/model"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let applied_effort = applied
            .as_ref()
            .and_then(|a| a.pointer("/applied/effort"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let (config, commands) = {
            let mut s = runtime
                .shared
                .lock()
                .map_err(|_| ProviderError::new("session state unavailable"))?;
            let requested = opts.model.clone().unwrap_or_else(|| "default".into());
            s.config.model = match &applied_model {
                Some(m) => catalog::catalog_model_id(&models, m, Some(&requested)),
                None => requested,
            };
            s.config.models = models;
            // A spare may have heard of a newer list than its `initialize` answer.
            if s.commands.is_empty() {
                s.commands = commands;
            }
            let commands = s.commands.clone();
            s.config.thinking = applied_effort.or(opts.effort.clone());
            (s.config_state(), commands)
        };
        let mut opened = OpenedSession::new(
            Box::new(ClaudeSession {
                runtime,
                relaunch: SessionRelaunch {
                    session_id: request.session_id.clone(),
                    launch: ctx.launch.clone(),
                    env: request.config.env.clone(),
                    opts,
                    sink,
                    scope: request.scope.clone(),
                },
            }),
            config,
        );
        opened.commands = commands;
        opened.replay = replay;
        opened.children = children;
        if let Some(p) = resumed {
            opened.persistence = Some(persistence_at(
                &p.id,
                p.cwd.as_deref().unwrap_or(&request.config.cwd),
                p.resume_at.as_deref(),
            ));
        }
        Ok(opened)
    }
}

/// The warning that a saved conversation could not be resumed and the session starts anew.
fn not_resumed(native: &str, why: &str) -> ProviderNotice {
    ProviderNotice {
        id: format!("claude-conversation-not-resumed:{native}"),
        severity: Severity::Warning,
        title: "The saved conversation could not be resumed".into(),
        description: Some(format!(
            "Claude Code cannot resume conversation {native} ({why}), so this session starts a new conversation."
        )),
        dismissed: None,
    }
}
