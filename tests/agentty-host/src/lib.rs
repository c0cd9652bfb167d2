//! An Agentty host emulator, for testing the bridge's Agentty mode without Agentty (as
//! Agentty's protocol page advises: a plugin is a program reading stdin and writing stdout).
//!
//! It does what Agentty's host does (`crates/agentty-app/src/plugins/{mod,process}.rs`,
//! `crates/agentty-app/src/workbench/{plugin_host,plugin_panel}.rs`,
//! `crates/agentty-bridge/src/plugins/{manifest,store,ui}.rs`), lenient where it is lenient and
//! strict where it is strict:
//! - [`stage`] makes the plugin's package folder and installs it with Agentty's folder install
//!   ([`install`]: what the copy leaves out); [`manifest::load`] checks the manifest;
//! - [`AgenttyHost::start`] asks for consent first ([`consent`]), then runs `main` with the
//!   folder as working directory and the `AGENTTY_*` variables, and reads stdout and stderr on
//!   threads of their own; a line over 16 MB ends the reading of that stream for good;
//! - `initialize` says API 4, the host's own version; the context a plugin gets is cut to its
//!   permissions;
//! - every message and log line counts toward 240 a second; every `ui/setPanel` tree is checked
//!   ([`tree::check`]: refused for what the host refuses, noted for what it ignores or draws
//!   otherwise); `ui/notify` closer than 700 ms apart is a violation; calls without their
//!   permission are refused with -32001, `session/get` on a pane that is not Claude Code or
//!   Codex with -32602;
//! - `shutdown` is followed by SIGTERM after 1.5 s and SIGKILL 1.5 s later ([`Shutdown`]);
//! - [`ToolHost`] calls the plugin's tools as an agent in a pane does (`tools/call`, API 4:
//!   120 s, 8 waiting calls, 100,000 characters).
//!
//! Tests drive the panel by element ids ([`AgenttyHost::click`], [`AgenttyHost::act`], ...)
//! and read what it shows ([`State::rows`], [`AgenttyHost::field`]).

pub mod consent;
pub mod drive;
pub mod field;
pub mod host;
pub mod install;
pub mod manifest;
pub mod nodes;
pub mod state;
pub mod tools;
pub mod tree;

pub use consent::Consent;
pub use drive::Shutdown;
pub use host::{AgenttyHost, HostOptions};
pub use state::{State, Stats};
pub use tools::{ToolAnswer, ToolHost};

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The Agentty version the emulator says it is.
pub const AGENTTY_VERSION: &str = "2.0.0-emulator";

/// The files of the plugin's package folder (besides the launcher `main` names).
const FOLDER_FILES: &[&str] = &["agentty-plugin.json", "plugin.json"];

/// The repository's plugin as a package folder (`<root>/package`: the manifest, `plugin.json`
/// and the launcher, modes kept; `edit` may change the manifest first), installed with Agentty's
/// folder install as `<root>/plugins/<id>`; the installed folder.
pub fn stage(root: &Path, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let repo = agent_bridge_conformance::workspace_root();
    let text = std::fs::read_to_string(repo.join("agentty-plugin.json")).expect("manifest");
    let mut manifest: Value = serde_json::from_str(&text).expect("manifest JSON");
    edit(&mut manifest);
    let package = root.join("package");
    let main = manifest["main"].as_str().unwrap_or_default().to_string();
    for file in FOLDER_FILES.iter().copied().chain([main.as_str()]) {
        let target = package.join(file);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).expect("folder");
        }
        std::fs::copy(repo.join(file), &target).expect("copy");
    }
    let pretty = serde_json::to_string_pretty(&manifest).expect("manifest");
    std::fs::write(package.join("agentty-plugin.json"), pretty).expect("manifest");
    install::install_folder(&root.join("plugins"), &package).expect("Agentty installs the folder")
}

/// The environment Agentty would pass for the tests: a plain PATH (no agent CLIs), a home
/// folder of the test's own, and `AGENT_BRIDGE_BIN` so the launcher runs this build.
pub fn base_env(home: &Path) -> BTreeMap<String, String> {
    let bin = agent_bridge_conformance::bridge_binary().expect("agent-bridge binary");
    let mut env = BTreeMap::new();
    env.insert("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into());
    env.insert("HOME".into(), home.display().to_string());
    env.insert("LANG".into(), "C.UTF-8".into());
    env.insert("AGENT_BRIDGE_BIN".into(), bin.display().to_string());
    env
}

/// A context as Agentty has it (`plugin_context`, before it is cut to a plugin's permissions):
/// the workspace in `cwd`, a focused Claude Code pane.
pub fn context(cwd: &Path) -> Value {
    let name = cwd
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("workspace");
    json!({
        "workspace": {"id": 1, "active": true, "name": name, "cwd": cwd},
        "pane": {"id": 7, "kind": "claude", "tool": "claude", "status": "idle", "running": true,
                 "title": "Fix the flaky test", "cwd": cwd, "sessionId": "0b5c6a1e-pane"},
        "language": "en",
    })
}

/// What `session/get` answers for a focused Claude Code pane with `turns` (`(role, text)`).
pub fn pane_session(cwd: &Path, turns: &[(&str, &str)]) -> Value {
    json!({
        "paneId": 7, "agent": "claude", "sessionId": "0b5c6a1e-pane", "title": "Fix the flaky test",
        "cwd": cwd, "status": "idle", "turnCount": turns.len(),
        "turns": turns.iter().map(|(role, text)| json!({"role": role, "text": text})).collect::<Vec<_>>(),
    })
}

/// A context whose focused pane is a shell (`kind: "shell"`): it has no session to read.
pub fn shell_context(cwd: &Path) -> Value {
    let mut c = context(cwd);
    c["pane"] = json!({"id": 8, "kind": "shell", "tool": "zsh", "status": "shell",
                       "running": true, "title": "zsh", "cwd": cwd});
    c
}

/// `context` as a plugin with `permissions` sees it (`ContextScope` in Agentty's
/// `workbench/plugin_host.rs`): folders and titles only with `workspace.read`, session ids only
/// with `session.read`.
pub fn scoped_context(context: &Value, permissions: &[String]) -> Value {
    let has = |p: &str| permissions.iter().any(|x| x == p);
    let mut c = context.clone();
    for key in ["workspace", "pane"] {
        if let Some(o) = c.get_mut(key).and_then(Value::as_object_mut) {
            if !has("workspace.read") {
                for hidden in ["name", "cwd", "title"] {
                    o.remove(hidden);
                }
            }
            if !has("session.read") {
                o.remove("sessionId");
            }
        }
    }
    c
}
