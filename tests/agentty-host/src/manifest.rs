//! `agentty-plugin.json` as Agentty reads it before starting a plugin
//! (`crates/agentty-bridge/src/plugins/manifest.rs` and `store.rs` of Agentty): the id is 2–40
//! of `a-z`, `0-9`, `-` and equals the folder's name; `main` is a relative path inside the
//! folder that exists; permissions are known; commands have unique ids and titles. This host
//! speaks API 2, so a manifest asking for more is refused as Agentty 2 would.

use crate::tree::is_icon;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// The protocol version this emulator speaks (4: `tools/call`, see [`crate::tools`]).
pub const API_VERSION: u64 = 4;

pub const PERMISSIONS: &[&str] = &[
    "net.request",
    "prompt.inject",
    "terminal.write",
    "session.read",
    "workspace.read",
    "mcp.tools",
];

/// A manifest that passed.
#[derive(Debug, Clone)]
pub struct Manifest {
    pub id: String,
    pub name: String,
    pub version: String,
    pub entry: PathBuf,
    pub permissions: Vec<String>,
    pub commands: Vec<String>,
    pub raw: Value,
}

impl Manifest {
    pub fn has(&self, permission: &str) -> bool {
        self.permissions.iter().any(|p| p == permission)
    }
}

fn valid_id(id: &str) -> bool {
    (2..=40).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !id.starts_with('-')
        && !id.ends_with('-')
}

/// Loads and checks the manifest of the plugin folder `dir`.
pub fn load(dir: &Path) -> Result<Manifest, String> {
    let path = dir.join("agentty-plugin.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let raw: Value = serde_json::from_str(&text).map_err(|e| format!("invalid manifest: {e}"))?;
    let s = |key: &str| {
        raw.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let id = s("id");
    if !valid_id(&id) {
        return Err(format!(
            "plugin id \"{id}\" must be 2–40 lower-case letters, digits or '-'"
        ));
    }
    let folder = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if folder != id {
        return Err(format!(
            "manifest id \"{id}\" does not match the folder \"{folder}\""
        ));
    }
    if s("name").trim().is_empty() {
        return Err("no name".into());
    }
    let version = s("version");
    let parts: Vec<&str> = version.split('.').collect();
    if parts.len() != 3 || parts.iter().any(|p| p.parse::<u64>().is_err()) {
        return Err(format!("version \"{version}\" is not major.minor.patch"));
    }
    let api = raw.get("apiVersion").and_then(Value::as_u64).unwrap_or(1);
    if api > API_VERSION {
        return Err(format!(
            "needs a newer Agentty (plugin API {api} > {API_VERSION})"
        ));
    }
    if raw.get("runtime").and_then(Value::as_str) != Some("executable") {
        return Err("this host starts executable plugins only".into());
    }
    let main = s("main");
    let relative = Path::new(&main);
    let inside = !main.is_empty()
        && !relative.is_absolute()
        && relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        return Err(format!(
            "\"{main}\" must be a relative path inside the plugin folder"
        ));
    }
    let entry = dir.join(relative);
    if !entry.is_file() {
        return Err(format!("entry point {} is missing", entry.display()));
    }
    let permissions: Vec<String> = raw
        .get("permissions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    if let Some(p) = permissions
        .iter()
        .find(|p| !PERMISSIONS.contains(&p.as_str()))
    {
        return Err(format!("unknown permission {p}"));
    }
    crate::tools::check_manifest(&raw, api, &permissions)?;
    let contributes = raw.get("contributes").cloned().unwrap_or(Value::Null);
    let mut commands = Vec::new();
    for c in contributes
        .get("commands")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = c.get("id").and_then(Value::as_str).unwrap_or("");
        let title = c.get("title").and_then(Value::as_str).unwrap_or("");
        if id.trim().is_empty() || title.trim().is_empty() {
            return Err("every command needs an id and a title".into());
        }
        if commands.iter().any(|x| x == id) {
            return Err(format!("duplicate command {id}"));
        }
        commands.push(id.to_string());
    }
    let icons = contributes
        .get("commands")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("icon"))
        .chain(contributes.get("panel").and_then(|p| p.get("icon")))
        .chain(raw.get("icon"));
    for icon in icons {
        match icon.as_str() {
            Some(name) if is_icon(name) => {}
            other => return Err(format!("icon {other:?} is not an Agentty icon")),
        }
    }
    if let Some(home) = raw.get("homepage").and_then(Value::as_str) {
        if !home.starts_with("https://") {
            return Err("homepage must be an https:// URL".into());
        }
    }
    Ok(Manifest {
        id,
        name: s("name"),
        version,
        entry,
        permissions,
        commands,
        raw,
    })
}
