//! `plugin.json`: the one list of providers, read by the binary and the Paseo adapter.

use crate::agent::{Provider, ProviderDescriptor};
use crate::supervisor::LaunchOverride;
use agent_bridge_protocol::Capability;
use serde::Deserialize;
use std::collections::BTreeMap;
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
    /// Variables set for the CLI on top of the bridge's (or `launch`'s) environment, under
    /// the session's `config.env`.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Agent-specific settings (an ACP agent's quirks, say); each agent documents its own.
    #[serde(default)]
    pub options: serde_json::Map<String, serde_json::Value>,
    /// Capabilities this entry offers at most (∩ what the agent implements); absent = all.
    #[serde(default)]
    pub capabilities: Option<Vec<Capability>>,
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
    /// The plugin folder: `explicit` (`--plugin-dir`), else `AGENT_BRIDGE_PLUGIN_DIR`, else the
    /// working directory when it holds `plugin.json` (Paseo starts the bridge there), else the
    /// nearest ancestor of the executable that holds one.
    pub fn find_dir(explicit: Option<PathBuf>) -> Option<PathBuf> {
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
    /// Launch override from `plugin.json`'s `command` and `env`.
    pub command: LaunchOverride,
    /// The entry's `capabilities` limit, if any.
    pub declared: Option<Vec<Capability>>,
    pub provider: Arc<dyn Provider>,
}

impl ProviderEntry {
    pub fn new(
        manifest: &ProviderManifest,
        plugin_icon: Option<&str>,
        provider: Arc<dyn Provider>,
    ) -> Self {
        let mut command = match manifest.command.split_first() {
            Some((program, args)) => LaunchOverride {
                command: Some(program.clone()),
                args: args.to_vec(),
                ..LaunchOverride::default()
            },
            None => LaunchOverride::default(),
        };
        command.extra_env = manifest.env.clone();
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
            declared: manifest.capabilities.clone(),
            provider,
        }
    }

    /// What this entry offers: the agent's capabilities, limited by the entry's declaration.
    pub fn capabilities(&self) -> Vec<Capability> {
        let all = self.provider.capabilities();
        match &self.declared {
            Some(declared) => all.into_iter().filter(|c| declared.contains(c)).collect(),
            None => all,
        }
    }

    /// What this entry offers a connection with `ctx`'s launch
    /// ([`Provider::capabilities_for`]), limited by the entry's declaration.
    pub async fn capabilities_for(&self, ctx: &crate::agent::ProviderContext) -> Vec<Capability> {
        let all = self.provider.capabilities_for(ctx).await;
        match &self.declared {
            Some(declared) => all.into_iter().filter(|c| declared.contains(c)).collect(),
            None => all,
        }
    }

    /// The launch for a connection: the connect request's `launch` when given (it replaces
    /// command, arguments and environment), else the entry's own; the entry's `env` applies
    /// on top of either.
    pub fn launch(&self, connect: Option<LaunchOverride>) -> LaunchOverride {
        match connect {
            Some(mut l) => {
                l.extra_env = self.command.extra_env.clone();
                l
            }
            None => self.command.clone(),
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

    #[test]
    fn an_entry_carries_its_command_env_options_and_capabilities() {
        let text = r#"{"id":"p","version":"1","providers":[{"id":"my-acp","label":"Mine",
            "agent":"acp","command":["my-agent","--acp"],"env":{"MY_MODE":"fast"},
            "options":{"loadSession":false},"capabilities":["prompt.message","permission"]}]}"#;
        let m = PluginManifest::parse(text, Path::new("plugin.json")).expect("valid");
        let e = &m.providers[0];
        assert_eq!(e.command, vec!["my-agent", "--acp"]);
        assert_eq!(e.env.get("MY_MODE").map(String::as_str), Some("fast"));
        assert_eq!(e.options["loadSession"], serde_json::json!(false));
        assert_eq!(
            e.capabilities,
            Some(vec![Capability::PromptMessage, Capability::Permission])
        );
        let bad = text.replace("\"permission\"", "\"no.such\"");
        assert!(matches!(
            PluginManifest::parse(&bad, Path::new("plugin.json")),
            Err(ManifestError::Parse { .. })
        ));
    }
}
