//! Params and results of the bridge's JSON-RPC methods (`docs/wire.md`).

use crate::{
    Capability, ProviderAvailability, ProviderCatalogOptions, ProviderEvent, ProviderInput,
    ProviderPersistence, TimelineItem,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const METHOD_INITIALIZE: &str = "initialize";
pub const METHOD_AVAILABILITY: &str = "provider/availability";
pub const METHOD_CATALOG_CACHE_KEY: &str = "provider/catalogCacheKey";
pub const METHOD_CONNECT: &str = "provider/connect";
pub const METHOD_SEND: &str = "provider/send";
pub const METHOD_CLOSE: &str = "provider/close";
pub const METHOD_READ_SESSION_HISTORY: &str = "provider/readSessionHistory";
pub const METHOD_SHUTDOWN: &str = "shutdown";
pub const METHOD_EVENT: &str = "provider/event";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    pub api_version: u32,
    /// Required (docs/wire.md): who is talking to the bridge, for its logs.
    pub host: HostInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "PluginInfo")]
    pub plugin: Option<PluginInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostInfo {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub dir: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub data_dir: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResponse {
    pub api_version: u32,
    pub bridge: BridgeInfo,
    pub providers: Vec<ProviderInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BridgeInfo {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderInfo {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    pub capabilities: Vec<Capability>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvailabilityParams {
    pub provider_id: String,
    /// Required (docs/wire.md), `{}` at least.
    pub options: ProviderCatalogOptions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub timeout_ms: Option<u64>,
    /// The launch to probe (as a connect request's `launch`); absent: the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LaunchSpec")]
    pub launch: Option<LaunchSpec>,
}

pub type AvailabilityResponse = ProviderAvailability;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CatalogCacheKeyParams {
    pub provider_id: String,
    /// Required (docs/wire.md), `{}` at least.
    pub options: ProviderCatalogOptions,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogCacheKeyResponse {
    pub key: Option<String>,
}

/// `launch` of the connect request: replaces the provider's command, argument prefix and env.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct LaunchSpec {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// `ProviderConnectRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConnectRequest {
    pub versions: Vec<u32>,
    pub capabilities: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LaunchSpec")]
    pub launch: Option<LaunchSpec>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectParams {
    pub provider_id: String,
    pub request: ConnectRequest,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectResponse {
    pub connection_id: String,
    pub version: u32,
    pub capabilities: Vec<Capability>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendParams {
    pub connection_id: String,
    pub input: ProviderInput,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CloseParams {
    pub connection_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventNotification {
    pub connection_id: String,
    pub event: ProviderEvent,
}

/// `provider/readSessionHistory`: the stored history of a native session, read without a live
/// session (Paseo's `readSessionHistory({ persistence, cwd, env, launch })`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadSessionHistoryParams {
    pub provider_id: String,
    /// The opaque handle a `session.opened` or `session.persistence` carried.
    pub persistence: ProviderPersistence,
    /// The session's working directory.
    pub cwd: String,
    /// The session's environment (as a `session.open` config's `env`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub env: Option<BTreeMap<String, String>>,
    /// The launch to read with (as a connect request's); absent: the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LaunchSpec")]
    pub launch: Option<LaunchSpec>,
}

/// How much of the history a read returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum HistoryCoverage {
    /// Every stored row.
    Complete,
}

/// The answer to `provider/readSessionHistory`: complete timeline snapshots in provider order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadSessionHistoryResponse {
    pub items: Vec<TimelineItem>,
    pub coverage: HistoryCoverage,
}
