//! The agent modules this binary carries, by the `agent` name used in `plugin.json`.

use agent_bridge_core::Provider;
use std::sync::Arc;

/// Every agent name this build can serve.
pub const KNOWN_AGENTS: &[&str] = &["demo", "claude", "codex"];

/// Builds the provider for an agent name from `plugin.json`; `None` for an unknown name.
pub fn build(agent: &str) -> Option<Arc<dyn Provider>> {
    match agent {
        "demo" => Some(Arc::new(agent_bridge_demo::DemoProvider::new())),
        "claude" => Some(Arc::new(agent_bridge_claude::ClaudeProvider::new())),
        "codex" => Some(Arc::new(agent_bridge_codex::CodexProvider::new())),
        _ => None,
    }
}
