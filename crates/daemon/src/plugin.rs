//! Finds the plugin folder and turns `plugin.json` into provider entries.

use crate::agents;
use agent_bridge_core::registry::{PluginManifest, ProviderEntry};
use agent_bridge_core::spares::Spares;
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The manifest this binary was built with, used when no plugin folder is found.
const EMBEDDED_MANIFEST: &str = include_str!("../../../plugin.json");

/// The plugin folder (see [`PluginManifest::find_dir`]).
pub fn plugin_dir(explicit: Option<PathBuf>) -> Option<PathBuf> {
    PluginManifest::find_dir(explicit)
}

/// Loads the manifest and builds an entry per provider whose agent this build carries, with
/// the bridge's `spares` (the host gives the same to `serve`, which stops them).
pub fn load(
    dir: Option<&Path>,
    spares: &Spares,
) -> anyhow::Result<(PluginManifest, Vec<Arc<ProviderEntry>>)> {
    let manifest = match dir {
        Some(dir) => PluginManifest::load(dir)
            .with_context(|| format!("loading the plugin manifest in {}", dir.display()))?,
        None => PluginManifest::parse(EMBEDDED_MANIFEST, Path::new("<embedded plugin.json>"))?,
    };
    let mut entries = Vec::new();
    for p in &manifest.providers {
        match agents::build(p, spares) {
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
