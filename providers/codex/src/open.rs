//! Opening a Codex session: its app-server (its own, or its place on the shared one), the
//! thread started or resumed with the session's config, its models, defaults and commands, and
//! the history replayed on a reopen.

use crate::catalog::{self, SessionConfig};
use crate::commands;
use crate::history;
use crate::launch::{self, call_error};
use crate::normalize::Normalizer;
use crate::options::{self, Controls};
use crate::provider::CodexProvider;
use crate::queries::{fetch_models, load_turns, mcp_servers, read_defaults};
use crate::questions;
use crate::sandbox_cache::Sandbox;
use crate::session::{Applied, CodexSession, PendingProbe, SessionRelaunch};
use crate::state;
use crate::threads::{self, ThreadAnswer};
use crate::tool_denial;
use crate::wire::notify::method;
use crate::wire::params::ThreadStartParams;
use crate::wire::thread::{Thread, ThreadOpened};
use agent_bridge_core::lifecycle::Relaunch;
use agent_bridge_core::{AgentEvent, OpenRequest, OpenedSession, ProviderContext, SessionSink};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{HistoryMode, ProviderError, ProviderNotice, Severity};
use serde_json::json;

/// Opens the session of `request` for `provider` (one attempt; see `Provider::open`).
pub(crate) async fn open(
    provider: &CodexProvider,
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
        &provider.processes,
        &spec,
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
        processes: provider.processes.shared().cloned(),
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
    let sandbox = provider.sandbox.lookup(&ctx.launch);
    let listed = listed.unwrap_or_else(|e| {
        tracing::warn!("model/list failed: {e}");
        Vec::new()
    });
    let opened: ThreadOpened = serde_json::from_value(opened)
        .map_err(|e| ProviderError::new(format!("unreadable thread answer: {e}")))?;
    let thread = &opened.thread;
    server.claim(&thread.id);
    // The next open of this launch is warm (an app-server started ahead).
    crate::spare::prestart(&provider.processes, &spec);
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
            Some(agent_bridge_protocol::prompt_preview(&thread.preview)).filter(|p| !p.is_empty())
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
