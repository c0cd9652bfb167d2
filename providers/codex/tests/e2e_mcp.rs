//! The session's MCP servers end to end with the real pinned `codex app-server`: they join the
//! servers of the user's `config.toml` (none is dropped), and their secrets (stdio `env`, HTTP
//! `headers`) reach the servers without appearing on any command line.

mod common;

use common::mcp::{add_user_server, eventually, last_turn_request, offered_tools, stdio, HttpMcp};
use common::*;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::path::Path;

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_config_servers_stay_next_to_the_sessions_servers() {
    let Some(rig) = rig().await else { return };
    add_user_server(&rig.env.config_dir, "usersrv", &["user_echo"]);
    rig.open(
        "s-mcp",
        json!({"mcpServers": {"sess": stdio(&["sess_echo"], None, json!({}))}}),
    )
    .await;
    let run = rig.run_turn("s-mcp", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let offered = offered_tools(&last_turn_request(&rig.mock));
    let mcp: Vec<(&String, &Vec<String>)> = offered
        .iter()
        .filter(|(name, _)| name.starts_with("mcp__"))
        .collect();
    assert_eq!(
        mcp,
        vec![
            (&"mcp__sess".to_string(), &vec!["sess_echo".to_string()]),
            (&"mcp__usersrv".to_string(), &vec!["user_echo".to_string()]),
        ]
    );
    rig.finish("s-mcp").await;
    rig.report("mcp-user-and-session-servers");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_secrets_reach_the_servers_but_no_command_line() {
    let Some(rig) = rig().await else { return };
    let env_secret = format!("SECRET-{}", uuid::Uuid::new_v4());
    let header_secret = format!("SECRET-{}", uuid::Uuid::new_v4());
    let records = tempfile::tempdir().expect("temp dir");
    let record = records.path().join("local.jsonl");
    let http = HttpMcp::start("pong").await;
    rig.open(
        "s-secret",
        json!({"mcpServers": {
            "local": stdio(&["local_echo"], Some(&record), json!({"FIXTURE_TOKEN": env_secret})),
            "remote": {"type": "http", "url": http.url, "headers": {"X-Api-Key": header_secret}},
        }}),
    )
    .await;
    let run = rig.run_turn("s-secret", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);

    // Both servers reached Codex: the model is offered their tools.
    let offered = offered_tools(&last_turn_request(&rig.mock));
    assert_eq!(
        offered.get("mcp__local"),
        Some(&vec!["local_echo".into()]),
        "{offered:#?}"
    );
    assert_eq!(
        offered.get("mcp__remote"),
        Some(&vec!["pong".into()]),
        "{offered:#?}"
    );
    // With their secrets: the stdio server's environment, the HTTP server's request headers.
    let started = std::fs::read_to_string(&record).unwrap_or_default();
    let first: Value = started
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .expect("the stdio server recorded its start");
    assert_eq!(first["env"]["FIXTURE_TOKEN"], json!(env_secret));
    assert!(
        eventually(STEP, || http
            .requests()
            .iter()
            .any(|h| h.get("x-api-key") == Some(&header_secret)))
        .await,
        "the header reached the HTTP server: {:?}",
        http.requests()
    );

    // No command line of anything under the bridge holds a secret.
    let procs = rig.host.descendants();
    assert!(
        procs.iter().any(|p| p.cmdline.contains("mcp-echo.mjs")),
        "the walk sees the stdio server: {procs:#?}"
    );
    for p in &procs {
        let argv = std::fs::read(format!("/proc/{}/cmdline", p.pid)).unwrap_or_default();
        let argv = String::from_utf8_lossy(&argv);
        for secret in [&env_secret, &header_secret] {
            assert!(!argv.contains(secret.as_str()), "{secret} in argv of {p:?}");
        }
    }
    // Nor did they land in the user's Codex home.
    for secret in [&env_secret, &header_secret] {
        assert_eq!(files_holding(&rig.env.home, secret), Vec::<String>::new());
    }
    rig.finish("s-secret").await;
    rig.report("mcp-secrets-off-argv");
}

/// Regular files under `dir` (symlinks not followed) whose bytes contain `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let (path, Ok(kind)) = (entry.path(), entry.file_type()) else {
                continue;
            };
            // Regular files only: a FIFO or socket the CLI left there would block the read.
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && std::fs::read(&path)
                    .is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
            {
                found.push(path.display().to_string());
            }
        }
    }
    found
}
