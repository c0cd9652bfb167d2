//! [`AcpProvider`]: availability, catalog, session list and open/reopen of one ACP agent.

use crate::advertised::Advertised;
use crate::auth_probe::AuthCheck;
use crate::config::AcpConfig;
use crate::launch::{self, auth_error, Agent};
use crate::opencode::spare_warmup::WarmTarget;
use crate::persistence;
use crate::profile::{self, Profile};
use crate::restart::SessionRelaunch;
use crate::session::AcpSession;
use crate::spare::AcpProcesses;
use crate::state::{lock, Phase, SessionState};
use crate::wire::{method, requests, SessionAnswer};
use agent_bridge_core::lifecycle::{ProcessOptions, Relaunch, Sharing};
use agent_bridge_core::registry::ProviderManifest;
use agent_bridge_core::spares::Spares;
use agent_bridge_core::{
    CatalogQuery, CliSpec, OpenRequest, OpenedSession, Provider, ProviderContext, SessionSink,
    SessionsQuery,
};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    AvailabilityStatus, Capability, HistoryMode, ProviderAvailability, ProviderCatalog,
    ProviderCatalogOptions, ProviderError, ProviderPersistence, ProviderSessionSummary,
};
use async_trait::async_trait;

/// One ACP agent as a provider.
#[derive(Debug)]
pub struct AcpProvider {
    profile: Profile,
    auth: AuthCheck,
    /// What a user's own agent advertised in `initialize`.
    advertised: Advertised,
    /// How its sessions get their agent process: a shared one (the default, see
    /// docs/providers/acp.md) or their own with a prestarted spare ([`crate::spare`]).
    processes: AcpProcesses,
    /// The session the next fresh spare warms with (a profile's `spareWarmup`).
    warm: WarmTarget,
}

impl AcpProvider {
    pub fn new(profile: Profile) -> Self {
        let id = profile.name.clone();
        Self::with_processes(
            profile,
            &id,
            &ProcessOptions::defaults(Sharing::ByDefault),
            &Spares::from_env(),
        )
    }

    /// A provider `id` whose sessions get their agent processes as `options` say.
    pub fn with_processes(
        profile: Profile,
        id: &str,
        options: &ProcessOptions,
        spares: &Spares,
    ) -> Self {
        AcpProvider {
            auth: AuthCheck::default(),
            advertised: Advertised::default(),
            processes: AcpProcesses::new(id, options, spares, launch::CLOSE_LIMIT),
            warm: WarmTarget::default(),
            profile,
        }
    }

    /// The provider of one plugin.json entry (`"agent": "acp"`), with the bridge's `spares`:
    /// the core's process options (`processPerSession`, `warmSpares`) are read by the core,
    /// the rest by the profile.
    pub fn from_entry(entry: &ProviderManifest, spares: &Spares) -> Self {
        let options = ProcessOptions::from_options(&entry.id, &entry.options, Sharing::ByDefault);
        Self::with_processes(profile::for_entry(entry), &entry.id, &options, spares)
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// One attempt at opening `request` (see `Provider::open`).
    async fn open_attempt(
        &self,
        ctx: &ProviderContext,
        request: OpenRequest,
        sink: SessionSink,
    ) -> Result<OpenedSession, ProviderError> {
        let cfg = &request.config;
        if cfg
            .system_prompt
            .as_deref()
            .is_some_and(|p| !p.trim().is_empty())
        {
            tracing::warn!("ACP has no system prompt; the session's systemPrompt is not applied");
        }
        let base = launch::spec(&self.profile, &ctx.launch, Some(&cfg.cwd), &cfg.env);
        // A process mode is another launch ([`crate::process_modes`]).
        let process_mode = self.profile.process_modes.at_open(cfg.mode.as_deref());
        let spec = self
            .profile
            .process_modes
            .spec(&base, process_mode.as_deref());
        let spare =
            crate::spare::take(&self.processes, &self.profile, &spec, &sink, &request.scope).await;
        let (mut agent, shared) = match spare {
            Some(taken) => taken,
            None => {
                let shared = agent_bridge_core::lifecycle::shared(SessionState::default());
                let agent = launch::session_agent(
                    &self.profile,
                    &spec,
                    self.processes.shared().map(|p| (p, &self.warm)),
                    shared.clone(),
                    sink.clone(),
                    &request.scope,
                )
                .await?;
                (agent, shared)
            }
        };
        crate::opencode::retry_log::follow(&self.profile, &agent.runtime, &shared, &sink);
        let opened = open_session(
            &self.profile,
            &mut agent,
            &request,
            &shared,
            process_mode.as_deref(),
        );
        match opened.await {
            Ok((session_id, cwd)) => {
                self.warm.opened(&session_id, &cwd);
                let (state, replay, title) = {
                    let mut s = lock(&shared);
                    s.phase = Phase::Live;
                    let replay = std::mem::take(&mut s.replay);
                    (s.config.state(), replay, s.title.clone())
                };
                // The next open of this launch is warm: a process started ahead, outside this
                // session's scope.
                crate::spare::prestart(&self.processes, &self.profile, &spec);
                let launch = SessionRelaunch {
                    profile: self.profile.clone(),
                    runtime: Relaunch::new(spec, request.scope.clone()),
                    base,
                    process_mode,
                    processes: self.processes.shared().cloned(),
                    warm: self.warm.clone(),
                    cwd: cwd.clone(),
                    mcp_servers: cfg.mcp_servers.clone(),
                };
                let session = AcpSession::new(agent, shared, sink, session_id.clone(), launch);
                let mut out = OpenedSession::new(Box::new(session), state);
                out.persistence = Some(persistence::persistence(&session_id, &cwd));
                out.title = title;
                if request.history == HistoryMode::Replay {
                    out.replay = replay;
                }
                Ok(out)
            }
            Err(e) => {
                agent.shutdown(None).await;
                Err(e)
            }
        }
    }

    fn launch_key(&self, ctx: &ProviderContext) -> String {
        format!(
            "acp|{}|{}|{}|{}",
            self.profile.name,
            ctx.launch.program(&self.profile.program),
            ctx.launch.args.join(" "),
            ctx.launch.var("HOME").unwrap_or_default()
        )
    }

    /// A short-lived agent (catalog, session list) in `cwd`.
    async fn probe_agent(&self, ctx: &ProviderContext, cwd: &str) -> Result<Agent, ProviderError> {
        let spec = launch::spec(&self.profile, &ctx.launch, Some(cwd), &Default::default());
        let modes = &self.profile.process_modes;
        launch::start_for_query(&self.profile, &modes.spec(&spec, modes.base())).await
    }
}

fn temp_cwd() -> String {
    std::env::temp_dir().display().to_string()
}

#[async_trait]
impl Provider for AcpProvider {
    fn capabilities(&self) -> Vec<Capability> {
        self.profile.capabilities.clone()
    }

    /// A built-in profile's tested capabilities; for a user's own agent, what it advertises
    /// in `initialize` ([`crate::advertised`]).
    async fn capabilities_for(&self, ctx: &ProviderContext) -> Vec<Capability> {
        if self.profile.builtin
            || (self.profile.program.is_empty() && ctx.launch.command.is_none())
            || ctx.launch.resolve(&self.profile.program).is_err()
        {
            return self.capabilities();
        }
        self.advertised
            .capabilities(&self.profile, &ctx.launch)
            .await
    }

    fn cli(&self) -> Option<CliSpec> {
        let args: Vec<&str> = self
            .profile
            .version_args
            .iter()
            .map(String::as_str)
            .collect();
        Some(CliSpec::new(self.profile.program.clone(), &args))
    }

    async fn availability(
        &self,
        ctx: &ProviderContext,
        _options: &ProviderCatalogOptions,
    ) -> ProviderAvailability {
        if self.profile.program.is_empty() && ctx.launch.command.is_none() {
            return ProviderAvailability::with(
                AvailabilityStatus::Missing,
                "this ACP entry has no `command` in plugin.json",
            );
        }
        match ctx.launch.resolve(&self.profile.program) {
            Ok(_) => match self.auth.login(&self.profile, &ctx.launch).await {
                None => ProviderAvailability::available(),
                Some(login) => login.availability(&self.profile.label),
            },
            Err(e) => ProviderAvailability::with(
                AvailabilityStatus::Missing,
                format!(
                    "{e}; install {} or set its command in plugin.json",
                    self.profile.label
                ),
            ),
        }
    }

    async fn catalog_cache_key(
        &self,
        ctx: &ProviderContext,
        options: &ProviderCatalogOptions,
    ) -> Option<String> {
        Some(format!(
            "{}|{}",
            self.launch_key(ctx),
            options.cwd.as_deref().unwrap_or("")
        ))
    }

    /// The models, modes and thinking levels of a `session/new` in `cwd` (ACP has no catalog
    /// method); the probe session is closed where the agent can close sessions.
    async fn catalog(
        &self,
        ctx: &ProviderContext,
        query: CatalogQuery,
    ) -> Result<ProviderCatalog, ProviderError> {
        let cwd = query.cwd.clone().unwrap_or_else(temp_cwd);
        let agent = self.probe_agent(ctx, &cwd).await?;
        let answer = agent
            .runtime
            .rpc()
            .call(method::SESSION_NEW, requests::new_session(&cwd, vec![]))
            .await;
        let answer = answer.map_err(|e| auth_error(&agent, agent.error(e)));
        let state: Result<SessionAnswer, ProviderError> = answer.and_then(|v| {
            serde_json::from_value(v)
                .map_err(|e| ProviderError::new(format!("unreadable session/new answer: {e}")))
        });
        let session = state.as_ref().ok().and_then(|s| s.session_id.clone());
        agent.shutdown(session.as_deref()).await;
        let state = state?;
        Ok(AcpConfig::for_profile(&state, &self.profile, None).catalog())
    }

    async fn list_sessions(
        &self,
        ctx: &ProviderContext,
        query: SessionsQuery,
    ) -> Result<Vec<ProviderSessionSummary>, ProviderError> {
        let cwd = query.cwd.clone().unwrap_or_else(temp_cwd);
        let agent = self.probe_agent(ctx, &cwd).await?;
        let listed = crate::session_list::list(&agent, &self.profile.label, &query).await;
        agent.shutdown(None).await;
        listed
    }

    /// Through the agent's own server ([`crate::opencode::archive`]), on a short-lived agent in the
    /// session's folder; only a profile with one declares it.
    async fn set_archived(
        &self,
        ctx: &ProviderContext,
        persistence: ProviderPersistence,
        archived: bool,
    ) -> Result<(), ProviderError> {
        let (session_id, cwd) = persistence::session_of(&persistence)?;
        let cwd = cwd
            .filter(|c| std::path::Path::new(c).is_dir())
            .unwrap_or_else(temp_cwd);
        let agent = self.probe_agent(ctx, &cwd).await?;
        let done = match &agent.server {
            Some(http) => crate::opencode::archive::set_archived(http, &session_id, archived).await,
            None => Err(ProviderError::new(format!(
                "{} cannot archive sessions",
                self.profile.label
            ))
            .with_code(ErrorCode::Unsupported)),
        };
        agent.shutdown(None).await;
        done
    }

    async fn open(
        &self,
        ctx: &ProviderContext,
        request: OpenRequest,
        sink: SessionSink,
    ) -> Result<OpenedSession, ProviderError> {
        let shared = self.processes.shared().is_some();
        agent_bridge_core::lifecycle::shared::open_again_if_died(
            shared,
            &self.profile.label,
            || self.open_attempt(ctx, request.clone(), sink.clone()),
        )
        .await
    }
}

/// `session/new`, or a reopen of the persisted session, then the requested model and mode.
/// Returns the ACP session id and its cwd.
async fn open_session(
    profile: &Profile,
    agent: &mut Agent,
    request: &OpenRequest,
    shared: &crate::state::SharedState,
    process_mode: Option<&str>,
) -> Result<(String, String), ProviderError> {
    let cfg = &request.config;
    let mcp = persistence::mcp_servers(&cfg.mcp_servers, &agent.init.agent_capabilities)?;
    lock(shared).normalizer.replay_revert.tokens = agent
        .server
        .is_some()
        .then_some(crate::opencode::revert::token as fn(&str) -> serde_json::Value);
    let (session_id, cwd, answer) = match &request.persistence {
        Some(p) => {
            let (id, cwd) = persistence::session_of(p)?;
            let cwd = cwd.unwrap_or_else(|| cfg.cwd.clone());
            let how = persistence::reopen_method(&agent.init.agent_capabilities, request.history)
                .ok_or_else(|| {
                    ProviderError::new(format!(
                        "{} cannot reopen sessions (neither loadSession nor sessionCapabilities.resume)",
                        profile.label
                    ))
                    .with_code(ErrorCode::Unsupported)
                })?;
            if how == method::SESSION_LOAD {
                replay_up_to_a_pending_revert(agent, &id, shared).await;
            }
            lock(shared).phase = if how == method::SESSION_LOAD {
                Phase::Replaying
            } else {
                Phase::Live
            };
            // On a shared process, what the agent says about the session is ours.
            agent.runtime.claim(&id);
            let params = requests::reopen(how, &id, &cwd, mcp);
            let answer = agent
                .runtime
                .rpc()
                .call(how, params)
                .await
                .map_err(|e| auth_error(agent, agent.error(e)))?;
            // The replay came before the answer: all of it is in before it ends.
            agent.runtime.settle().wait().await;
            (id, cwd, answer)
        }
        None => {
            let params = requests::new_session(&cfg.cwd, mcp);
            let answer = agent
                .runtime
                .rpc()
                .call(method::SESSION_NEW, params)
                .await
                .map_err(|e| auth_error(agent, agent.error(e)))?;
            let id = answer["sessionId"]
                .as_str()
                .ok_or_else(|| {
                    ProviderError::new("session/new answered without a sessionId")
                        .with_code(ErrorCode::AgentError)
                })?
                .to_string();
            agent.runtime.claim(&id);
            (id, cfg.cwd.clone(), answer)
        }
    };
    let state: SessionAnswer = serde_json::from_value(answer).unwrap_or_default();
    let config = AcpConfig::for_profile(&state, profile, process_mode);
    let changes = agent_bridge_protocol::ProviderConfigChanges {
        model: cfg.model.clone().map(Some),
        mode: cfg.mode.clone().map(Some),
        thinking_option: cfg.thinking_option.clone().map(Some),
        ..Default::default()
    };
    let plan = config.plan(&session_id, &changes)?;
    lock(shared).config = config;
    for call in plan {
        let answer = agent
            .runtime
            .rpc()
            .call(call.method, call.params.clone())
            .await
            .map_err(|e| agent.error(e))?;
        let mut s = lock(shared);
        s.config.set_local(call.category, &call.value);
        s.config.replace_options(&answer);
    }
    Ok((session_id, cwd))
}

/// A replay of `session_id` leaves out the turns of a revert not yet dropped by a prompt
/// ([`crate::opencode::revert`]).
async fn replay_up_to_a_pending_revert(
    agent: &Agent,
    session_id: &str,
    shared: &crate::state::SharedState,
) {
    let Some(http) = &agent.server else {
        return;
    };
    match crate::opencode::revert::pending(http, session_id).await {
        Ok(cut) => lock(shared).normalizer.replay_revert.cut_at(cut),
        Err(e) => tracing::warn!(
            session_id,
            "could not ask whether a revert is pending; the replay shows every stored turn: {e}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(options: &str) -> AcpProvider {
        let entry = format!(
            r#"{{"id":"qwen-bridge","label":"Qwen","agent":"acp","command":["qwen"],"options":{options}}}"#
        );
        AcpProvider::from_entry(
            &serde_json::from_str(&entry).expect("entry"),
            &Spares::from_env(),
        )
    }

    #[test]
    fn sessions_share_agent_processes_unless_the_entry_says_otherwise() {
        assert!(
            provider("{}").processes.shared().is_some(),
            "shared by default"
        );
        let own = provider(r#"{"processPerSession":true,"args":["--acp"]}"#);
        assert!(own.processes.shared().is_none());
        assert!(
            own.processes.prestarted().is_some(),
            "a process per session: prestarted spares"
        );
        assert!(
            provider("{}").processes.prestarted().is_none(),
            "shared: the idle process is the spare"
        );
        assert_eq!(
            own.profile.args,
            vec!["--acp".to_string()],
            "the profile's options apply"
        );
        assert!(provider(r#"{"processPerSession":false}"#)
            .processes
            .shared()
            .is_some());
    }
}
