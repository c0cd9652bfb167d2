//! The provider-level requests answered from tasks of their own: `provider/availability`,
//! `provider/catalogCacheKey` and `provider/readSessionHistory`, each within its time limit and
//! one of the bounded in-flight slots.

use super::{State, AVAILABILITY_TIMEOUT};
use crate::agent::ProviderContext;
use crate::history::{read_history, HistoryRead};
use crate::limits::CATALOG_CACHE_KEY_TIMEOUT;
use crate::registry::ProviderEntry;
use agent_bridge_protocol::jsonrpc::{RequestId, RpcError, RpcErrorCode};
use agent_bridge_protocol::wire::*;
use agent_bridge_protocol::{AvailabilityStatus, Capability, ProviderAvailability};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Params that name the provider they are for (and may carry the launch to use).
trait NamesProvider {
    fn provider_id(&self) -> &str;
    fn launch(&self) -> Option<LaunchSpec> {
        None
    }
}

impl NamesProvider for AvailabilityParams {
    fn provider_id(&self) -> &str {
        &self.provider_id
    }
    fn launch(&self) -> Option<LaunchSpec> {
        self.launch.clone()
    }
}

impl NamesProvider for CatalogCacheKeyParams {
    fn provider_id(&self) -> &str {
        &self.provider_id
    }
    /// Paseo's `provider.catalog_key` options carry the launch it will connect with.
    fn launch(&self) -> Option<LaunchSpec> {
        self.options.launch.clone()
    }
}

impl NamesProvider for ReadSessionHistoryParams {
    fn provider_id(&self) -> &str {
        &self.provider_id
    }
    fn launch(&self) -> Option<LaunchSpec> {
        self.launch.clone()
    }
}

impl State {
    /// Answers a provider-level request from a task of its own (once one of the bounded
    /// in-flight slots is free): finds the provider, runs `work` with the params' launch (else
    /// the provider's default). A refusal is answered at once.
    async fn provider_request<P, F, Fut>(&self, id: RequestId, params: P, work: F)
    where
        P: NamesProvider + Send + 'static,
        F: FnOnce(Arc<ProviderEntry>, ProviderContext, P) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        let out = self.out.clone();
        match self.entry(params.provider_id()) {
            Ok(entry) => {
                let ctx = self.context(&entry, params.launch());
                let ticket = self.inflight.begin(&id).await;
                tokio::spawn(async move {
                    match work(entry, ctx, params).await {
                        Ok(result) => out.respond(id, result).await,
                        Err(err) => out.respond_error(Some(id), err).await,
                    }
                    drop(ticket);
                });
            }
            Err(err) => out.respond_error(Some(id), err).await,
        }
    }

    pub(super) async fn availability(&self, id: RequestId, params: AvailabilityParams) {
        self.provider_request(
            id,
            params,
            |entry, ctx, params: AvailabilityParams| async move {
                let limit = params
                    .timeout_ms
                    .map(Duration::from_millis)
                    .unwrap_or(AVAILABILITY_TIMEOUT);
                let probe = entry.provider.availability(&ctx, &params.options);
                let result = match tokio::time::timeout(limit, probe).await {
                    Ok(a) => a,
                    Err(_) => ProviderAvailability::with(
                        AvailabilityStatus::Unrunnable,
                        format!(
                            "the availability probe did not finish within {} ms",
                            limit.as_millis()
                        ),
                    ),
                };
                Ok(serde_json::to_value(result).unwrap_or(Value::Null))
            },
        )
        .await;
    }

    pub(super) async fn cache_key(&self, id: RequestId, params: CatalogCacheKeyParams) {
        self.provider_request(
            id,
            params,
            |entry, ctx, params: CatalogCacheKeyParams| async move {
                let probe = entry.provider.catalog_cache_key(&ctx, &params.options);
                let key = match tokio::time::timeout(CATALOG_CACHE_KEY_TIMEOUT, probe).await {
                    Ok(key) => key,
                    Err(_) => {
                        tracing::warn!(
                            provider = %entry.descriptor.id,
                            "the catalog cache key did not come within {} s; answering no caching",
                            CATALOG_CACHE_KEY_TIMEOUT.as_secs()
                        );
                        None
                    }
                };
                // Two launches of one provider never share a catalog: the key of a request
                // that names its launch carries a digest of the whole effective launch.
                let key = match (key, &params.options.launch) {
                    (Some(key), Some(_)) => Some(format!("{key}|launch:{}", launch_digest(&ctx))),
                    (key, _) => key,
                };
                Ok(serde_json::json!({ "key": key }))
            },
        )
        .await;
    }
}

impl State {
    pub(super) async fn read_session_history(
        &self,
        id: RequestId,
        params: ReadSessionHistoryParams,
    ) {
        self.provider_request(
            id,
            params,
            |entry, ctx, params: ReadSessionHistoryParams| async move {
                if !entry
                    .capabilities()
                    .contains(&Capability::SessionPersistence)
                {
                    return Err(RpcError::new(
                        RpcErrorCode::InvalidParams,
                        format!(
                            "provider `{}` keeps no sessions (it does not offer `session.persistence`)",
                            entry.descriptor.id
                        ),
                    ));
                }
                let read = HistoryRead {
                    persistence: params.persistence,
                    cwd: params.cwd,
                    env: params.env.unwrap_or_default(),
                };
                match read_history(entry.provider.clone(), &ctx, read).await {
                    Ok(items) => {
                        let response = ReadSessionHistoryResponse {
                            items,
                            coverage: HistoryCoverage::Complete,
                        };
                        serde_json::to_value(response)
                            .map_err(|e| RpcError::new(RpcErrorCode::Internal, e.to_string()))
                    }
                    Err(error) => {
                        let message = format!(
                            "{} could not read the session's history: {}",
                            entry.descriptor.label, error.message
                        );
                        let mut err = RpcError::new(RpcErrorCode::Unavailable, message);
                        if let Some(diagnostic) = error.diagnostic {
                            err = err.with_diagnostic(diagnostic);
                        }
                        Err(err)
                    }
                }
            },
        )
        .await;
    }
}

/// A stable digest (64-bit FNV-1a, hex) of the launch a context runs: program, argument prefix,
/// base environment and the variables set on top, in a fixed order.
fn launch_digest(ctx: &ProviderContext) -> String {
    let launch = &ctx.launch;
    let mut text = String::new();
    let mut field = |part: &str| {
        text.push_str(&part.len().to_string());
        text.push(':');
        text.push_str(part);
    };
    field(launch.command.as_deref().unwrap_or(""));
    for arg in &launch.args {
        field(arg);
    }
    field("|env");
    for (key, value) in launch.env.iter().flatten() {
        field(key);
        field(value);
    }
    field("|extra");
    for (key, value) in &launch.extra_env {
        field(key);
        field(value);
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}
