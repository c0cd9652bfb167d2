//! The agent modules this binary carries, by the `agent` name used in `plugin.json`.

use agent_bridge_core::registry::ProviderManifest;
use agent_bridge_core::spares::Spares;
use agent_bridge_core::Provider;
use std::sync::Arc;

/// Every agent name this build can serve.
pub const KNOWN_AGENTS: &[&str] = &["demo", "claude", "codex", "acp"];

/// Builds the provider of one `plugin.json` entry (its agent name picks the module, which gets
/// the whole entry: id, command, env, options, capabilities, and the bridge's `spares`, which
/// the core's `ProcessChoice` of the provider uses); `None` for an unknown agent.
pub fn build(entry: &ProviderManifest, spares: &Spares) -> Option<Arc<dyn Provider>> {
    match entry.agent.as_str() {
        "demo" => Some(Arc::new(agent_bridge_demo::DemoProvider::new())),
        "claude" => Some(Arc::new(agent_bridge_claude::ClaudeProvider::from_entry(
            entry, spares,
        ))),
        "codex" => Some(Arc::new(agent_bridge_codex::CodexProvider::from_entry(
            entry, spares,
        ))),
        "acp" => Some(Arc::new(agent_bridge_acp::AcpProvider::from_entry(
            entry, spares,
        ))),
        _ => None,
    }
}
