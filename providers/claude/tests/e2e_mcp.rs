//! End-to-end (real bridge, real pinned `claude`, mock model): MCP server secrets (a stdio
//! server's `env`, an HTTP server's `headers`) never appear on a command line. The CLI reads
//! them from a 0600 file in a 0700 folder (a wrapper records both modes as the CLI starts),
//! which is removed once the CLI answered `initialize`, and in any case once the session
//! closed. The servers do not work (a missing program, a closed port): the CLI opens and
//! answers anyway.

mod common;

use agent_bridge_conformance::procs;
use common::*;
use serde_json::json;
use std::path::Path;
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

async fn gone_within(path: &Path, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while path.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    !path.exists()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_secrets_reach_the_cli_in_a_private_file_not_on_a_command_line() {
    let probe = format!(
        "{}/tests/support/mcp_config_probe.sh",
        env!("CARGO_MANIFEST_DIR")
    );
    let launch = |claude: &Path, env: &mock_llm::HermeticEnv| {
        let mut vars = env.env.clone();
        let log = env.root.join("mcp-probe.log");
        vars.insert("MCP_PROBE_LOG".into(), log.display().to_string());
        json!({"command": "/bin/sh", "args": [probe, claude.display().to_string()], "env": vars})
    };
    let Some(rig) = Rig::start_in(SPEC, warm_options(), launch).await else {
        return;
    };
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

    // What the session's CLI was started with: the first line of the probe's log.
    let log = std::fs::read_to_string(rig.env.root.join("mcp-probe.log")).expect("probe log");
    let first = log.lines().next().expect("a CLI started with --mcp-config");
    let fields: Vec<&str> = first.split(' ').collect();
    let [file, file_mode, dir_mode] = fields[..] else {
        panic!("probe line {first:?}")
    };
    assert_eq!((file_mode, dir_mode), ("600", "700"), "{file}");
    let file = Path::new(file);
    let dir = file.parent().expect("its folder");
    // The CLI read it while starting: it is gone once the session is open.
    assert!(
        gone_within(file, Duration::from_secs(5)).await,
        "{} is removed once the CLI answered initialize",
        file.display()
    );
    assert!(gone_within(dir, Duration::from_secs(5)).await);
    rig.finish("s-mcp").await;
    // The spare started for the next open removes its own file once it answered too.
    let files: Vec<String> = procs::descendants(rig.host.pid() as i32)
        .iter()
        .flat_map(|p| {
            let args = argv(p.pid);
            let at = args.iter().position(|a| a == "--mcp-config");
            at.and_then(|i| args.get(i + 1).cloned())
        })
        .collect();
    for f in files {
        assert!(gone_within(Path::new(&f), STEP).await, "{f} stays");
    }
    rig.report("mcp-secrets-off-argv");
}
