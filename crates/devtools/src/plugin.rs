//! The providers of `plugin.json`, from the plugin folder `agent-bridge serve` would use.

use agent_bridge_core::registry::{PluginManifest, ProviderManifest};
use anyhow::Context;
use std::path::{Path, PathBuf};

/// The manifest this binary was built with, used when no plugin folder is found (the bridge
/// falls back to its own copy then).
pub(crate) const EMBEDDED_MANIFEST: &str = include_str!("../../../plugin.json");

/// The plugin folder: `--plugin-dir`, else as the bridge finds it.
pub fn plugin_dir(explicit: Option<PathBuf>) -> Option<PathBuf> {
    PluginManifest::find_dir(explicit)
}

/// The providers of the manifest in `dir` (the embedded one without a folder).
pub fn providers(dir: Option<&Path>) -> anyhow::Result<Vec<ProviderManifest>> {
    let manifest = match dir {
        Some(dir) => PluginManifest::load(dir)
            .with_context(|| format!("loading the plugin manifest in {}", dir.display()))?,
        None => PluginManifest::parse(EMBEDDED_MANIFEST, Path::new("<embedded plugin.json>"))?,
    };
    Ok(manifest.providers)
}
