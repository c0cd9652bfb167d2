//! `bench` and `soak` through the built `agent-bridge-dev`, driving the workspace's
//! `agent-bridge` (`agent_bridge_conformance::bridge_binary`) against a plugin folder that holds
//! only the demo provider (so other installed CLIs cannot change the outcome).

use std::path::Path;
use std::process::{Command, Output, Stdio};

const DEV: &str = env!("CARGO_BIN_EXE_agent-bridge-dev");

fn demo_plugin() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("bridge-dev-")
        .tempdir()
        .expect("temp dir");
    let manifest = r#"{"id":"agent-bridge","version":"0.1.0","providers":[
        {"id":"demo","label":"Demo agent","agent":"demo","command":[]}]}"#;
    std::fs::write(dir.path().join("plugin.json"), manifest).expect("write plugin.json");
    dir
}

/// `agent-bridge-dev SUBCOMMAND --bridge-bin <agent-bridge> ARGS...` in the plugin folder.
fn run(plugin: &Path, args: &[&str]) -> (Output, String, String) {
    let bridge = agent_bridge_conformance::bridge_binary().expect("the agent-bridge binary");
    let (command, rest) = args.split_first().expect("a subcommand");
    let out = Command::new(DEV)
        .arg(command)
        .arg("--bridge-bin")
        .arg(&bridge)
        .args(rest)
        .env("AGENT_BRIDGE_PLUGIN_DIR", plugin)
        .current_dir(plugin)
        .stdin(Stdio::null())
        .output()
        .expect("run agent-bridge-dev");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

#[test]
fn bench_streams_without_losing_events() {
    let plugin = demo_plugin();
    let (out, stdout, stderr) = run(
        plugin.path(),
        &[
            "bench",
            "--sessions",
            "4",
            "--events",
            "50",
            "--stream-events",
            "300",
            "--json",
        ],
    );
    assert!(out.status.code().is_some(), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    for run in ["single_stream", "concurrent"] {
        assert_eq!(report[run]["events_lost"], 0, "{run}: {stdout}");
        assert_eq!(report[run]["duplicates"], 0, "{run}: {stdout}");
        assert_eq!(report[run]["turns_not_completed"], 0, "{run}: {stdout}");
    }
    assert_eq!(report["concurrent"]["events_received"], 200);
    assert_eq!(report["single_stream"]["events_received"], 300);
    assert!(report["rss_idle_bytes"].as_u64().unwrap_or(0) > 0);
}

#[test]
fn soak_of_the_demo_accounts_for_every_prompt() {
    let plugin = demo_plugin();
    let (out, stdout, stderr) = run(
        plugin.path(),
        &[
            "soak",
            "--agent",
            "demo",
            "--sessions",
            "3",
            "--turns",
            "12",
            "--seed",
            "7",
            "--kill-rate",
            "0.25",
            "--json",
        ],
    );
    let all: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    let s = &all[0];
    assert_eq!(out.status.code(), Some(0), "{s:#}\n{stderr}");
    let (tally, counts) = (&s["tally"], &s["counts"]);
    assert_eq!(tally["prompts"], 36, "{s:#}");
    assert_eq!(tally["prompts_answered_once"], 36, "{s:#}");
    for zero in [
        "prompts_lost",
        "prompts_duplicated",
        "turns_unended",
        "requests_unanswered",
    ] {
        assert_eq!(tally[zero], 0, "{zero}: {s:#}");
    }
    let planned: u64 = ["text_turns", "tool_turns", "interrupt_turns", "kill_turns"]
        .iter()
        .map(|k| counts[*k].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(planned, 36, "every turn booked once: {counts:#}");
    let ended: u64 = ["completed", "failed", "canceled", "prompt_failed"]
        .iter()
        .map(|k| counts[*k].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(ended, 36, "{counts:#}");
    assert!(counts["kills"].as_u64().unwrap_or(0) > 0, "{counts:#}");
    assert_eq!(
        counts["kills"], counts["kill_turns"],
        "the demo crashes itself"
    );
    assert_eq!(s["orphans"], serde_json::json!([]));
    assert!(s["rss_start_bytes"].as_u64().unwrap_or(0) > 0);
}

#[test]
fn soak_of_an_unknown_provider_fails() {
    let plugin = demo_plugin();
    let (out, _, stderr) = run(
        plugin.path(),
        &["soak", "--agent", "nosuch", "--turns", "1"],
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no provider `nosuch`"), "{stderr}");
}

#[test]
fn a_missing_bridge_is_named() {
    let plugin = demo_plugin();
    let out = Command::new(DEV)
        .args([
            "soak",
            "--bridge-bin",
            "/nonexistent/agent-bridge",
            "--turns",
            "1",
        ])
        .env("AGENT_BRIDGE_PLUGIN_DIR", plugin.path())
        .current_dir(plugin.path())
        .stdin(Stdio::null())
        .output()
        .expect("run agent-bridge-dev");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("starting /nonexistent/agent-bridge serve"),
        "{stderr}"
    );
}
