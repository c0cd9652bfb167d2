//! What the scenario tests share: a temp root with a staged plugin folder, its data folder and
//! a workspace folder; the plugin started under the emulated host with the demo agent.

#![allow(dead_code)]

use agentty_host::{base_env, context, stage, AgenttyHost, Consent, HostOptions, Shutdown, Stats};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// Generous limit for a step of a demo turn.
pub const STEP: Duration = Duration::from_secs(20);

pub struct Setup {
    pub root: tempfile::TempDir,
    pub plugin_dir: PathBuf,
    pub data_dir: PathBuf,
    pub workspace: PathBuf,
    pub home: PathBuf,
}

impl Setup {
    /// A staged plugin (its manifest changed by `edit`), a data folder and a workspace.
    pub fn new(edit: impl FnOnce(&mut Value)) -> Setup {
        let root = tempfile::tempdir().expect("temp root");
        let plugin_dir = stage(root.path(), edit);
        let data_dir = root.path().join("plugin-data/agent-bridge");
        let workspace = root.path().join("api");
        let home = root.path().join("home");
        for d in [&workspace, &home] {
            std::fs::create_dir_all(d).expect("folder");
        }
        Setup {
            root,
            plugin_dir,
            data_dir,
            workspace,
            home,
        }
    }

    pub fn options(&self, session_get: Option<Value>) -> HostOptions {
        let mut env = base_env(&self.home);
        env.insert("AGENT_BRIDGE_DEMO".into(), "1".into());
        HostOptions {
            plugin_dir: self.plugin_dir.clone(),
            data_dir: self.data_dir.clone(),
            env,
            context: context(&self.workspace),
            session_get,
            consent: Consent::Allow,
        }
    }

    /// The plugin started and initialized with its panel open, the demo agent picked.
    pub fn start(&self, session_get: Option<Value>) -> AgenttyHost {
        let host = AgenttyHost::start(self.options(session_get)).expect("plugin starts");
        host.initialize();
        wait_agent(&host, "demo");
        host
    }
}

/// Waits until `agent` offers `provider` and has it picked.
pub fn wait_agent(host: &AgenttyHost, provider: &str) {
    host.wait_panel(
        &format!("{provider} picked in `agent`"),
        Duration::from_secs(30),
        |s| s.find("agent").is_some_and(|a| a["value"] == provider),
    );
}

/// Types `text` into `prompt` and presses `send`.
pub fn send(host: &AgenttyHost, text: &str) {
    host.type_text("prompt", text);
    host.click("send");
}

/// Waits for the end of the running turn: nothing to interrupt, no spinner.
pub fn wait_idle(host: &AgenttyHost) {
    host.wait_panel("the turn's end", STEP, |s| {
        s.find("interrupt").is_some_and(|b| b["disabled"] == true)
            && !serde_json::to_string(&s.panel)
                .unwrap_or_default()
                .contains("is working…")
    });
}

/// The newest row of `timeline` with `icon` whose title contains `text`.
pub fn row_with(host: &AgenttyHost, icon: &str, text: &str) -> Value {
    host.wait_row(
        "timeline",
        &format!("a {icon} row with {text:?}"),
        STEP,
        |r| r["icon"] == icon && r["title"].as_str().is_some_and(|t| t.contains(text)),
    )
}

/// Stops the plugin and checks Agentty's shutdown rules: out within 1.5 s without a signal,
/// every process it started gone.
pub fn stop(host: &AgenttyHost) -> Shutdown {
    let s = host.shutdown();
    assert!(s.signals.is_empty(), "Agentty had to send {:?}", s.signals);
    assert!(s.elapsed < Duration::from_millis(1_500), "{:?}", s.elapsed);
    assert!(s.survivors.is_empty(), "left behind: {:?}", s.survivors);
    s
}

/// One line for the report of a scenario.
pub fn report(scenario: &str, stats: Stats, shutdown: &Shutdown) {
    eprintln!(
        "AGENTTY-REPORT {scenario}: max {} messages in a rolling second ({} in Agentty's window), \
         {} trees, largest {} elements / depth {} / {} bytes, {} notifications, {} log lines; \
         shutdown {} ms ({} processes stopped)",
        stats.max_rate,
        stats.max_window,
        stats.trees,
        stats.max_elements,
        stats.max_depth,
        stats.max_tree_bytes,
        stats.notifies,
        stats.log_lines,
        shutdown.elapsed.as_millis(),
        shutdown.recorded.len(),
    );
}
