//! What a reopen needs (the ACP session id and its cwd), how to reopen (`session/load`, which
//! replays the history, or `session/resume`, which does not), `session/list` entries as Paseo
//! summaries, and MCP servers in the transports the agent takes.

use crate::wire::acp::{
    EnvVariable, HttpHeader, McpServer, McpServerHttp, McpServerSse, McpServerStdio,
};
use crate::wire::{method, AgentCapabilities, ListedSession};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    HistoryMode, McpServerConfig, ProviderError, ProviderPersistence, ProviderSessionSummary,
};
use serde_json::json;
use std::collections::BTreeMap;

pub const VERSION: u32 = 1;

pub fn persistence(session_id: &str, cwd: &str) -> ProviderPersistence {
    ProviderPersistence {
        version: VERSION,
        data: json!({ "sessionId": session_id, "cwd": cwd }),
    }
}

/// The session id and cwd of a persistence blob.
pub fn session_of(p: &ProviderPersistence) -> Result<(String, Option<String>), ProviderError> {
    let id = p.data["sessionId"]
        .as_str()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            ProviderError::new("the persistence has no ACP `sessionId`")
                .with_code(ErrorCode::InvalidPersistence)
        })?;
    Ok((id.to_string(), p.data["cwd"].as_str().map(str::to_string)))
}

/// `session/load` when the history is wanted (it is the only way to get it) or when resume is
/// not advertised; `session/resume` when the history is skipped and the agent has it.
pub fn reopen_method(caps: &AgentCapabilities, history: HistoryMode) -> Option<&'static str> {
    let resume = caps.session("resume");
    match (caps.load_session, resume) {
        (true, false) => Some(method::SESSION_LOAD),
        (true, true) if history == HistoryMode::Replay => Some(method::SESSION_LOAD),
        (_, true) => Some(method::SESSION_RESUME),
        (false, false) => None,
    }
}

pub fn summary(s: &ListedSession, fallback_cwd: Option<&str>) -> ProviderSessionSummary {
    let cwd = s
        .cwd
        .clone()
        .or_else(|| fallback_cwd.map(str::to_string))
        .unwrap_or_default();
    ProviderSessionSummary {
        persistence: persistence(&s.session_id, &cwd),
        cwd,
        title: s.title.clone().filter(|t| !t.trim().is_empty()),
        description: None,
        updated_at: s.updated_at.clone(),
        first_prompt_preview: None,
        last_prompt_preview: None,
    }
}

fn env(map: Option<&BTreeMap<String, String>>) -> Vec<EnvVariable> {
    map.into_iter()
        .flatten()
        .map(|(k, v)| EnvVariable::new(k.as_str(), v.as_str()))
        .collect()
}

fn headers(map: Option<&BTreeMap<String, String>>) -> Vec<HttpHeader> {
    map.into_iter()
        .flatten()
        .map(|(k, v)| HttpHeader::new(k.as_str(), v.as_str()))
        .collect()
}

/// The session's MCP servers as ACP `McpServer`s: stdio always (every agent must take it),
/// http and sse only where `mcpCapabilities` allows; others are refused, never dropped.
pub fn mcp_servers(
    servers: &BTreeMap<String, McpServerConfig>,
    caps: &AgentCapabilities,
) -> Result<Vec<McpServer>, ProviderError> {
    let refuse = |name: &str, transport: &str| {
        ProviderError::new(format!(
            "MCP server `{name}` uses {transport}, which this agent does not take (mcpCapabilities.{transport} is false)"
        ))
        .with_code(ErrorCode::UnsupportedMcpTransport)
    };
    servers
        .iter()
        .map(|(name, s)| match s {
            McpServerConfig::Stdio {
                command,
                args,
                env: env_vars,
                ..
            } => Ok(McpServer::Stdio(
                McpServerStdio::new(name.as_str(), command.as_str())
                    .args(args.clone().unwrap_or_default())
                    .env(env(env_vars.as_ref())),
            )),
            McpServerConfig::Http {
                url, headers: hs, ..
            } => {
                if !caps.mcp_capabilities.http {
                    return Err(refuse(name, "http"));
                }
                Ok(McpServer::Http(
                    McpServerHttp::new(name.as_str(), url.as_str()).headers(headers(hs.as_ref())),
                ))
            }
            McpServerConfig::Sse {
                url, headers: hs, ..
            } => {
                if !caps.mcp_capabilities.sse {
                    return Err(refuse(name, "sse"));
                }
                Ok(McpServer::Sse(
                    McpServerSse::new(name.as_str(), url.as_str()).headers(headers(hs.as_ref())),
                ))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::Value;

    fn caps(v: Value) -> AgentCapabilities {
        serde_json::from_value(v).expect("caps")
    }

    #[test]
    fn reopen_loads_for_a_replay_and_resumes_otherwise() {
        let both = caps(json!({"loadSession": true, "sessionCapabilities": {"resume": {}}}));
        assert_eq!(
            reopen_method(&both, HistoryMode::Replay),
            Some(method::SESSION_LOAD)
        );
        assert_eq!(
            reopen_method(&both, HistoryMode::Skip),
            Some(method::SESSION_RESUME)
        );
        let load = caps(json!({"loadSession": true}));
        assert_eq!(
            reopen_method(&load, HistoryMode::Skip),
            Some(method::SESSION_LOAD)
        );
        assert_eq!(reopen_method(&caps(json!({})), HistoryMode::Replay), None);
    }

    #[test]
    fn persistence_round_trips_and_refuses_junk() {
        let p = persistence("s1", "/w");
        assert_eq!(session_of(&p).unwrap(), ("s1".into(), Some("/w".into())));
        let junk = ProviderPersistence {
            version: 1,
            data: json!({"threadId": "x"}),
        };
        assert_eq!(
            session_of(&junk).unwrap_err().code,
            Some(ErrorCode::InvalidPersistence)
        );
    }

    #[test]
    fn mcp_transports_follow_the_agents_capabilities() {
        let servers: BTreeMap<String, McpServerConfig> = serde_json::from_value(json!({
            "local": {"type": "stdio", "command": "srv", "args": ["-v"], "env": {"A": "1"}},
            "remote": {"type": "sse", "url": "http://127.0.0.1:1/sse"}
        }))
        .unwrap();
        let codex_acp = caps(json!({"mcpCapabilities": {"http": true, "sse": false}}));
        let e = mcp_servers(&servers, &codex_acp).unwrap_err();
        assert_eq!(e.code, Some(ErrorCode::UnsupportedMcpTransport));
        let all = caps(json!({"mcpCapabilities": {"http": true, "sse": true}}));
        assert_eq!(
            json!(mcp_servers(&servers, &all).unwrap()),
            json!([
                json!({"name": "local", "command": "srv", "args": ["-v"], "env": [{"name": "A", "value": "1"}]}),
                json!({"type": "sse", "name": "remote", "url": "http://127.0.0.1:1/sse", "headers": []})
            ])
        );
    }
}
