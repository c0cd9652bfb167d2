//! Consent before the first start, as Agentty asks it (`crates/agentty-app/src/plugins/mod.rs`
//! @032fb3e: `needs_consent`, `ensure_started`, `answer_consent`): a plugin that is not built
//! into Agentty and asks for a permission the user has not granted does not run at all — no
//! process, no `initialize` — until the user allows what its manifest asks for. Allowed, the
//! whole list is remembered (`plugin_permission_grants` in Agentty's settings) and the plugin
//! starts; an update asking for nothing new starts without asking, one asking for more asks for
//! the new set. Refused, it stays stopped (`NeedsConsent`) until the user asks again. A plugin
//! asking for no permission starts without a question.

use crate::manifest::Manifest;
use serde_json::{json, Value};
use std::path::Path;

/// What the user answers when Agentty asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    Allow,
    Refuse,
}

/// Where the emulator keeps the grants (Agentty's settings): beside the plugins' data folders.
fn grants_file(data_dir: &Path) -> std::path::PathBuf {
    data_dir
        .parent()
        .unwrap_or(data_dir)
        .join("permission-grants.json")
}

fn grants(data_dir: &Path) -> Value {
    std::fs::read_to_string(grants_file(data_dir))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}))
}

/// The permissions the user granted `id`.
pub fn granted(data_dir: &Path, id: &str) -> Vec<String> {
    grants(data_dir)[id]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// Asks when the manifest asks for something not granted yet; `Ok(Some(asked))` when the user
/// was asked (and allowed), `Ok(None)` when nothing needed asking, `Err` when refused.
pub fn ask(
    manifest: &Manifest,
    data_dir: &Path,
    answer: Consent,
) -> Result<Option<Vec<String>>, String> {
    let granted = granted(data_dir, &manifest.id);
    if manifest.permissions.iter().all(|p| granted.contains(p)) {
        return Ok(None);
    }
    let asked = manifest.permissions.clone();
    if answer == Consent::Refuse {
        return Err(format!(
            "the user did not allow {} ({}): it stays stopped",
            manifest.name,
            asked.join(", ")
        ));
    }
    let mut all = grants(data_dir);
    all[manifest.id.as_str()] = json!(asked);
    let file = grants_file(data_dir);
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(&file, all.to_string()).map_err(|e| e.to_string())?;
    Ok(Some(asked))
}
