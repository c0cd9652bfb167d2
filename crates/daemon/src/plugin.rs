//! Finds the plugin folder and turns `plugin.json` into provider entries.

use crate::agents;
use agent_bridge_core::registry::{PluginManifest, ProviderEntry};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The manifest this binary was built with, used when no plugin folder is found.
const EMBEDDED_MANIFEST: &str = include_str!("../../../plugin.json");

/// The plugin folder: `--plugin-dir`, else `AGENT_BRIDGE_PLUGIN_DIR`, else the working
/// directory when it holds `plugin.json` (Paseo starts the bridge there), else the nearest
/// ancestor of the executable that holds one.
pub fn plugin_dir(explicit: Option<PathBuf>) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir);
    }
    if let Some(dir) = std::env::var_os("AGENT_BRIDGE_PLUGIN_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Ok(cwd) = std::env::current_dir() {
        if cwd.join("plugin.json").is_file() {
            return Some(cwd);
        }
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .find(|d| d.join("plugin.json").is_file())
        .map(Path::to_path_buf)
}

/// Loads the manifest and builds an entry per provider whose agent this build carries.
pub fn load(dir: Option<&Path>) -> anyhow::Result<(PluginManifest, Vec<Arc<ProviderEntry>>)> {
    let manifest = match dir {
        Some(dir) => PluginManifest::load(dir)
            .with_context(|| format!("loading the plugin manifest in {}", dir.display()))?,
        None => PluginManifest::parse(EMBEDDED_MANIFEST, Path::new("<embedded plugin.json>"))?,
    };
    let mut entries = Vec::new();
    for p in &manifest.providers {
        match agents::build(p) {
            Some(provider) => entries.push(Arc::new(ProviderEntry::new(
                p,
                manifest.icon.as_deref(),
                provider,
            ))),
            None => tracing::warn!(
                provider = %p.id,
                agent = %p.agent,
                "unknown agent in plugin.json; this build knows {:?}",
                agents::KNOWN_AGENTS
            ),
        }
    }
    Ok((manifest, entries))
}
