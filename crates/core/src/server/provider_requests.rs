//! The provider-level requests answered from tasks of their own: `provider/availability` and
//! `provider/catalogCacheKey`, each within its time limit and one of the bounded in-flight
//! slots.

use super::{State, AVAILABILITY_TIMEOUT};
use crate::agent::ProviderContext;
use crate::limits::CATALOG_CACHE_KEY_TIMEOUT;
use crate::registry::ProviderEntry;
use agent_bridge_protocol::jsonrpc::RequestId;
use agent_bridge_protocol::wire::*;
use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability};
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
}

impl State {
    /// Answers a provider-level request from a task of its own (once one of the bounded
    /// in-flight slots is free): finds the provider, runs `work` with the params' launch (else
    /// the provider's default). A refusal is answered at once.
    async fn provider_request<P, F, Fut>(&self, id: RequestId, params: P, work: F)
    where
        P: NamesProvider + Send + 'static,
        F: FnOnce(Arc<ProviderEntry>, ProviderContext, P) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Value> + Send + 'static,
    {
        let out = self.out.clone();
        match self.entry(params.provider_id()) {
            Ok(entry) => {
                let ctx = self.context(&entry, params.launch());
                let ticket = self.inflight.begin(&id).await;
                tokio::spawn(async move {
                    let result = work(entry, ctx, params).await;
                    out.respond(id, result).await;
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
                serde_json::to_value(result).unwrap_or(Value::Null)
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
                serde_json::json!({ "key": key })
            },
        )
        .await;
    }
}
