//! What the `initialize` answer declares, from what the provider declares.

use agent_bridge_protocol::wire::ProviderInfo;
use agent_bridge_protocol::Capability;
use agent_client_protocol_schema::v1::{
    AgentCapabilities, McpCapabilities, PromptCapabilities, SessionCapabilities,
    SessionCloseCapabilities, SessionListCapabilities, SessionResumeCapabilities,
};

/// The agent capabilities for `provider` (of agent family `agent`: `claude`, `codex`, `acp`,
/// `demo`).
///
/// - `loadSession` and `session.resume`: the provider publishes persistence handles;
/// - `session.list`: it lists its sessions;
/// - `session.close`: always (the core closes any session);
/// - prompt images: `prompt.image`; embedded context: always (sent as text attachments);
/// - MCP: stdio always (ACP requires it); HTTP for Claude, Codex and ACP agents; SSE for Claude
///   and ACP agents (Codex's config takes no SSE server). The demo runs no MCP server at all.
pub fn agent_capabilities(provider: &ProviderInfo, agent: &str) -> AgentCapabilities {
    let has = |c: Capability| provider.capabilities.contains(&c);
    let persistent = has(Capability::SessionPersistence);
    let mut session = SessionCapabilities::new().close(SessionCloseCapabilities::new());
    if has(Capability::SessionList) {
        session = session.list(SessionListCapabilities::new());
    }
    if persistent {
        session = session.resume(SessionResumeCapabilities::new());
    }
    let (http, sse) = match agent {
        "claude" | "acp" => (true, true),
        "codex" => (true, false),
        _ => (false, false),
    };
    AgentCapabilities::new()
        .load_session(persistent)
        .prompt_capabilities(
            PromptCapabilities::new()
                .image(has(Capability::PromptImage))
                .embedded_context(true),
        )
        .mcp_capabilities(McpCapabilities::new().http(http).sse(sse))
        .session_capabilities(session)
}
