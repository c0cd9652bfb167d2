//! End-to-end (real bridge, real pinned `claude`, mock model): MCP server secrets (a stdio
//! server's `env`, an HTTP server's `headers`) never appear on a command line. The CLI reads
//! them from a 0600 file that is gone once the session's CLI stopped. The servers do not
//! work (a missing program, a closed port): the CLI opens and answers anyway.

mod common;

use agent_bridge_conformance::procs;
use common::*;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The raw argv of a process (`/proc/PID/cmdline`, NUL-separated).
fn argv(pid: i32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| {
            raw.split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_secrets_reach_the_cli_in_a_private_file_not_on_a_command_line() {
    let Some(rig) = rig().await else { return };
    let env_secret = format!("SECRET-env-{}", uuid::Uuid::new_v4());
    let header_secret = format!("SECRET-header-{}", uuid::Uuid::new_v4());
    let servers = json!({
        "tools": {"type": "stdio", "command": "/nonexistent/mcp-server", "args": ["--serve"], "env": {"API_TOKEN": env_secret}},
        "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": format!("Bearer {header_secret}")}}
    });
    rig.open("s-mcp", json!({ "mcpServers": servers })).await;
    let run = rig.run_turn("s-mcp", "say hi").await;
    assert_eq!(
        run.state(),
        "completed",
        "failing MCP servers are tolerated"
    );

    // Every process under the bridge (the CLIs, their guards, what they started).
    let all = procs::descendants(rig.host.pid() as i32);
    assert!(!all.is_empty());
    for p in &all {
        let line = argv(p.pid).join(" ");
        assert!(
            !line.contains(&env_secret) && !line.contains(&header_secret),
            "a secret on the command line of {}: {line}",
            p.pid
        );
    }

    let cli = first_session_cli(&rig);
    let args = argv(cli.pid);
    let file = args
        .iter()
        .position(|a| a == "--mcp-config")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no --mcp-config <path> in {args:?}"));
    assert_eq!(mode(&file), 0o600, "{}", file.display());
    let dir = file.parent().expect("its folder").to_path_buf();
    assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    let config = std::fs::read_to_string(&file).expect("the config");
    assert!(config.contains(&env_secret) && config.contains(&header_secret));

    rig.finish("s-mcp").await;
    let deadline = Instant::now() + Duration::from_secs(5);
    while (file.exists() || dir.exists()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !file.exists(),
        "{} is gone with the session",
        file.display()
    );
    assert!(!dir.exists(), "{} is gone with the session", dir.display());
    rig.report("mcp-secrets-off-argv");
}
