//! The protocol side of `try`: starts the server in-process, then initialize, pick a provider,
//! connect, `session.open`, `session.prompt`, and follows the events to the turn's end
//! (answering permissions, interrupting on Ctrl-C). Output goes through the renderer.

use super::client::{Client, Inbound};
use super::permission::{self, Policy};
use super::pick::{Candidates, Picker};
use super::render::{Renderer, TurnEnd};
use super::retry::{self, RetryWatch};
use super::term::{Spinner, Style};
use super::TryArgs;
use crate::plugin;
use agent_bridge_core::server::{serve, ServerConfig};
use agent_bridge_protocol::wire::*;
use agent_bridge_protocol::{
    HistoryMode, ItemBody, PromptDelivery, PromptInput, PromptResult, ProviderConfigState,
    ProviderContent, ProviderEvent, ProviderInput, ProviderPermissionRequest, ProviderPrompt,
    ProviderSessionConfig, TurnState, BRIDGE_API_VERSION, PROVIDER_PROTOCOL_VERSION,
};
use anyhow::{anyhow, bail};
use serde_json::json;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const OPEN_ID: &str = "try-open";
const MESSAGE_ID: &str = "try-message";
/// The core's interrupt grace (5 s) plus a margin: after this the command stops waiting.
const INTERRUPT_WAIT: Duration = Duration::from_secs(7);
/// What the agents other than the demo leave of their time for closing the last one and
/// opening the demo.
const DEMO_MARGIN: Duration = Duration::from_secs(5);

pub async fn run(args: TryArgs) -> anyhow::Result<ExitCode> {
    let loaded = plugin::Loaded::find(args.plugin_dir.clone())?;
    let plugin_dir = loaded.folder()?;
    let plugin::Loaded {
        providers, spares, ..
    } = loaded;
    let agents: Vec<(String, String)> = providers
        .iter()
        .map(|e| (e.descriptor.id.clone(), e.agent.clone()))
        .collect();
    let config = ServerConfig {
        name: "agent-bridge".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        plugin_dir,
        providers,
        spares,
    };
    let (host_side, bridge_side) = tokio::io::duplex(256 * 1024);
    let (bridge_read, bridge_write) = tokio::io::split(bridge_side);
    let cancel = CancellationToken::new();
    let server = tokio::spawn(serve(config, bridge_read, bridge_write, cancel.clone()));
    let (host_read, host_write) = tokio::io::split(host_side);
    let (client, events) = Client::start(host_read, host_write);
    let renderer = Renderer::new(std::io::stdout(), Style::detect(), Spinner::detect());
    let mut host = Host {
        client,
        events,
        renderer,
        connection: None,
        session_id: format!("try-{}", std::process::id()),
        open_refused: None,
    };
    let outcome = host.drive(&args, &agents).await;
    host.close().await;
    if tokio::time::timeout(Duration::from_secs(2), server)
        .await
        .is_err()
    {
        cancel.cancel();
    }
    let end = outcome?;
    Ok(match end {
        TurnEnd::Completed => ExitCode::SUCCESS,
        TurnEnd::Failed(_) | TurnEnd::Canceled => ExitCode::from(1),
    })
}

struct Host {
    client: Arc<Client>,
    events: mpsc::Receiver<Inbound>,
    renderer: Renderer<std::io::Stdout>,
    connection: Option<String>,
    session_id: String,
    /// Why the last open was refused, in the agent's words (without its stderr).
    open_refused: Option<String>,
}

/// How one provider's run ended.
enum Run {
    Ended(TurnEnd),
    /// The model was out of reach (the agent's words); the next provider may be tried.
    Unreachable(String),
    /// The session could not be opened, or its turn failed (why); the next provider may be
    /// tried.
    Failed(String),
}

impl Host {
    async fn drive(
        &mut self,
        args: &TryArgs,
        agents: &[(String, String)],
    ) -> anyhow::Result<TurnEnd> {
        let started = tokio::time::Instant::now();
        let init: InitializeResponse = self
            .client
            .request(
                METHOD_INITIALIZE,
                json!({ "apiVersion": BRIDGE_API_VERSION, "host": { "name": "agent-bridge try", "version": env!("CARGO_PKG_VERSION") } }),
            )
            .await?;
        let candidates = Candidates {
            providers: &init.providers,
            agents,
        };
        let client = self.client.clone();
        // The agents other than the demo get twice `--give-up-after` in all, the login checks
        // included: the demo is reached within that.
        let limit = Duration::from_secs(args.give_up_after);
        let others_until = started + (2 * limit).saturating_sub(DEMO_MARGIN);
        let mut picker = Picker::new(&client, &candidates, args.agent.as_deref()).await?;
        let mut demo_next = false;
        for attempt in 0.. {
            if attempt > 0 && !demo_next && tokio::time::Instant::now() >= others_until {
                demo_next = true;
                if let Some(demo) = picker.demo_only() {
                    self.renderer.info(&format!(
                        "{} s are up for the other agents; running {} ({})",
                        2 * limit.as_secs(),
                        demo.label,
                        demo.id
                    ));
                }
            }
            let Some(provider) = picker.next(&mut self.renderer).await? else {
                bail!("no (other) provider is available and plugin.json has no demo provider");
            };
            if attempt > 0 {
                self.session_id = format!("try-{}-{attempt}", std::process::id());
            }
            let fall_back = picker.may_fall_back() && candidates.agent_of(&provider.id) != "demo";
            match self
                .run(&provider, &candidates, args, fall_back, others_until)
                .await?
            {
                Run::Ended(end) => return Ok(end),
                Run::Unreachable(words) => {
                    demo_next = true;
                    let next = match picker.demo_only() {
                        Some(demo) => format!(
                            "going straight to {} ({}), which needs no network",
                            demo.label, demo.id
                        ),
                        None => "trying the next agent".to_string(),
                    };
                    self.renderer
                        .error(&format!("giving up on {}: {words}; {next}", provider.id));
                    self.close_connection().await;
                }
                Run::Failed(why) => {
                    self.renderer.error(&format!(
                        "giving up on {}: {why}; trying the next agent",
                        provider.id
                    ));
                    self.close_connection().await;
                }
            }
        }
        bail!("no provider could be run")
    }

    /// Connects to `provider`, opens the session and runs the turn.
    async fn run(
        &mut self,
        provider: &ProviderInfo,
        candidates: &Candidates<'_>,
        args: &TryArgs,
        fall_back: bool,
        others_until: tokio::time::Instant,
    ) -> anyhow::Result<Run> {
        // The agent's whole try (open and turn) is bounded from here when another may follow:
        // `--give-up-after`, and no later than the time of all agents but the demo.
        let limit = Duration::from_secs(args.give_up_after);
        let now = tokio::time::Instant::now();
        let tried = now - limit.saturating_sub(others_until.saturating_duration_since(now));
        let claude = candidates.agent_of(&provider.id) == agent_bridge_claude::AGENT;
        let connect = ConnectParams {
            provider_id: provider.id.clone(),
            request: ConnectRequest {
                versions: vec![PROVIDER_PROTOCOL_VERSION],
                capabilities: provider
                    .capabilities
                    .iter()
                    .map(|c| c.to_string())
                    .collect(),
                launch: None,
            },
        };
        let connected: ConnectResponse = self.client.request(METHOD_CONNECT, connect).await?;
        self.connection = Some(connected.connection_id);
        let cwd = match &args.cwd {
            Some(dir) => {
                std::fs::canonicalize(dir).map_err(|e| anyhow!("--cwd {}: {e}", dir.display()))?
            }
            None => std::env::current_dir()?,
        };
        let opening = self.open(cwd.clone(), args, claude);
        let config = if fall_back {
            match tokio::time::timeout_at(tried + limit, opening).await {
                Ok(Ok(config)) => config,
                Ok(Err(e)) => {
                    let why = self.open_refused.take().unwrap_or_else(|| format!("{e:#}"));
                    return Ok(Run::Failed(why));
                }
                Err(_) => {
                    return Ok(Run::Unreachable(format!(
                        "{} did not open a session within {} s",
                        provider.label,
                        (tried + limit).saturating_duration_since(now).as_secs()
                    )))
                }
            }
        } else {
            opening.await?
        };
        let mut header = format!("{} ({})", provider.label, provider.id);
        for (name, value) in [("model", &config.model), ("mode", &config.mode)] {
            if let Some(v) = value {
                header.push_str(&format!(" · {name} {v}"));
            }
        }
        header.push_str(&format!(" · {}", cwd.display()));
        self.renderer.info(&header);
        self.turn(args, fall_back, tried).await
    }

    fn connection(&self) -> &str {
        self.connection.as_deref().unwrap_or_default()
    }

    async fn send(&self, input: ProviderInput) -> anyhow::Result<()> {
        self.client.send(self.connection(), input).await
    }

    /// The next event of this session (or of no session); `None` when the bridge is gone.
    async fn next_event(&mut self) -> Option<ProviderEvent> {
        loop {
            match self.events.recv().await? {
                Inbound::Malformed(problem) => self.renderer.warn(&problem),
                Inbound::Event(n) => {
                    let mine = n.connection_id == self.connection()
                        && n.event.session_id().is_none_or(|s| s == self.session_id);
                    if mine {
                        return Some(n.event);
                    }
                }
            }
        }
    }

    /// `session.open`, up to `session.ready`; returns the committed config. A Claude session
    /// retries an unreachable API twice, not ten times (unless the environment says).
    async fn open(
        &mut self,
        cwd: PathBuf,
        args: &TryArgs,
        claude: bool,
    ) -> anyhow::Result<ProviderConfigState> {
        let (key, value) = retry::CLAUDE_RETRIES;
        let mut env = std::collections::BTreeMap::new();
        if claude && std::env::var_os(key).is_none() {
            env.insert(key.to_string(), value.to_string());
        }
        let config = ProviderSessionConfig {
            env,
            cwd: cwd.to_string_lossy().into_owned(),
            model: args.model.clone(),
            mode: args.mode.clone(),
            title: Some("agent-bridge try".into()),
            persist: false,
            ..Default::default()
        };
        self.send(ProviderInput::SessionOpen {
            request_id: OPEN_ID.into(),
            session_id: self.session_id.clone(),
            config,
            persistence: None,
            history: HistoryMode::Skip,
        })
        .await?;
        let mut committed = None;
        loop {
            match self.next_event().await {
                None => bail!("the bridge stopped while opening the session"),
                Some(ProviderEvent::SessionConfig { config, .. }) => committed = Some(config),
                Some(ProviderEvent::SessionReady { .. }) => {
                    return committed.ok_or_else(|| anyhow!("the session sent no config"))
                }
                Some(ProviderEvent::RequestFailed { request_id, error })
                    if request_id == OPEN_ID =>
                {
                    self.open_refused = Some(format!(
                        "the session could not be opened: {}",
                        error.message
                    ));
                    let mut msg = format!("the session could not be opened: {}", error.message);
                    if let Some(d) = error.diagnostic {
                        msg.push_str(&format!(" ({d})"));
                    }
                    bail!(msg)
                }
                Some(ProviderEvent::SessionClosed { .. }) => {
                    bail!("the session closed while opening")
                }
                Some(_) => {}
            }
        }
    }

    /// Sends the prompt and follows the turn to its end. With `fall_back`, a model out of reach
    /// (retries or silence `--give-up-after` s after the agent was `tried`, or a turn that
    /// failed while the agent retried) ends the run quietly as [`Run::Unreachable`], for the caller to say so in one
    /// line and close the connection (which ends the turn).
    async fn turn(
        &mut self,
        args: &TryArgs,
        fall_back: bool,
        tried: tokio::time::Instant,
    ) -> anyhow::Result<Run> {
        let mut sigint = signal(SignalKind::interrupt())?;
        let policy = permission::policy(args.yes, std::io::stdin().is_terminal());
        let prompt = ProviderPrompt {
            client_message_id: MESSAGE_ID.into(),
            delivery: PromptDelivery::Auto,
            input: PromptInput::Message {
                content: vec![ProviderContent::text(args.prompt.join(" "))],
            },
            output_schema: None,
            clear_pending_permissions: None,
        };
        self.send(ProviderInput::SessionPrompt {
            session_id: self.session_id.clone(),
            prompt,
        })
        .await?;
        self.renderer.begin_turn();
        let mut retries = RetryWatch::new(Duration::from_secs(args.give_up_after));
        // With another agent to go to, a model that never answers is given up too; alone
        // (`--agent`), only one the agent says it retries.
        retries.tried_at(
            if fall_back {
                tried
            } else {
                tokio::time::Instant::now()
            },
            fall_back,
        );
        let mut ticker = tokio::time::interval(Duration::from_millis(100));
        // After a permission question, resume the spinner instead of replaying missed frames.
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let spin = self.renderer.spinner_enabled();
        let mut interrupt_deadline: Option<tokio::time::Instant> = None;
        let mut turn_id: Option<String> = None;
        let mut gave_up: Option<String> = None;
        let mut retry_said: Vec<String> = Vec::new();
        let end = loop {
            let event = tokio::select! {
                ev = self.next_event() => ev,
                _ = sigint.recv() => {
                    if interrupt_deadline.is_some() {
                        self.renderer.warn("interrupted twice; quitting");
                        break TurnEnd::Canceled;
                    }
                    interrupt_deadline = Some(self.interrupt().await);
                    continue;
                }
                _ = ticker.tick(), if spin => { self.renderer.tick(); continue; }
                _ = sleep_until(interrupt_deadline) => {
                    self.renderer.warn("the agent did not stop in time");
                    break TurnEnd::Canceled;
                }
                _ = sleep_until(retries.deadline()), if interrupt_deadline.is_none() => {
                    let why = retries.give_up();
                    if fall_back {
                        // Closing the connection ends the turn; no need to wait for it.
                        self.renderer.finish_line();
                        return Ok(Run::Unreachable(why));
                    }
                    self.renderer.error(&format!("giving up: {why}"));
                    gave_up = Some(why);
                    interrupt_deadline = Some(self.interrupt().await);
                    continue;
                }
            };
            let Some(event) = event else {
                break TurnEnd::Failed("the bridge stopped during the turn".into());
            };
            match event {
                ProviderEvent::TimelineItem { item, .. } => {
                    // The user's own message is no sign of the model.
                    let model = !matches!(
                        item.body,
                        ItemBody::Notification { .. } | ItemBody::UserMessage { .. }
                    );
                    if model {
                        retries.progress();
                    }
                    self.renderer.item(&item)
                }
                ProviderEvent::SessionPromptResult { result, .. } => match result {
                    PromptResult::Turn { turn_id: id } | PromptResult::Steer { turn_id: id } => {
                        turn_id = Some(id)
                    }
                    PromptResult::Completed => break TurnEnd::Completed,
                    PromptResult::Failed { error } => break TurnEnd::Failed(error.message),
                },
                ProviderEvent::SessionTurn {
                    turn_id: id,
                    state,
                    error,
                    ..
                } if turn_id.as_ref().is_none_or(|t| *t == id) => match state {
                    TurnState::Started => {}
                    TurnState::Completed => break TurnEnd::Completed,
                    TurnState::Canceled => break TurnEnd::Canceled,
                    TurnState::Failed => {
                        let why = error.map(|e| e.message).unwrap_or_else(|| "failed".into());
                        break TurnEnd::Failed(why);
                    }
                },
                ProviderEvent::SessionUsage { usage, .. } => self.renderer.set_usage(usage),
                ProviderEvent::SessionPermission { request, .. } => {
                    let answered = self.permission(&request, policy, &mut sigint).await;
                    if !answered {
                        interrupt_deadline = Some(self.interrupt().await);
                    }
                }
                ProviderEvent::SessionNotice { notice, .. } => {
                    // A retry streak is said once, not at every retry.
                    if retries.notice(&notice) {
                        if notice.dismissed == Some(true) || retry_said.contains(&notice.id) {
                            continue;
                        }
                        retry_said.push(notice.id.clone());
                    }
                    let mut text = notice.title;
                    if let Some(d) = notice.description {
                        text.push_str(&format!(": {d}"));
                    }
                    self.renderer.warn(&text);
                }
                ProviderEvent::SessionRuntimeFailed { error, .. } => self
                    .renderer
                    .error(&format!("the agent runtime failed: {}", error.message)),
                ProviderEvent::SessionClosed { error, .. } => {
                    let why = error
                        .map(|e| e.message)
                        .unwrap_or_else(|| "the session closed".into());
                    break TurnEnd::Failed(why);
                }
                ProviderEvent::RequestFailed { error, .. } => self.renderer.error(&error.message),
                _ => {}
            }
        };
        if fall_back {
            if let (TurnEnd::Failed(why), Some(_)) = (&end, retries.unreachable()) {
                self.renderer.finish_line();
                return Ok(Run::Unreachable(why.clone()));
            }
            // A failed turn (Claude Code not logged in, when its login could not be checked in
            // time, fails its first turn): the next agent may work.
            if let TurnEnd::Failed(why) = &end {
                self.renderer.finish_line();
                return Ok(Run::Failed(why.clone()));
            }
        }
        // An interrupt `try` made because the model was out of reach is a failure.
        let end = match (end, gave_up) {
            (_, Some(why)) => TurnEnd::Failed(why),
            (end, None) => end,
        };
        self.renderer.end(&end);
        Ok(Run::Ended(end))
    }

    /// Asks `session.interrupt`; returns until when to wait for the turn to end.
    async fn interrupt(&mut self) -> tokio::time::Instant {
        self.renderer
            .warn("interrupting the turn (Ctrl-C again to quit)");
        let input = ProviderInput::SessionInterrupt {
            request_id: "try-interrupt".into(),
            session_id: self.session_id.clone(),
        };
        if let Err(e) = self.send(input).await {
            self.renderer.warn(&format!("interrupt refused: {e:#}"));
        }
        tokio::time::Instant::now() + INTERRUPT_WAIT
    }

    /// Answers one permission request. Returns false when Ctrl-C came while asking.
    async fn permission(
        &mut self,
        request: &ProviderPermissionRequest,
        policy: Policy,
        sigint: &mut tokio::signal::unix::Signal,
    ) -> bool {
        self.renderer.permission(request);
        let allow = match policy {
            Policy::AllowAll => {
                self.renderer.info("  allowed (--yes)");
                true
            }
            Policy::DenyAll => {
                self.renderer
                    .warn("denied: stdin is not a terminal (pass --yes to allow)");
                false
            }
            Policy::Ask => {
                self.renderer.finish_line();
                let asking = tokio::task::spawn_blocking(|| permission::ask_blocking("Allow?"));
                tokio::select! {
                    answer = asking => {
                        let allow = answer.unwrap_or(false);
                        self.renderer.info(if allow { "  allowed" } else { "  denied" });
                        allow
                    }
                    _ = sigint.recv() => {
                        eprintln!();
                        return false;
                    }
                }
            }
        };
        let input = ProviderInput::SessionPermission {
            session_id: self.session_id.clone(),
            permission_id: request.id.clone(),
            response: permission::response(request, allow),
        };
        if let Err(e) = self.send(input).await {
            self.renderer
                .warn(&format!("the answer was not accepted: {e:#}"));
        }
        true
    }

    /// Closes the connection (and so the session) and stops the server.
    async fn close(&mut self) {
        self.close_connection().await;
        let _ = self.client.notify(METHOD_SHUTDOWN, json!({})).await;
    }

    /// Closes the connection, and so the session: answered once its processes are gone.
    async fn close_connection(&mut self) {
        if let Some(connection_id) = self.connection.take() {
            let params = CloseParams { connection_id };
            let closing = self
                .client
                .request::<_, serde_json::Value>(METHOD_CLOSE, params);
            if let Ok(Err(e)) = tokio::time::timeout(Duration::from_secs(5), closing).await {
                tracing::debug!("closing the connection failed: {e:#}");
            }
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
