//! How a session gets its agent process: the one place that decides, for every provider.
//!
//! - **Shared** (the default of a family whose CLI serves many sessions: `codex app-server`,
//!   ACP agents): sessions with the same launch join one process ([`SharedProcesses`]); the
//!   last one leaving stops it and, with an idle time, a fresh process of that launch starts
//!   as the provider's **warm spare** (`shared::fresh`), warmed by the provider first where it
//!   says ([`ProcessLaunch::warm_up`]).
//! - **Own** (Claude; an entry with `"processPerSession": true`): each session has a process
//!   of its own; after an open, a **prestarted spare** of that very launch is started in the
//!   background ([`PrestartedPool`]) and the next open of the launch takes it.
//!
//! [`ProcessChoice`] is built once per provider from its plugin.json options
//! ([`ProcessOptions`]: `processPerSession`, `warmSpares`) and the bridge's [`Spares`] (idle
//! time, the bridge's stop), which the host running `serve` builds and passes down. A
//! provider says only how its CLI starts and whose messages are whose ([`ProcessLaunch`]), and
//! how a prestarted spare is taken over by a session (its own spare type).

use super::errors;
use super::shared::{Route, SharedKey, SharedMember, SharedProcesses};
use super::{AgentRuntime, EventTarget, Translator};
use crate::rpc::Inbound;
use crate::scope::ProcessScope;
use crate::spares::{PoolConfig, Prestarted, PrestartedPool, SpareKeyBound, Spares};
use crate::supervisor::SpawnSpec;
use agent_bridge_protocol::ProviderError;
use async_trait::async_trait;
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// The plugin.json option that gives every session a process of its own (`true`) or lets
/// sessions with the same launch share one (`false`).
pub const PROCESS_PER_SESSION: &str = "processPerSession";
/// The plugin.json option that sets how many prestarted spares are kept at most (`0`: none).
pub const WARM_SPARES: &str = "warmSpares";
/// Prestarted spares kept at most by default: one, for the most recently opened launch (a
/// spare is a whole CLI process).
pub const DEFAULT_MAX_SPARES: usize = 1;

/// Whether a provider's CLI can serve several sessions in one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// One process per session, always (Claude's stream-json CLI).
    Never,
    /// Sessions share a process unless the entry says `processPerSession: true`.
    ByDefault,
}

/// What a plugin.json entry says about its processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOptions {
    /// Every session gets a process of its own.
    pub per_session: bool,
    /// Most prestarted spares kept at once (`0`: none).
    pub max_spares: usize,
}

impl ProcessOptions {
    /// The defaults of a family.
    pub fn defaults(sharing: Sharing) -> Self {
        ProcessOptions {
            per_session: sharing == Sharing::Never,
            max_spares: DEFAULT_MAX_SPARES,
        }
    }

    /// Whether `key` is an option read here (the provider leaves it alone).
    pub fn is_option(key: &str) -> bool {
        key == PROCESS_PER_SESSION || key == WARM_SPARES
    }

    /// The options of provider `id` (a plugin.json entry's `options`; a wrong value is logged
    /// and the default kept); `sharing` says whether `processPerSession` means anything for
    /// the family.
    pub fn from_options(id: &str, entry_options: &Map<String, Value>, sharing: Sharing) -> Self {
        let mut options = Self::defaults(sharing);
        for (key, value) in entry_options {
            match key.as_str() {
                PROCESS_PER_SESSION if sharing == Sharing::Never => tracing::warn!(
                    provider = %id,
                    "option `{PROCESS_PER_SESSION}` ignored: every session has a process of its own"
                ),
                PROCESS_PER_SESSION => match value.as_bool() {
                    Some(v) => options.per_session = v,
                    None => tracing::warn!(
                        provider = %id,
                        "option `{PROCESS_PER_SESSION}` must be true or false; {value} ignored"
                    ),
                },
                WARM_SPARES => match value.as_u64() {
                    Some(n) => options.max_spares = usize::try_from(n).unwrap_or(usize::MAX),
                    None => tracing::warn!(
                        provider = %id,
                        "option `{WARM_SPARES}` must be a number; {value} ignored"
                    ),
                },
                _ => {}
            }
        }
        options
    }
}

/// How a provider starts its CLI for the core: the one thing the core cannot know.
#[async_trait]
pub trait ProcessLaunch: Send + Sync + 'static {
    /// Spawns the agent of `spec`, its messages to `inbound`, in the session's `scope` (none:
    /// a spare, nobody's yet), and completes its handshake; returns the runtime and the
    /// handshake's answer (every session on a shared process reads it).
    async fn start(
        &self,
        spec: &SpawnSpec,
        inbound: Arc<dyn Inbound>,
        scope: Option<&ProcessScope>,
    ) -> Result<(AgentRuntime, Value), ProviderError>;

    /// Whose message it is, on a process shared by several sessions.
    fn route(&self) -> Arc<dyn Route>;

    /// Readies a fresh warm spare before it is offered (default: nothing).
    async fn warm_up(&self, _runtime: &AgentRuntime, _handshake: &Value) {}

    /// How to get the CLI, for an error about the session's folder.
    fn install_hint(&self) -> String;
}

enum Kind<K, S> {
    Own(PrestartedPool<K, S>),
    Shared(SharedProcesses),
}

/// How the sessions of one provider get their process (see the module doc). Dropping it
/// kills its prestarted spares.
pub struct ProcessChoice<K, S> {
    kind: Kind<K, S>,
}

impl<K: SpareKeyBound, S: Prestarted> std::fmt::Debug for ProcessChoice<K, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            Kind::Own(pool) => f
                .debug_struct("ProcessChoice::Own")
                .field("spares", pool.config())
                .finish(),
            Kind::Shared(processes) => f
                .debug_tuple("ProcessChoice::Shared")
                .field(processes)
                .finish(),
        }
    }
}

impl<K: SpareKeyBound, S: Prestarted> ProcessChoice<K, S> {
    /// The choice of provider `provider` with `options`, its spares per the bridge's `spares`;
    /// a stop of one of its processes is bounded by `stop_limit` (then killed).
    pub fn new(
        provider: &str,
        options: &ProcessOptions,
        spares: &Spares,
        stop_limit: Duration,
    ) -> Self {
        let kind = if options.per_session {
            Kind::Own(PrestartedPool::new(PoolConfig {
                enabled: !spares.idle().is_zero() && options.max_spares > 0,
                idle: spares.idle(),
                max_spares: options.max_spares,
                provider: provider.to_string(),
                stopping: spares.stopping().clone(),
            }))
        } else {
            Kind::Shared(SharedProcesses::with_spares(spares.clone(), stop_limit).named(provider))
        };
        ProcessChoice { kind }
    }

    /// The shared processes, when sessions share them.
    pub fn shared(&self) -> Option<&SharedProcesses> {
        match &self.kind {
            Kind::Shared(processes) => Some(processes),
            Kind::Own(_) => None,
        }
    }

    /// The prestarted spares, when each session has a process of its own.
    pub fn prestarted(&self) -> Option<&PrestartedPool<K, S>> {
        match &self.kind {
            Kind::Own(pool) => Some(pool),
            Kind::Shared(_) => None,
        }
    }

    /// The prestarted spare of launch `key` (waited for while it starts), if a live one is
    /// there; `None` when sessions share processes or spares are off.
    pub async fn take_spare(&self, key: &K) -> Option<S> {
        let pool = self.prestarted().filter(|p| p.enabled())?;
        pool.take_or_wait(key).await
    }

    /// After an open of launch `key` with a process of its own: the next one is started in the
    /// background with `start` (outside any session's scope), unless one is ready or starting.
    pub fn prestart<F>(&self, key: K, start: F)
    where
        F: Future<Output = Result<S, String>> + Send + 'static,
    {
        if let Some(pool) = self.prestarted() {
            pool.replenish(key, start);
        }
    }
}

/// A session's place on the shared process of `spec`'s launch, started with `launch` when none
/// runs (in the session's `scope` while it starts); its messages go through `translator` into
/// `events`. When its last session leaves, a fresh process of this launch (warmed by
/// `launch`) is the provider's warm spare.
pub async fn join_shared(
    processes: &SharedProcesses,
    launch: Arc<dyn ProcessLaunch>,
    spec: &SpawnSpec,
    translator: Arc<dyn Translator>,
    events: EventTarget,
    scope: &ProcessScope,
) -> Result<SharedMember, ProviderError> {
    // The process may run in another session's folder: this one's is checked here.
    if let Some(cwd) = &spec.cwd {
        crate::supervisor::check_cwd(cwd)
            .map_err(|e| errors::spawn_error(e, &launch.install_hint()))?;
    }
    let key = SharedKey::of(spec);
    let (fresh, owned) = (launch.clone(), spec.clone());
    processes.spare_start(
        &key,
        launch.route(),
        Arc::new(move |inbound| {
            let (launch, spec) = (fresh.clone(), owned.clone());
            Box::pin(async move {
                let (runtime, handshake) = launch.start(&spec, inbound, None).await?;
                launch.warm_up(&runtime, &handshake).await;
                Ok((runtime, handshake))
            })
        }),
    );
    let start = |inbound: Arc<dyn Inbound>| {
        let launch = launch.clone();
        async move { launch.start(spec, inbound, Some(scope)).await }
    };
    processes
        .join(key, launch.route(), start, translator, events, scope)
        .await
}
