//! The built-in demo agent (provider id `demo`): deterministic, no network, and it exercises the
//! whole contract — streamed replies, a real shell tool with permissions, steer, interrupt,
//! configure with controls, persistence with replay, the session list and can_stop_runtime.
//!
//! Prompt directives: ``run `CMD` `` runs CMD as a shell tool call (asking first in mode `ask`);
//! `SLOW` streams one word per 200 ms; `FAIL` fails the turn; `CRASH` kills the runtime (it
//! restarts with the next prompt);
//! `BENCH n` emits n timestamped items as fast as it can. Commands: `/echo ARGS`, `/status`.
//!
//! Launch variable: `DEMO_OPEN_DELAY_MS` (in the launch's effective environment,
//! [`agent_bridge_core::effective_env`]) makes every open take that long (at most 10 s), so a
//! test can land a close or an interrupt while an open is under way. `DEMO_PROBE_DELAY_MS` does
//! the same for the availability probe and the catalog cache key, so a test can hold a host
//! request in flight.

mod catalog;
mod script;
mod session;
mod shell;
mod store;
mod turn;

use std::time::Duration;

use agent_bridge_core::{
    supervisor::LaunchOverride, CatalogQuery, OpenRequest, OpenedSession, Provider,
    ProviderContext, SessionSink, SessionsQuery,
};
use agent_bridge_protocol::{
    Capability, HistoryMode, ProviderAvailability, ProviderCatalog, ProviderCatalogOptions,
    ProviderCommand, ProviderError, ProviderSessionSummary,
};
use async_trait::async_trait;
use catalog::DemoConfig;
use session::DemoSession;
use store::StoredSession;

pub use script::Script;

/// The demo provider.
#[derive(Debug, Default)]
pub struct DemoProvider;

impl DemoProvider {
    pub fn new() -> Self {
        DemoProvider
    }
}

/// The longest open delay `DEMO_OPEN_DELAY_MS` can ask for.
const MAX_OPEN_DELAY: Duration = Duration::from_secs(10);

/// `DEMO_OPEN_DELAY_MS` from the launch's effective environment, capped at [`MAX_OPEN_DELAY`];
/// `None` when unset or not a number.
fn open_delay(launch: &LaunchOverride) -> Option<Duration> {
    launch_delay(launch, OPEN_DELAY_VAR)
}

fn launch_delay(launch: &LaunchOverride, var: &str) -> Option<Duration> {
    delay_of(&launch.var(var)?)
}

fn delay_of(value: &str) -> Option<Duration> {
    let ms: u64 = value.trim().parse().ok()?;
    Some(Duration::from_millis(ms).min(MAX_OPEN_DELAY))
}

/// `DEMO_PROBE_DELAY_MS` from the launch's effective environment.
fn probe_delay(launch: &LaunchOverride) -> Option<Duration> {
    launch_delay(launch, PROBE_DELAY_VAR)
}

async fn probe_pause(ctx: &ProviderContext) {
    if let Some(delay) = probe_delay(&ctx.launch) {
        tokio::time::sleep(delay).await;
    }
}

const OPEN_DELAY_VAR: &str = "DEMO_OPEN_DELAY_MS";
const PROBE_DELAY_VAR: &str = "DEMO_PROBE_DELAY_MS";

fn commands() -> Vec<ProviderCommand> {
    vec![
        ProviderCommand {
            name: "echo".into(),
            description: "Reply with the arguments".into(),
            argument_hint: Some("<text>".into()),
        },
        ProviderCommand {
            name: "status".into(),
            description: "Show the session's turn count and settings".into(),
            argument_hint: None,
        },
    ]
}

#[async_trait]
impl Provider for DemoProvider {
    fn capabilities(&self) -> Vec<Capability> {
        vec![
            Capability::PromptMessage,
            Capability::PromptCommand,
            Capability::PromptSteer,
            Capability::SessionConfigure,
            Capability::SessionList,
            Capability::SessionPersistence,
            Capability::Permission,
            Capability::SessionCanStopRuntime,
        ]
    }

    async fn availability(
        &self,
        ctx: &ProviderContext,
        _options: &ProviderCatalogOptions,
    ) -> ProviderAvailability {
        probe_pause(ctx).await;
        ProviderAvailability::available()
    }

    async fn catalog_cache_key(
        &self,
        ctx: &ProviderContext,
        _options: &ProviderCatalogOptions,
    ) -> Option<String> {
        probe_pause(ctx).await;
        Some(format!("demo:{}", env!("CARGO_PKG_VERSION")))
    }

    async fn catalog(
        &self,
        _ctx: &ProviderContext,
        _query: CatalogQuery,
    ) -> Result<ProviderCatalog, ProviderError> {
        Ok(catalog::catalog())
    }

    async fn list_sessions(
        &self,
        ctx: &ProviderContext,
        query: SessionsQuery,
    ) -> Result<Vec<ProviderSessionSummary>, ProviderError> {
        let Some(dir) = &ctx.data_dir else {
            return Ok(vec![]);
        };
        let mut sessions = store::list(dir, query.cwd.as_deref(), None).await;
        if let Some(q) = query
            .query
            .as_deref()
            .map(str::to_lowercase)
            .filter(|q| !q.is_empty())
        {
            sessions.retain(|s| {
                [&s.title, &s.first_prompt_preview, &s.last_prompt_preview]
                    .iter()
                    .any(|f| f.as_deref().is_some_and(|t| t.to_lowercase().contains(&q)))
            });
        }
        sessions.truncate(query.limit.map(|l| l as usize).unwrap_or(usize::MAX));
        Ok(sessions)
    }

    async fn open(
        &self,
        ctx: &ProviderContext,
        request: OpenRequest,
        sink: SessionSink,
    ) -> Result<OpenedSession, ProviderError> {
        let OpenRequest {
            session_id: _,
            config,
            persistence,
            history,
            scope,
        } = request;
        let demo_config = DemoConfig::from_open(&config)?;
        if let Some(delay) = open_delay(&ctx.launch) {
            tokio::time::sleep(delay).await;
        }
        if !tokio::fs::metadata(&config.cwd)
            .await
            .is_ok_and(|m| m.is_dir())
        {
            return Err(ProviderError::new(format!(
                "cwd `{}` is not a directory",
                config.cwd
            )));
        }
        let data_dir = ctx.data_dir.clone();
        let (stored, resumed) = match &persistence {
            Some(p) => {
                let id = store::session_id_of(p)?;
                let dir = data_dir
                    .as_ref()
                    .ok_or_else(|| ProviderError::new("no data folder to resume from"))?;
                (store::load(dir, &id).await?, true)
            }
            None => (
                StoredSession {
                    session_id: uuid::Uuid::new_v4().to_string(),
                    cwd: config.cwd.clone(),
                    title: config.title.clone(),
                    updated_at: store::now_stamp(),
                    prompts: vec![],
                    items: vec![],
                },
                false,
            ),
        };
        let persist = config.persist || resumed;
        let replay = if history == HistoryMode::Replay {
            stored.items.clone()
        } else {
            vec![]
        };
        let session_persistence = persist.then(|| stored.persistence());
        let title = stored.title.clone();
        let session = DemoSession::new(
            sink,
            demo_config.clone(),
            config.cwd.clone(),
            Some(ctx.launch.effective_env(&config.env)),
            Default::default(),
            if persist { data_dir } else { None },
            stored,
        )
        .with_scope(scope);
        let mut opened = OpenedSession::new(Box::new(session), demo_config.state());
        opened.persistence = session_persistence;
        opened.title = title;
        opened.replay = replay;
        opened.commands = commands();
        Ok(opened)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_delay_reads_the_launch_env_and_is_capped() {
        let mut launch = LaunchOverride::default();
        assert_eq!(open_delay(&launch), None);
        launch.env = Some([(OPEN_DELAY_VAR.to_string(), "250".to_string())].into());
        assert_eq!(open_delay(&launch), Some(Duration::from_millis(250)));
        launch
            .extra_env
            .insert(OPEN_DELAY_VAR.into(), "999999".into());
        assert_eq!(open_delay(&launch), Some(MAX_OPEN_DELAY));
        launch
            .extra_env
            .insert(OPEN_DELAY_VAR.into(), "soon".into());
        assert_eq!(open_delay(&launch), None);
    }

    #[test]
    fn probe_delay_reads_the_launch_env() {
        let mut launch = LaunchOverride {
            env: Some([(PROBE_DELAY_VAR.to_string(), "40".to_string())].into()),
            ..LaunchOverride::default()
        };
        assert_eq!(probe_delay(&launch), Some(Duration::from_millis(40)));
        launch.env = Some(Default::default());
        assert_eq!(probe_delay(&launch), None);
    }
}
