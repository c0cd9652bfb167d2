//! A CLI's config or data folder named only in the `env` of its `plugin.json` entry (what people
//! do to run a second account): the CLI writes there, the bridge must look there too. The
//! scenario runs for each provider family: a turn publishes the session's persistence handle,
//! and a fresh bridge reopening that handle replays the conversation.
//!
//! The folder variable is taken out of the connect request's `launch.env`, so `plugin.json` is
//! the only place naming it; the CLI's hermetic files that lived in the default folder are
//! copied into the configured one first.

use crate::rig::{AgentRig, RigSpec};
use crate::{Event, HostOptions};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where one CLI keeps its sessions, for [`config_dir_only_in_plugin_json`].
#[derive(Debug, Clone, Copy)]
pub struct ConfigDirCase {
    /// The variable naming the folder (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_DATA_HOME`).
    pub var: &'static str,
    /// What the CLI writes under that folder once a turn ran (`projects`, `sessions`).
    pub written: &'static str,
    /// The same, relative to `HOME`, where it would land without the variable.
    pub default: &'static str,
    /// The open's config patch (a mode that runs without asking, say).
    pub patch: fn() -> Value,
}

/// A plugin folder whose plugin.json is the workspace's with `env` in `provider`'s entry.
pub fn plugin_dir_with_env(provider: &str, env: Value) -> tempfile::TempDir {
    let root = crate::workspace_root().join("plugin.json");
    let text = std::fs::read_to_string(&root).expect("the workspace plugin.json");
    let mut manifest: Value = serde_json::from_str(&text).expect("plugin.json parses");
    let entry = manifest["providers"]
        .as_array_mut()
        .and_then(|ps| ps.iter_mut().find(|p| p["id"] == provider))
        .unwrap_or_else(|| panic!("plugin.json has no `{provider}`"));
    entry["env"] = env;
    let dir = tempfile::tempdir().expect("plugin dir");
    std::fs::write(dir.path().join("plugin.json"), manifest.to_string()).expect("plugin.json");
    dir
}

/// A turn in a session whose CLI folder is set only in plugin.json publishes the session's
/// persistence, the CLI wrote into that folder (not the default one), and a fresh bridge
/// reopening the handle replays the prompt.
pub async fn config_dir_only_in_plugin_json(spec: RigSpec, case: ConfigDirCase) {
    let account = tempfile::tempdir().expect("account dir");
    let folder = account.path().join("second-account");
    let plugin = plugin_dir_with_env(
        spec.provider,
        json!({ case.var: folder.display().to_string() }),
    );
    // An ACP agent's first start can take long on a loaded machine (the ACP suites' limit).
    let options = HostOptions {
        request_timeout: Duration::from_secs(40),
        ..HostOptions::default()
    }
    .env(
        "AGENT_BRIDGE_PLUGIN_DIR",
        plugin.path().display().to_string(),
    );
    let Some(mut rig) = AgentRig::start_in(spec, options, |cli, env| {
        let mut env = env.clone();
        match env.env.remove(case.var) {
            Some(hermetic) => copy_dir(Path::new(&hermetic), &folder),
            None => std::fs::create_dir_all(&folder).expect("config folder"),
        }
        spec.launch(cli, &env)
    })
    .await
    else {
        return;
    };
    // The fresh bridge below gets the same launch: without the variable either.
    rig.env.env.remove(case.var);

    let sid = "pe-first";
    let opened = rig.open(sid, (case.patch)()).await;
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let persistence = match published_at_open(&opened) {
        Some(p) => p,
        None => rig
            .wait(sid, "session.persistence", |_| true)
            .await
            .at("/persistence")
            .cloned()
            .unwrap_or_default(),
    };
    rig.finish(sid).await;
    assert!(
        folder.join(case.written).exists(),
        "the CLI wrote its sessions under the plugin.json folder {}",
        folder.display()
    );
    let default = rig.env.home.join(case.default);
    assert!(
        !default.exists(),
        "nothing under the default folder {}",
        default.display()
    );

    let again = rig.reconnect().await;
    let events = again
        .resume("pe-again", (case.patch)(), persistence.clone())
        .await;
    let ready = events
        .iter()
        .position(|e| e.is("session.ready"))
        .expect("ready");
    let replayed: Vec<Value> = events[..ready]
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .collect();
    assert!(
        replayed.iter().any(|i| i["type"] == "user_message"
            && i["text"].as_str().is_some_and(|t| t.contains("say hi"))),
        "the prompt replayed: {replayed:#?}"
    );
    again.finish("pe-again").await;
    rig.report("config-dir-only-in-plugin-json");
}

/// The persistence handle of `session.opened`, when it carries one.
fn published_at_open(events: &[Event]) -> Option<Value> {
    events
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .filter(|p| !p.is_null())
}

/// Copies the folder `from` (its files and subfolders) to `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("config folder");
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for entry in entries.flatten() {
        let target: PathBuf = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a config file");
        }
    }
}
