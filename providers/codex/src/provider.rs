//! [`CodexProvider`]: availability, catalog, session list and open/resume.

use crate::auth::AuthCache;
use crate::catalog::{self, SessionConfig};
use crate::commands;
use crate::history;
use crate::launch::{self, call_error};
use crate::normalize::Normalizer;
use crate::options::{self, Controls};
use crate::queries::{fetch_models, load_turns, mcp_servers, read_defaults};
use crate::questions;
use crate::sandbox_cache::{launch_key, Sandbox, SandboxCache};
use crate::session::{Applied, CodexSession, PendingProbe, SessionRelaunch};
use crate::spare::CodexSpares;
use crate::state;
use crate::threads::{self, ThreadAnswer};
use crate::tool_denial;
use crate::wire::notify::method;
use crate::wire::params::{ThreadListParams, ThreadStartParams};
use crate::wire::thread::{Page, Thread, ThreadOpened};
use agent_bridge_core::lifecycle::{Relaunch, SharedProcesses};
use agent_bridge_core::registry::ProviderManifest;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{
    AgentEvent, CatalogQuery, OpenRequest, OpenedSession, Provider, ProviderContext, SessionSink,
    SessionsQuery,
};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    Capability, HistoryMode, ProviderAvailability, ProviderCatalog, ProviderCatalogOptions,
    ProviderError, ProviderNotice, ProviderPersistence, ProviderSessionSummary, Severity,
};
use async_trait::async_trait;
use serde_json::json;

/// The plugin.json option that gives every session an app-server of its own (`true`) or lets
/// sessions with the same launch share one (`false`).
pub const PROCESS_PER_SESSION: &str = "processPerSession";
/// Without the option: sessions share app-servers (see docs/providers/codex.md for why).
pub const DEFAULT_PROCESS_PER_SESSION: bool = false;

/// The Codex provider (`codex app-server`).
#[derive(Debug)]
pub struct CodexProvider {
    sandbox: SandboxCache,
    auth: AuthCache,
    /// The shared app-servers, unless every session has its own.
    processes: Option<SharedProcesses>,
    /// With an app-server per session: the one started ahead ([`crate::spare`]).
    spares: Option<CodexSpares>,
}

impl Default for CodexProvider {
    fn default() -> Self {
        Self::with_shared_processes(!DEFAULT_PROCESS_PER_SESSION)
    }
}

impl CodexProvider {
    pub fn new() -> Self {
        Self::default()
    }

    /// A provider whose sessions share app-servers (`shared`) or each have one.
    pub fn with_shared_processes(shared: bool) -> Self {
        CodexProvider {
            sandbox: SandboxCache::default(),
            auth: AuthCache::default(),
            processes: shared.then(launch::shared_processes),
            spares: (!shared).then(|| CodexSpares::new("codex-bridge")),
        }
    }

    /// The provider of one plugin.json entry: its `options` may hold `"processPerSession"`
    /// (a boolean); anything else is logged and ignored.
    pub fn from_entry(entry: &ProviderManifest) -> Self {
        let mut per_session = DEFAULT_PROCESS_PER_SESSION;
        for (key, value) in &entry.options {
            match (key.as_str(), value.as_bool()) {
                (PROCESS_PER_SESSION, Some(v)) => per_session = v,
                (PROCESS_PER_SESSION, None) => tracing::warn!(
                    provider = %entry.id,
                    "option `{PROCESS_PER_SESSION}` must be true or false; {value} ignored"
                ),
                _ => tracing::warn!(provider = %entry.id, "unknown option `{key}` ignored"),
            }
        }
        let mut provider = Self::with_shared_processes(!per_session);
        provider.processes = provider.processes.map(|p| p.named(&entry.id));
        provider.spares = provider.spares.map(|_| CodexSpares::new(&entry.id));
        provider
    }

    async fn sandbox_problem(&self, launch: &LaunchOverride) -> Option<String> {
        self.sandbox.problem(launch).await
    }
}

#[async_trait]
impl Provider for CodexProvider {
    fn cli(&self) -> Option<agent_bridge_core::CliSpec> {
        Some(agent_bridge_core::CliSpec::new(
            crate::launch::DEFAULT_PROGRAM,
            &["--version"],
        ))
    }

    fn capabilities(&self) -> Vec<Capability> {
        vec![
            Capability::PromptMessage,
            Capability::PromptCommand,
            Capability::PromptImage,
            Capability::PromptSteer,
            // tests/e2e_output_schema.rs: the schema reaches the model, the answer is the JSON
            // object, a schema the API refuses fails the turn with its words.
            Capability::PromptOutputSchema,
            Capability::SessionConfigure,
            Capability::SessionList,
            Capability::SessionPersistence,
            Capability::SessionSubsession,
            Capability::Permission,
            Capability::SessionCanStopRuntime,
            Capability::SessionArchive,
            Capability::SessionUnarchive,
            Capability::SessionRevertConversation,
        ]
    }

    async fn availability(
        &self,
        ctx: &ProviderContext,
        _options: &ProviderCatalogOptions,
    ) -> ProviderAvailability {
        crate::availability::check(&self.auth, &self.sandbox, &ctx.launch).await
    }

    async fn catalog_cache_key(
        &self,
        ctx: &ProviderContext,
        options: &ProviderCatalogOptions,
    ) -> Option<String> {
        Some(format!(
            "{}|{}",
            launch_key(&ctx.launch),
            options.cwd.as_deref().unwrap_or("")
        ))
    }

    async fn catalog(
        &self,
        ctx: &ProviderContext,
        query: CatalogQuery,
    ) -> Result<ProviderCatalog, ProviderError> {
        let cwd = query.cwd.clone();
        let spec = launch::app_server_spec(&ctx.launch, cwd.as_deref(), &Default::default());
        let server = launch::start_for_query(&spec).await?;
        let listed = fetch_models(&server.rpc).await;
        let defaults = read_defaults(&server.rpc, cwd.as_deref()).await;
        launch::stop(&server).await;
        let listed = listed?;
        let problem = self.sandbox_problem(&ctx.launch).await;
        let models = catalog::models(&listed, defaults.model.as_deref());
        let default_model = catalog::default_model(&models, defaults.model.as_deref());
        let model = default_model
            .as_ref()
            .and_then(|id| models.iter().find(|m| &m.id == id));
        let thinking = model.and_then(|m| m.thinking_options.clone());
        let default_thinking = defaults
            .effort
            .or_else(|| model.and_then(|m| m.default_thinking_option_id.clone()));
        let default_mode = defaults
            .mode
            .unwrap_or(if problem.is_some() { "ask" } else { "auto" });
        Ok(ProviderCatalog {
            models,
            modes: catalog::modes(problem.as_deref()),
            thinking_options: thinking,
            default_model,
            default_mode: Some(default_mode.to_string()),
            default_thinking_option: default_thinking,
        })
    }

    async fn list_sessions(
        &self,
        ctx: &ProviderContext,
        query: SessionsQuery,
    ) -> Result<Vec<ProviderSessionSummary>, ProviderError> {
        let spec = launch::app_server_spec(&ctx.launch, query.cwd.as_deref(), &Default::default());
        let server = launch::start_for_query(&spec).await?;
        let params = ThreadListParams {
            limit: Some(query.limit.unwrap_or(50).min(200)),
            cwd: query.cwd.clone(),
            search_term: query.query.clone().filter(|q| !q.is_empty()),
            model_providers: Vec::new(),
            source_kinds: ["cli", "vscode", "exec", "appServer"]
                .map(String::from)
                .to_vec(),
            sort_key: "updated_at".into(),
            ..Default::default()
        };
        let answer = server.rpc.call(method::THREAD_LIST, json!(params)).await;
        let stderr = server.process.stderr_tail();
        launch::stop(&server).await;
        let page: Page<Thread> =
            serde_json::from_value(answer.map_err(|e| call_error(e, &stderr))?)
                .map_err(|e| ProviderError::new(format!("unreadable thread/list answer: {e}")))?;
        Ok(page.data.iter().map(history::summary).collect())
    }

    async fn set_archived(
        &self,
        ctx: &ProviderContext,
        persistence: ProviderPersistence,
        archived: bool,
    ) -> Result<(), ProviderError> {
        crate::archive::set_archived(ctx, &persistence, archived).await
    }

    async fn open(
        &self,
        ctx: &ProviderContext,
        request: OpenRequest,
        sink: SessionSink,
    ) -> Result<OpenedSession, ProviderError> {
        let cfg = &request.config;
        let requested_mode = match cfg.mode.as_deref() {
            Some(id) => Some(catalog::mode(id).ok_or_else(|| {
                ProviderError::new(format!("unknown Codex mode `{id}`"))
                    .with_code(ErrorCode::InvalidMode)
            })?),
            None => None,
        };
        // The controls asked for are checked before anything starts.
        let options = cfg.provider_options.clone().unwrap_or_default();
        let asked = Controls::default().apply(&options, &Controls::default())?;
        let web_search = options
            .get(options::WEB_SEARCH)
            .filter(|v| !v.is_null())
            .map(|_| asked.web_search.clone());
        let spec = launch::app_server_spec(&ctx.launch, Some(&cfg.cwd), &cfg.env);
        // The reader feeds the sink from the start: nothing the CLI says waits in a queue.
        let shared = state::shared(Normalizer::unbound(&request.session_id, &cfg.cwd));
        state::lock(&shared).commands =
            commands::Commands::new(&cfg.cwd, commands::prompts_dir_of(&spec));
        let server = crate::spare::session_runtime(
            self.spares.as_ref(),
            &spec,
            self.processes.as_ref(),
            shared.clone(),
            sink.clone(),
            &request.scope,
        )
        .await?;
        let stderr = || server.stderr();
        let denied = cfg.denied_tools.as_deref().unwrap_or_default();
        // `config/read` must precede the thread only when a denied name may be a configured
        // MCP server's; otherwise it and `model/list` travel with `thread/start`.
        let early = if tool_denial::needs_configured_servers(denied, &cfg.mcp_servers) {
            Some(read_defaults(server.rpc(), Some(&cfg.cwd)).await)
        } else {
            None
        };
        let configured = early.as_ref().map(|d| d.mcp_servers.clone());
        let tool_denial::ToolDenial {
            config: off,
            unenforced,
        } = tool_denial::plan(denied, &cfg.mcp_servers, &configured.unwrap_or_default());
        let overrides = ThreadStartParams {
            cwd: Some(cfg.cwd.clone()),
            model: cfg.model.clone(),
            approval_policy: requested_mode.map(|m| m.approval.to_string()),
            sandbox: requested_mode.map(|m| m.sandbox.to_string()),
            developer_instructions: cfg.system_prompt.clone(),
            // The agent's questions are on unless denied (the denial is merged last).
            config: tool_denial::merge(
                tool_denial::merge(
                    tool_denial::merge(mcp_servers(&cfg.mcp_servers), questions::enable_config()),
                    off,
                ),
                web_search
                    .clone()
                    .map(|w| serde_json::Map::from_iter([("web_search".to_string(), w.into())]))
                    .unwrap_or_default(),
            ),
        };
        let resume = request
            .persistence
            .as_ref()
            .map(history::thread_of)
            .transpose()?;
        let relaunch = SessionRelaunch {
            runtime: Relaunch::new(spec.clone(), request.scope.clone()),
            thread: overrides.clone(),
            processes: self.processes.clone(),
        };
        if let Some(resume) = &resume {
            // On a shared app-server, what Codex says about the resumed thread is ours.
            server.claim(resume);
        }
        let thread = threads::resume_or_start(server.runtime(), resume.as_deref(), overrides);
        // Skills (and prompts) are listed next to `thread/start`; the open never waits for them.
        commands::refresh(&shared, server.rpc(), &sink);
        let defaults = async {
            match early {
                Some(d) => d,
                None => read_defaults(server.rpc(), Some(&cfg.cwd)).await,
            }
        };
        let (thread, listed, defaults) = tokio::join!(thread, fetch_models(server.rpc()), defaults);
        let ThreadAnswer {
            answer: opened,
            resumed,
            resume_refused,
        } = thread?;
        // The sandbox probe (once per installation, see `sandbox_cache`) does not hold up the
        // open: it starts once the thread exists (not competing with the app-server's start
        // for the CPU), and until it answers the session assumes the sandbox works.
        let sandbox = self.sandbox.lookup(&ctx.launch);
        let listed = listed.unwrap_or_else(|e| {
            tracing::warn!("model/list failed: {e}");
            Vec::new()
        });
        let opened: ThreadOpened = serde_json::from_value(opened)
            .map_err(|e| ProviderError::new(format!("unreadable thread answer: {e}")))?;
        let thread = &opened.thread;
        server.claim(&thread.id);
        // The next open of this launch is warm (an app-server started ahead).
        if let Some(spares) = &self.spares {
            spares.replenish(&spec);
        }
        let mut sub_agents = Vec::new();
        let mut children = Vec::new();
        let replay = if resumed && request.history == HistoryMode::Replay {
            let turns = match load_turns(server.rpc(), &thread.id).await {
                Ok(t) => t,
                Err(e) => {
                    tracing::warn!("thread/turns/list failed ({e}); reading the whole thread");
                    let v = server
                        .rpc()
                        .call(
                            method::THREAD_READ,
                            json!({ "threadId": thread.id, "includeTurns": true }),
                        )
                        .await
                        .map_err(|e| call_error(e, &stderr()))?;
                    serde_json::from_value::<Thread>(v["thread"].clone())
                        .map(|t| t.turns)
                        .unwrap_or_default()
                }
            };
            // The sub-agents still running come back as child sessions, linked from the
            // parent's tool calls.
            sub_agents = crate::sub_agents::running(&turns, &thread.id);
            let sid = request.session_id.clone();
            let linked: Vec<String> = sub_agents.iter().map(|a| a.thread_id.clone()).collect();
            let lookup = move |t: &str| {
                linked
                    .iter()
                    .any(|l| l == t)
                    .then(|| crate::sub_agents::child_id(&sid, t))
            };
            children = crate::sub_agents::restore(
                server.rpc(),
                &request.session_id,
                thread.cwd.as_deref().unwrap_or(&request.config.cwd),
                &sub_agents,
            )
            .await;
            history::replay(&turns, &lookup)
        } else {
            Vec::new()
        };

        let effective_model = opened.model.clone().or_else(|| thread.model.clone());
        let models = catalog::models(
            &listed,
            effective_model.as_deref().or(defaults.model.as_deref()),
        );
        let (problem, pending) = match sandbox {
            Sandbox::Known(problem) => (problem, None),
            Sandbox::Pending(cell) => match cell.get().cloned() {
                Some(problem) => (problem, None),
                None => (
                    None,
                    Some(PendingProbe {
                        cell,
                        default_mode_configured: defaults.mode.is_some(),
                    }),
                ),
            },
        };
        let controls = defaults
            .controls
            .apply(&options, &defaults.controls)
            .unwrap_or(asked);
        let config = SessionConfig {
            model: effective_model,
            effort: cfg
                .thinking_option
                .clone()
                .or(opened.reasoning_effort.clone()),
            mode: catalog::mode_of(&opened.approval_policy, &opened.sandbox)
                .map(str::to_string)
                .or_else(|| requested_mode.map(|m| m.id.to_string())),
            default_model: catalog::default_model(&models, defaults.model.as_deref()),
            default_mode: Some(
                defaults
                    .mode
                    .unwrap_or(if problem.is_some() { "ask" } else { "auto" })
                    .to_string(),
            ),
            models,
            modes: catalog::modes(problem.as_deref()),
            controls,
            default_controls: defaults.controls.clone(),
        };
        let applied = Applied::loaded(
            &opened,
            (!resumed).then_some(config.default_controls.reasoning_summary.as_str()),
            web_search
                .as_deref()
                .unwrap_or(&defaults.controls.web_search),
        );
        let cwd = opened
            .cwd
            .clone()
            .or(thread.cwd.clone())
            .unwrap_or(cfg.cwd.clone());
        let persistence = history::persistence(&thread.id, &cwd);
        let title = thread
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .or_else(|| {
                Some(agent_bridge_protocol::prompt_preview(&thread.preview))
                    .filter(|p| !p.is_empty())
            });
        if let (Some(refused), Some(asked)) = (resume_refused, resume.as_deref()) {
            let text = format!(
                "Codex could not resume thread {asked} ({refused}); this session continues in a new thread."
            );
            let _ = sink
                .send(AgentEvent::Notice(ProviderNotice {
                    id: format!("codex-resume-failed:{}", thread.id),
                    severity: Severity::Warning,
                    title: "Could not resume the Codex thread".into(),
                    description: Some(text),
                    dismissed: None,
                }))
                .await;
        }
        if let Some(unenforced) = tool_denial::notice(&unenforced) {
            let _ = sink.send(AgentEvent::Notice(unenforced)).await;
        }
        {
            let mut s = state::lock(&shared);
            s.normalizer.bind_thread(&thread.id, &cwd);
            for agent in &sub_agents {
                let child = crate::sub_agents::child_id(&request.session_id, &agent.thread_id);
                s.normalizer.adopt_child(&agent.thread_id, &child);
            }
        }
        let state = config.state();
        let commands = state::lock(&shared).commands.open_list();
        let session = CodexSession::start(server, shared, config, applied, pending, relaunch, sink);
        let mut out = OpenedSession::new(Box::new(session), state);
        out.persistence = Some(persistence);
        out.title = title;
        out.replay = replay;
        out.children = children;
        out.commands = commands;
        Ok(out)
    }
}

#[cfg(test)]
#[path = "provider_tests.rs"]
mod tests;
