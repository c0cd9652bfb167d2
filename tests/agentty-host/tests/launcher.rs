//! The launcher (`agentty-plugin.json` `main`) finds the binary as the Paseo adapter does:
//! `AGENT_BRIDGE_BIN`, else the platform package `@agent-bridge/<os>-<cpu>` in a `node_modules`
//! of the plugin folder or a parent, else the checkout's `target/release/agent-bridge`; and it
//! `exec`s it (Agentty's signals reach the binary by the pid it started), with `agentty`.

use agentty_host::stage;
use pretty_assertions::assert_eq;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// This machine as npm names it (`linux-x64`).
fn host_platform() -> String {
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{}-{cpu}", std::env::consts::OS)
}

/// A stand-in binary that writes its pid, path and arguments to `out`.
fn fake(at: &Path, out: &Path) {
    std::fs::create_dir_all(at.parent().expect("parent")).expect("folder");
    let script = format!("#!/bin/sh\necho \"$$ $0 $*\" > '{}'\n", out.display());
    std::fs::write(at, script).expect("write");
    std::fs::set_permissions(at, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Runs the staged launcher as Agentty does; returns (exit code, stderr, what the binary saw).
fn launch(dir: &Path, bin: Option<&Path>, out: &Path) -> (Option<i32>, String, String) {
    let _ = std::fs::remove_file(out);
    let mut cmd = Command::new(dir.join("scripts/agentty.sh"));
    cmd.env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("AGENTTY_PLUGIN_DIR", dir)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(bin) = bin {
        cmd.env("AGENT_BRIDGE_BIN", bin);
    }
    let child = cmd.spawn().expect("launcher starts");
    let pid = child.id();
    let output = child.wait_with_output().expect("launcher ends");
    let seen = std::fs::read_to_string(out).unwrap_or_default();
    let seen = match seen.trim().split_once(' ') {
        Some((ran_as, rest)) => {
            assert_eq!(
                ran_as,
                pid.to_string(),
                "exec'd: the binary has the launcher's pid"
            );
            rest.to_string()
        }
        None => String::new(),
    };
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr, seen)
}

fn expected(bin: &Path, dir: &Path) -> String {
    format!("{} agentty --plugin-dir {}", bin.display(), dir.display())
}

#[test]
fn the_launcher_finds_the_binary_like_the_paseo_adapter() {
    let root = tempfile::tempdir().expect("root");
    let dir: PathBuf = stage(root.path(), |_| {});
    let out = root.path().join("seen.txt");

    // Nothing to run: one line saying where it looked, exit 1.
    let (code, stderr, seen) = launch(&dir, None, &out);
    assert_eq!((code, seen.as_str()), (Some(1), ""));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("@agent-bridge/{}", host_platform())),
        "{stderr}"
    );

    // A checkout's release build.
    let release = dir.join("target/release/agent-bridge");
    fake(&release, &out);
    let (code, _, seen) = launch(&dir, None, &out);
    assert_eq!((code, seen), (Some(0), expected(&release, &dir)));

    // The platform package in a parent's node_modules wins over it (npm hoists it there).
    let package = root
        .path()
        .join("node_modules/@agent-bridge")
        .join(host_platform())
        .join("bin/agent-bridge");
    fake(&package, &out);
    let (code, _, seen) = launch(&dir, None, &out);
    assert_eq!((code, seen), (Some(0), expected(&package, &dir)));

    // And AGENT_BRIDGE_BIN wins over both.
    let explicit = root.path().join("elsewhere/agent-bridge");
    fake(&explicit, &out);
    let (code, _, seen) = launch(&dir, Some(&explicit), &out);
    assert_eq!((code, seen), (Some(0), expected(&explicit, &dir)));
}

#[test]
fn the_manifest_is_one_agentty_installs() {
    let root = tempfile::tempdir().expect("root");
    let dir = stage(root.path(), |_| {});
    let manifest = agentty_host::manifest::load(&dir).expect("valid manifest");
    assert_eq!(manifest.id, "agent-bridge");
    // API 4 for `tools/call` (`mcp.tools`).
    assert_eq!(manifest.raw["apiVersion"], 4);
    assert_eq!(
        manifest.permissions,
        [
            "session.read",
            "prompt.inject",
            "workspace.read",
            "mcp.tools"
        ]
    );
    assert_eq!(manifest.raw["version"], read_plugin_json_version());
    // Agentty refuses a folder named otherwise.
    let renamed = root.path().join("plugins/bridge");
    std::fs::rename(&dir, &renamed).expect("rename");
    let err = agentty_host::manifest::load(&renamed).expect_err("id must be the folder's name");
    assert!(err.contains("does not match the folder"), "{err}");
}

fn read_plugin_json_version() -> serde_json::Value {
    let repo = agent_bridge_conformance::workspace_root();
    let text = std::fs::read_to_string(repo.join("plugin.json")).expect("plugin.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["version"].clone()
}
