//! App-server queries shared by discovery and open: models, config defaults, a thread's turns,
//! and the translation of Paseo's MCP servers into a `config.toml` override.

use crate::catalog;
use crate::launch::call_error;
use crate::wire::notify::method;
use crate::wire::params::TurnsListParams;
use crate::wire::thread::{Model, Page, Turn};
use agent_bridge_core::rpc::PeerHandle;
use agent_bridge_protocol::{McpServerConfig, ProviderError};
use serde_json::{json, Map, Value};

const PAGE_LIMIT: usize = 20;

pub async fn fetch_models(rpc: &PeerHandle) -> Result<Vec<Model>, ProviderError> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..PAGE_LIMIT {
        let v = rpc
            .call(method::MODEL_LIST, json!({ "cursor": cursor }))
            .await
            .map_err(|e| call_error(e, ""))?;
        let page: Page<Model> = serde_json::from_value(v)
            .map_err(|e| ProviderError::new(format!("unreadable model/list answer: {e}")))?;
        out.extend(page.data);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    Ok(out)
}

/// The parts of `config/read` that pick defaults.
#[derive(Debug, Default)]
pub struct Defaults {
    pub model: Option<String>,
    pub effort: Option<String>,
    pub mode: Option<&'static str>,
    /// The MCP servers `config.toml` configures (for `deniedTools`).
    pub mcp_servers: crate::tool_denial::ConfiguredServers,
    /// The controls' defaults (`web_search`, `sandbox_workspace_write.network_access`,
    /// `model_reasoning_summary`).
    pub controls: crate::options::Controls,
}

pub async fn read_defaults(rpc: &PeerHandle, cwd: Option<&str>) -> Defaults {
    match rpc.call(method::CONFIG_READ, json!({ "cwd": cwd })).await {
        Ok(v) => {
            let c = &v["config"];
            let s = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
            Defaults {
                model: s("model"),
                effort: s("model_reasoning_effort"),
                mode: catalog::mode_of(&c["approval_policy"], &c["sandbox_mode"]),
                mcp_servers: crate::tool_denial::configured_servers(c),
                controls: crate::options::Controls::configured(c),
            }
        }
        Err(e) => {
            tracing::warn!("config/read failed: {e}");
            Defaults::default()
        }
    }
}

pub fn mcp_servers(
    servers: &std::collections::BTreeMap<String, McpServerConfig>,
) -> Option<Map<String, Value>> {
    if servers.is_empty() {
        return None;
    }
    let mut out = Map::new();
    for (name, s) in servers {
        let v = match s {
            McpServerConfig::Stdio {
                command, args, env, ..
            } => json!({ "command": command, "args": args.clone().unwrap_or_default(),
                         "env": env.clone().unwrap_or_default() }),
            McpServerConfig::Http { url, headers, .. }
            | McpServerConfig::Sse { url, headers, .. } => {
                json!({ "url": url, "http_headers": headers.clone().unwrap_or_default() })
            }
        };
        out.insert(name.clone(), v);
    }
    let mut config = Map::new();
    config.insert("mcp_servers".into(), Value::Object(out));
    Some(config)
}

/// A resumed thread's turns, oldest first, paged with `thread/turns/list`.
pub async fn load_turns(rpc: &PeerHandle, thread_id: &str) -> Result<Vec<Turn>, ProviderError> {
    let mut turns = Vec::new();
    let mut cursor = None;
    for _ in 0..PAGE_LIMIT * 5 {
        let params = TurnsListParams {
            thread_id: thread_id.to_string(),
            items_view: "full".into(),
            sort_direction: "asc".into(),
            limit: 100,
            cursor,
        };
        let v = rpc
            .call(method::THREAD_TURNS_LIST, json!(params))
            .await
            .map_err(|e| call_error(e, ""))?;
        let page: Page<Turn> = serde_json::from_value(v)
            .map_err(|e| ProviderError::new(format!("unreadable thread/turns/list answer: {e}")))?;
        turns.extend(page.data);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    Ok(turns)
}
