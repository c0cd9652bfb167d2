//! `session.list` for an ACP agent: `session/list` pages (up to the query's limit) as Paseo
//! summaries, filtered by the query's words; sessions the agent's own server says are archived
//! ([`crate::opencode::archive`]) are left out, since ACP's list has no such field.

use crate::launch::Agent;
use crate::persistence;
use crate::wire::{method, requests, SessionList};
use agent_bridge_core::SessionsQuery;
use agent_bridge_protocol::{ErrorCode, ProviderError, ProviderSessionSummary};

use std::collections::HashSet;

/// The agent's sessions for `query` (the agent runs in the query's folder).
pub async fn list(
    agent: &Agent,
    label: &str,
    query: &SessionsQuery,
) -> Result<Vec<ProviderSessionSummary>, ProviderError> {
    if !agent.init.agent_capabilities.session("list") {
        return Err(ProviderError::new(format!(
            "{label} does not list sessions (no sessionCapabilities.list)"
        ))
        .with_code(ErrorCode::Unsupported));
    }
    let archived = match &agent.server {
        Some(http) => crate::opencode::archive::archived(http).await?,
        None => HashSet::new(),
    };
    let limit = query.limit.unwrap_or(50).min(200) as usize;
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = requests::list_sessions(query.cwd.as_deref(), cursor.as_deref());
        let page: SessionList = match agent.runtime.rpc().call(method::SESSION_LIST, params).await {
            Ok(v) => serde_json::from_value(v).unwrap_or_default(),
            Err(e) => return Err(agent.error(e)),
        };
        out.extend(
            page.sessions
                .iter()
                .filter(|s| !archived.contains(&s.session_id))
                .map(|s| persistence::summary(s, query.cwd.as_deref())),
        );
        match page.next_cursor {
            Some(next) if out.len() < limit && !page.sessions.is_empty() => cursor = Some(next),
            _ => break,
        }
    }
    if let Some(q) = query.query.as_deref().filter(|q| !q.is_empty()) {
        let q = q.to_lowercase();
        out.retain(|s| {
            s.title
                .as_deref()
                .is_some_and(|t| t.to_lowercase().contains(&q))
        });
    }
    out.truncate(limit);
    Ok(out)
}
