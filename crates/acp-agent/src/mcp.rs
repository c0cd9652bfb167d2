//! ACP `mcpServers` (of `session/new`, `session/load`, `session/resume`) as the session's
//! `mcpServers` config, by name: stdio, HTTP and SSE servers reach the agent as Paseo's would.

use agent_bridge_protocol::McpServerConfig;
use agent_client_protocol_schema::v1::McpServer;
use std::collections::BTreeMap;

pub fn servers(servers: &[McpServer]) -> BTreeMap<String, McpServerConfig> {
    let mut out = BTreeMap::new();
    for server in servers {
        let (name, config) = match server {
            McpServer::Stdio(s) => (
                s.name.clone(),
                McpServerConfig::Stdio {
                    command: s.command.display().to_string(),
                    args: Some(s.args.clone()),
                    env: Some(
                        s.env
                            .iter()
                            .map(|e| (e.name.clone(), e.value.clone()))
                            .collect(),
                    ),
                    always_load: None,
                },
            ),
            McpServer::Http(h) => (
                h.name.clone(),
                McpServerConfig::Http {
                    url: h.url.clone(),
                    headers: Some(
                        h.headers
                            .iter()
                            .map(|e| (e.name.clone(), e.value.clone()))
                            .collect(),
                    ),
                    always_load: None,
                },
            ),
            McpServer::Sse(h) => (
                h.name.clone(),
                McpServerConfig::Sse {
                    url: h.url.clone(),
                    headers: Some(
                        h.headers
                            .iter()
                            .map(|e| (e.name.clone(), e.value.clone()))
                            .collect(),
                    ),
                    always_load: None,
                },
            ),
            _ => {
                tracing::warn!("an MCP server of a kind this bridge does not know was skipped");
                continue;
            }
        };
        out.insert(name, config);
    }
    out
}
