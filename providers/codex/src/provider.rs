//! [`CodexProvider`]: availability, catalog, session list and open/resume.

use crate::auth::AuthCache;
use crate::catalog::{self};
use crate::history;
use crate::launch::{self, call_error};
use crate::queries::{fetch_models, read_defaults};
use crate::sandbox_cache::{launch_key, SandboxCache};
use crate::spare::CodexProcesses;
use crate::wire::notify::method;
use crate::wire::params::ThreadListParams;
use crate::wire::thread::{Page, Thread};
use agent_bridge_core::lifecycle::{ProcessOptions, Sharing};
use agent_bridge_core::registry::ProviderManifest;
use agent_bridge_core::spares::Spares;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{
    CatalogQuery, OpenRequest, OpenedSession, Provider, ProviderContext, SessionSink, SessionsQuery,
};
use agent_bridge_protocol::{
    Capability, ProviderAvailability, ProviderCatalog, ProviderCatalogOptions, ProviderError,
    ProviderPersistence, ProviderSessionSummary,
};
use async_trait::async_trait;
use serde_json::json;

/// The Codex provider (`codex app-server`).
#[derive(Debug)]
pub struct CodexProvider {
    pub(crate) sandbox: SandboxCache,
    auth: AuthCache,
    /// How its sessions get their app-server: a shared one (the default, see
    /// docs/providers/codex.md for why) or their own with a prestarted spare.
    pub(crate) processes: CodexProcesses,
}

impl Default for CodexProvider {
    fn default() -> Self {
        Self::with_processes(
            "codex-bridge",
            &ProcessOptions::defaults(Sharing::ByDefault),
            &Spares::from_env(),
        )
    }
}

impl CodexProvider {
    pub fn new() -> Self {
        Self::default()
    }

    /// A provider `id` whose sessions get their app-servers as `options` say.
    pub fn with_processes(id: &str, options: &ProcessOptions, spares: &Spares) -> Self {
        CodexProvider {
            sandbox: SandboxCache::default(),
            auth: AuthCache::default(),
            processes: CodexProcesses::new(id, options, spares, launch::CLOSE_LIMIT),
        }
    }

    /// The provider of one plugin.json entry, with the bridge's `spares`: its `options` may
    /// hold the core's process options (`processPerSession`, `warmSpares`); anything else is
    /// logged and ignored.
    pub fn from_entry(entry: &ProviderManifest, spares: &Spares) -> Self {
        for key in entry.options.keys() {
            if !ProcessOptions::is_option(key) {
                tracing::warn!(provider = %entry.id, "unknown option `{key}` ignored");
            }
        }
        let options = ProcessOptions::from_options(&entry.id, &entry.options, Sharing::ByDefault);
        Self::with_processes(&entry.id, &options, spares)
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
        let shared = self.processes.shared().is_some();
        agent_bridge_core::lifecycle::shared::open_again_if_died(shared, "Codex app-server", || {
            crate::open::open(self, ctx, request.clone(), sink.clone())
        })
        .await
    }
}

#[cfg(test)]
#[path = "provider_tests.rs"]
mod tests;
