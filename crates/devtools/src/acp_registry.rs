//! `agent-bridge-dev acp-registry`: one ACP registry manifest per bridged provider of
//! `plugin.json`, in the registry's own layout (`<id>/agent.json` and `<id>/icon.svg`, as in
//! github.com/agentclientprotocol/registry), written under `registry/` (or checked against it
//! with `--check`, which fails when they drift from plugin.json).
//!
//! Each manifest is a `binary` distribution of the npm platform packages the release workflow
//! publishes (npm/platforms.json): the registry downloads the package tarball and runs
//! `./package/bin/agent-bridge acp --provider ID`. The CLI itself is not part of the
//! distribution: the bridge finds it on PATH as under Paseo.

use anyhow::{bail, Context};
use clap::Args;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_bridge_core::registry::{PluginManifest, ProviderManifest};

#[derive(Debug, Args)]
pub struct RegistryArgs {
    /// The repository root holding plugin.json, icon.svg and npm/platforms.json (default: this
    /// source tree).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Where the manifests go (default: `<root>/registry`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write nothing; fail when the files on disk differ from what plugin.json gives.
    #[arg(long)]
    pub check: bool,
}

/// npm/platforms.json.
#[derive(Debug, Deserialize)]
pub struct Platforms {
    pub platforms: Vec<Platform>,
}

#[derive(Debug, Deserialize)]
pub struct Platform {
    pub package: String,
    pub os: String,
    pub cpu: String,
}

/// The providers that get no manifest: the demo needs no CLI and is no agent to install.
const NOT_LISTED: &[&str] = &["demo"];

/// The registry id of a provider: `claude-bridge` -> `agent-bridge-claude`.
pub fn registry_id(provider: &str) -> String {
    let base = provider.strip_suffix("-bridge").unwrap_or(provider);
    format!("agent-bridge-{base}")
}

/// The registry's platform id of an npm platform package (`linux`/`x64` -> `linux-x86_64`).
fn target(p: &Platform) -> Option<String> {
    let os = match p.os.as_str() {
        "linux" => "linux",
        "darwin" => "darwin",
        "win32" => "windows",
        _ => return None,
    };
    let cpu = match p.cpu.as_str() {
        "x64" => "x86_64",
        "arm64" => "aarch64",
        _ => return None,
    };
    Some(format!("{os}-{cpu}"))
}

/// npm's tarball address of `@scope/name` at `version`.
fn tarball(package: &str, version: &str) -> String {
    let file = package.rsplit('/').next().unwrap_or(package);
    format!("https://registry.npmjs.org/{package}/-/{file}-{version}.tgz")
}

/// The manifest of one provider.
pub fn manifest(
    plugin: &PluginManifest,
    provider: &ProviderManifest,
    platforms: &Platforms,
    license: &str,
) -> Value {
    let cli = provider
        .command
        .first()
        .map(String::as_str)
        .unwrap_or("the CLI");
    let about = provider
        .description
        .clone()
        .unwrap_or_else(|| provider.label.clone());
    let description = format!(
        "{} through agent-bridge, a Rust daemon that runs the CLI with resume, permissions and \
         process sharing. {about} Needs `{cli}` installed and logged in.",
        provider.label
    );
    let mut binary = BTreeMap::new();
    for p in &platforms.platforms {
        let Some(target) = target(p) else { continue };
        let exe = if p.os == "win32" {
            "agent-bridge.exe"
        } else {
            "agent-bridge"
        };
        binary.insert(
            target,
            json!({
                "archive": tarball(&p.package, &plugin.version),
                "cmd": format!("./package/bin/{exe}"),
                "args": ["acp", "--provider", provider.id],
            }),
        );
    }
    json!({
        "id": registry_id(&provider.id),
        "name": format!("{} (agent-bridge)", provider.label),
        "version": plugin.version,
        "description": description,
        "authors": ["agent-bridge"],
        "license": license,
        "distribution": {"binary": binary},
    })
}

/// Every file of the registry folder: `<id>/agent.json` (pretty JSON, newline-terminated) and
/// `<id>/icon.svg` (the plugin's icon).
pub fn files(root: &Path) -> anyhow::Result<BTreeMap<PathBuf, String>> {
    let plugin = PluginManifest::load(root)?;
    let text = std::fs::read_to_string(root.join("npm/platforms.json"))
        .context("reading npm/platforms.json")?;
    let platforms: Platforms = serde_json::from_str(&text).context("parsing npm/platforms.json")?;
    let icon_file = plugin.icon.as_deref().unwrap_or("icon.svg");
    let icon = std::fs::read_to_string(root.join(icon_file))
        .with_context(|| format!("reading {icon_file}"))?;
    let mut out = BTreeMap::new();
    for provider in &plugin.providers {
        if NOT_LISTED.contains(&provider.id.as_str()) {
            continue;
        }
        let id = registry_id(&provider.id);
        let m = manifest(&plugin, provider, &platforms, env!("CARGO_PKG_LICENSE"));
        out.insert(
            PathBuf::from(&id).join("agent.json"),
            format!("{}\n", serde_json::to_string_pretty(&keys_sorted(m))?),
        );
        out.insert(PathBuf::from(&id).join("icon.svg"), icon.clone());
    }
    Ok(out)
}

/// `v` with every object's keys in sorted order, so the written text is the same whether or
/// not the build has serde_json's `preserve_order` (which a dependency turns on for some
/// builds and not others).
fn keys_sorted(v: Value) -> Value {
    match v {
        Value::Object(map) => {
            let sorted: BTreeMap<String, Value> =
                map.into_iter().map(|(k, v)| (k, keys_sorted(v))).collect();
            Value::Object(sorted.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(keys_sorted).collect()),
        other => other,
    }
}

/// This source tree's root (plugin.json lives there).
pub fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

pub fn run(args: RegistryArgs) -> anyhow::Result<ExitCode> {
    let root = args.root.unwrap_or_else(source_root);
    let out = args.out.unwrap_or_else(|| root.join("registry"));
    let wanted = files(&root)?;
    if args.check {
        let mut stale = Vec::new();
        for (path, text) in &wanted {
            if std::fs::read_to_string(out.join(path)).ok().as_deref() != Some(text.as_str()) {
                stale.push(path.display().to_string());
            }
        }
        if !stale.is_empty() {
            bail!(
                "{} differ from plugin.json (run `agent-bridge-dev acp-registry`): {}",
                out.display(),
                stale.join(", ")
            );
        }
        println!("{}: {} files up to date", out.display(), wanted.len());
        return Ok(ExitCode::SUCCESS);
    }
    for (path, text) in &wanted {
        let file = out.join(path);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
    }
    println!("wrote {} files under {}", wanted.len(), out.display());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
#[path = "acp_registry_tests.rs"]
mod tests;
