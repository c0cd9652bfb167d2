//! `plugin.json`: the one list of providers, read by the binary and the Paseo adapter.

use crate::agent::{Provider, ProviderDescriptor};
use crate::supervisor::LaunchOverride;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginManifest {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    pub version: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub runtime: Option<String>,
    #[serde(default)]
    pub main: Option<String>,
    #[serde(default)]
    pub api_version: Option<u32>,
    #[serde(default)]
    pub icon: Option<String>,
    pub providers: Vec<ProviderManifest>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ProviderManifest {
    pub id: String,
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Which agent module serves this provider (`demo`, `claude`, `codex`, ...).
    pub agent: String,
    /// argv prefix that launches the CLI; empty = the agent's default.
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub icon: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a valid plugin manifest: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{path}: provider id `{id}` is invalid (lowercase letter first, then [a-z0-9._-])")]
    BadId { path: PathBuf, id: String },
    #[error("{path}: provider id `{id}` is declared twice")]
    Duplicate { path: PathBuf, id: String },
    #[error("{path}: provider id `{id}` clashes with a Paseo built-in provider")]
    Reserved { path: PathBuf, id: String },
}

/// Paseo's built-in provider ids, which a plugin must not reuse.
pub const RESERVED_IDS: [&str; 6] = ["claude", "codex", "opencode", "copilot", "pi", "acp"];

fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
}

impl PluginManifest {
    pub fn load(dir: &Path) -> Result<PluginManifest, ManifestError> {
        let path = dir.join("plugin.json");
        let text = std::fs::read_to_string(&path).map_err(|source| ManifestError::Read {
            path: path.clone(),
            source,
        })?;
        Self::parse(&text, &path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<PluginManifest, ManifestError> {
        let manifest: PluginManifest =
            serde_json::from_str(text).map_err(|source| ManifestError::Parse {
                path: path.to_path_buf(),
                source,
            })?;
        let mut seen = std::collections::HashSet::new();
        for p in &manifest.providers {
            if !valid_id(&p.id) {
                return Err(ManifestError::BadId {
                    path: path.to_path_buf(),
                    id: p.id.clone(),
                });
            }
            if RESERVED_IDS.contains(&p.id.as_str()) {
                return Err(ManifestError::Reserved {
                    path: path.to_path_buf(),
                    id: p.id.clone(),
                });
            }
            if !seen.insert(p.id.clone()) {
                return Err(ManifestError::Duplicate {
                    path: path.to_path_buf(),
                    id: p.id.clone(),
                });
            }
        }
        Ok(manifest)
    }
}

/// A provider the bridge serves: its manifest entry and its agent module.
pub struct ProviderEntry {
    pub descriptor: ProviderDescriptor,
    pub agent: String,
    /// Launch override from `plugin.json`'s `command`.
    pub command: LaunchOverride,
    pub provider: Arc<dyn Provider>,
}

impl ProviderEntry {
    pub fn new(
        manifest: &ProviderManifest,
        plugin_icon: Option<&str>,
        provider: Arc<dyn Provider>,
    ) -> Self {
        let command = match manifest.command.split_first() {
            Some((program, args)) => LaunchOverride {
                command: Some(program.clone()),
                args: args.to_vec(),
                env: None,
            },
            None => LaunchOverride::default(),
        };
        ProviderEntry {
            descriptor: ProviderDescriptor {
                id: manifest.id.clone(),
                label: manifest.label.clone(),
                description: manifest.description.clone(),
                icon: manifest
                    .icon
                    .clone()
                    .or_else(|| plugin_icon.map(str::to_string)),
            },
            agent: manifest.agent.clone(),
            command,
            provider,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_reserved_and_duplicate_ids() {
        let p = Path::new("plugin.json");
        let base = |ids: &[&str]| {
            let providers: Vec<String> = ids
                .iter()
                .map(|id| format!(r#"{{"id":"{id}","label":"x","agent":"demo"}}"#))
                .collect();
            format!(
                r#"{{"id":"p","version":"1","providers":[{}]}}"#,
                providers.join(",")
            )
        };
        assert!(PluginManifest::parse(&base(&["demo"]), p).is_ok());
        assert!(matches!(
            PluginManifest::parse(&base(&["claude"]), p),
            Err(ManifestError::Reserved { .. })
        ));
        assert!(matches!(
            PluginManifest::parse(&base(&["a", "a"]), p),
            Err(ManifestError::Duplicate { .. })
        ));
        assert!(matches!(
            PluginManifest::parse(&base(&["Bad"]), p),
            Err(ManifestError::BadId { .. })
        ));
    }
}
