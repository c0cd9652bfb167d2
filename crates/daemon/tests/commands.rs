//! `try` and `doctor` through the built binary, against a plugin folder that holds only the demo
//! provider (so other installed CLIs cannot change the outcome).

use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_agent-bridge");

fn demo_plugin() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("bridge-cmd-")
        .tempdir()
        .expect("temp dir");
    let manifest = r#"{"id":"agent-bridge","version":"0.1.0","providers":[
        {"id":"demo","label":"Demo agent","agent":"demo","command":[]}]}"#;
    std::fs::write(dir.path().join("plugin.json"), manifest).expect("write plugin.json");
    dir
}

fn run(plugin: &Path, args: &[&str]) -> (Output, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("AGENT_BRIDGE_PLUGIN_DIR", plugin)
        .env_remove("NO_COLOR")
        .current_dir(plugin)
        .stdin(Stdio::null())
        .output()
        .expect("run agent-bridge");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

#[test]
fn try_runs_a_tool_in_auto_mode_and_completes() {
    let plugin = demo_plugin();
    let (out, stdout, stderr) = run(
        plugin.path(),
        &[
            "try",
            "--agent",
            "demo",
            "--mode",
            "auto",
            "run `echo hi` now",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    for expected in [
        "Demo agent (demo) · model demo-fast · mode auto",
        "› run `echo hi` now",
        "✓ shell $ echo hi (exit 0)",
        "  │ hi\n",
        "Hello from demo! You said: run `echo hi` now\nCommand exited with code 0: hi\n",
        "usage: ",
        "── turn completed\n",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
    assert!(
        !stdout.contains('\x1b'),
        "no colors when stdout is not a terminal"
    );
    assert_eq!(
        stdout.matches("Hello from demo!").count(),
        1,
        "text printed once:\n{stdout}"
    );
}

#[test]
fn try_without_agent_falls_back_to_demo() {
    let plugin = demo_plugin();
    let (out, stdout, _) = run(plugin.path(), &["try", "hello", "there"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains("Demo agent (demo)"), "{stdout}");
    assert!(stdout.contains("You said: hello there"), "{stdout}");
}

#[test]
fn try_denies_permissions_without_a_terminal_unless_yes() {
    let plugin = demo_plugin();
    let (out, stdout, _) = run(plugin.path(), &["try", "--agent", "demo", "run `echo hi`"]);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("? Run `echo hi`?"), "{stdout}");
    assert!(
        stdout.contains("denied: stdin is not a terminal (pass --yes to allow)"),
        "{stdout}"
    );
    assert!(stdout.contains("✗ shell $ echo hi failed"), "{stdout}");
    assert!(stdout.contains("The command was denied."), "{stdout}");

    let (out, stdout, _) = run(
        plugin.path(),
        &["try", "--agent", "demo", "--yes", "run `echo hi`"],
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("allowed (--yes)"), "{stdout}");
    assert!(stdout.contains("✓ shell $ echo hi (exit 0)"), "{stdout}");
}

#[test]
fn try_exits_1_when_the_turn_fails_or_nothing_opens() {
    let plugin = demo_plugin();
    let (out, stdout, _) = run(plugin.path(), &["try", "--agent", "demo", "FAIL"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("── turn failed: the demo turn failed (FAIL was requested)"),
        "{stdout}"
    );

    let (out, _, stderr) = run(plugin.path(), &["try", "--agent", "nope", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("no provider `nope`"), "{stderr}");

    let (out, _, stderr) = run(plugin.path(), &["try", "--model", "bogus", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("unknown model `bogus`"), "{stderr}");
}

#[test]
fn doctor_lists_demo_as_built_in_and_available() {
    let plugin = demo_plugin();
    let (out, stdout, stderr) = run(plugin.path(), &["doctor"]);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("demo "))
        .unwrap_or_else(|| panic!("no demo line in:\n{stdout}"));
    assert!(line.contains("agent demo"), "{line}");
    assert!(line.contains("cli built in"), "{line}");
    assert!(line.ends_with("available"), "{line}");
    assert!(stdout.contains("1 provider: 1 available"), "{stdout}");
}

#[test]
fn doctor_fails_on_an_agent_this_build_lacks() {
    let plugin = demo_plugin();
    let manifest = r#"{"id":"p","version":"1","providers":[
        {"id":"demo","label":"D","agent":"demo"},{"id":"other","label":"O","agent":"no-such-agent"}]}"#;
    std::fs::write(plugin.path().join("plugin.json"), manifest).expect("write");
    let (out, stdout, _) = run(plugin.path(), &["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("unknown agent"), "{stdout}");
}

#[test]
fn doctor_json_prints_one_object_per_provider() {
    let plugin = demo_plugin();
    let (out, stdout, stderr) = run(plugin.path(), &["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let findings: serde_json::Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    assert_eq!(
        findings,
        serde_json::json!([{"id": "demo", "label": "Demo agent", "agent": "demo",
            "status": "available", "version": null, "cli": null, "diagnostic": null,
            "spares": []}])
    );

    let manifest = r#"{"id":"p","version":"1","providers":[
        {"id":"demo","label":"D","agent":"demo"},{"id":"other","label":"O","agent":"no-such-agent"}]}"#;
    std::fs::write(plugin.path().join("plugin.json"), manifest).expect("write");
    let (out, stdout, _) = run(plugin.path(), &["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let findings: serde_json::Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    assert_eq!(findings[1]["id"], "other");
    assert_eq!(findings[1]["status"], "unknown agent");
}

#[test]
fn bench_and_soak_are_not_in_the_shipping_binary() {
    let plugin = demo_plugin();
    for command in ["bench", "soak"] {
        let (out, _, stderr) = run(plugin.path(), &[command]);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains(&format!("unrecognized subcommand '{command}'")),
            "{stderr}"
        );
    }
}

#[test]
fn doctor_prints_the_path_it_searched_once() {
    let plugin = demo_plugin();
    let manifest = r#"{"id":"p","version":"1","providers":[
        {"id":"claude-bridge","label":"C","agent":"claude"},
        {"id":"codex-bridge","label":"X","agent":"codex"}]}"#;
    std::fs::write(plugin.path().join("plugin.json"), manifest).expect("write");
    let empty = tempfile::tempdir().expect("a folder with no CLI");
    let path = format!(
        "{}:/nonexistent/agent-bridge-doctor",
        empty.path().display()
    );
    let out = Command::new(BIN)
        .arg("doctor")
        .env("AGENT_BRIDGE_PLUGIN_DIR", plugin.path())
        .env("PATH", &path)
        .env("NO_COLOR", "1")
        .current_dir(plugin.path())
        .stdin(Stdio::null())
        .output()
        .expect("run agent-bridge");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "missing CLIs are no problem\n{stdout}"
    );
    let missing: Vec<&str> = stdout.lines().filter(|l| l.contains("not found")).collect();
    assert_eq!(missing.len(), 2, "{stdout}");
    assert!(missing.iter().all(|l| !l.contains(&path)), "{stdout}");
    assert_eq!(stdout.matches(&path).count(), 1, "{stdout}");
    assert!(
        stdout.contains(&format!("PATH searched: {path}\n")),
        "{stdout}"
    );
}
