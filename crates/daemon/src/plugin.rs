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

/// What a subcommand that runs providers starts from: the folder it found (`None`: the
/// embedded manifest), the manifest, an entry per provider, and the bridge's spares (the host
/// gives the same to the core it runs, which stops them).
pub struct Loaded {
    pub dir: Option<PathBuf>,
    pub manifest: PluginManifest,
    pub providers: Vec<Arc<ProviderEntry>>,
    pub spares: Spares,
}

impl Loaded {
    /// Finds the plugin folder (`explicit`, else as [`plugin_dir`] looks), loads it with the
    /// spares of this process's environment.
    pub fn find(explicit: Option<PathBuf>) -> anyhow::Result<Loaded> {
        let dir = plugin_dir(explicit);
        let spares = Spares::from_env();
        let (manifest, providers) = load(dir.as_deref(), &spares)?;
        Ok(Loaded {
            dir,
            manifest,
            providers,
            spares,
        })
    }

    /// The plugin folder, or the current directory when the manifest is the embedded one.
    pub fn folder(&self) -> std::io::Result<PathBuf> {
        match &self.dir {
            Some(d) => Ok(d.clone()),
            None => std::env::current_dir(),
        }
    }
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
