//! The agent-process owner against real processes (`sh`).

use agent_bridge_core::agent_process::AgentProcess;
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_protocol::ErrorCode;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

fn sh(script: &str) -> SpawnSpec {
    SpawnSpec {
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        ..SpawnSpec::default()
    }
}

fn alive(pid: u32) -> bool {
    // A zombie counts as gone.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn pids_with_marker(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            if let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) {
                if String::from_utf8_lossy(&cmd).contains(marker) && alive(pid) {
                    out.push(pid);
                }
            }
        }
    }
    out
}

#[tokio::test]
async fn an_exit_is_published_with_its_status_and_stderr_tail() {
    let (process, _io) = AgentProcess::spawn(
        &sh("echo first >&2; echo 'fatal: no model' >&2; exit 3"),
        "Fake CLI",
    )
    .expect("spawn");
    let info = tokio::time::timeout(Duration::from_secs(10), process.wait_exit())
        .await
        .expect("exit in time")
        .expect("an exit");
    assert_eq!(info.code, Some(3));
    assert!(!info.expected);
    assert!(info.stderr.contains("fatal: no model"), "{}", info.stderr);
    let error = info.error(process.label());
    assert_eq!(
        error.message,
        "Fake CLI exited unexpectedly (exit status: 3)"
    );
    assert_eq!(error.code, Some(ErrorCode::RuntimeExited));
}

#[tokio::test]
async fn what_the_leader_leaves_in_its_group_is_killed_when_it_exits() {
    let marker = format!("sleep 3{}", std::process::id() % 100000 + 100000);
    let script = format!("{marker} & echo started; exit 0");
    let (process, mut io) = AgentProcess::spawn(&sh(&script), "Fake CLI").expect("spawn");
    let _ = io.stdout.next_line().await;
    let info = process.wait_exit().await.expect("exit");
    assert_eq!(info.code, Some(0));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pids_with_marker(&marker).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(pids_with_marker(&marker), Vec::<u32>::new());
}

#[tokio::test]
async fn stop_escalates_past_a_process_that_ignores_stdin_close_and_term() {
    let (process, io) = AgentProcess::spawn(
        &sh("trap '' TERM; while :; do sleep 0.05; done"),
        "Stubborn",
    )
    .expect("spawn");
    let pid = process.pid().expect("pid");
    let mut stdin = io.stdin;
    stdin.shutdown().await.expect("close stdin");
    tokio::time::timeout(Duration::from_secs(10), process.stop())
        .await
        .expect("stopped within the grace times");
    let info = process.exited().expect("exit published");
    assert!(info.expected);
    assert_eq!(info.signal, Some(9), "{info:?}");
    assert!(!alive(pid));
}

#[tokio::test]
async fn a_dropped_process_is_killed() {
    let marker = format!("sleep 4{}", std::process::id() % 100000 + 100000);
    let (process, _io) =
        AgentProcess::spawn(&sh(&format!("{marker}; true")), "Fake CLI").expect("spawn");
    let watch = process.exit_watch();
    drop(process);
    let mut watch = watch;
    let info = tokio::time::timeout(Duration::from_secs(5), watch.wait_for(Option::is_some))
        .await
        .expect("exit in time")
        .expect("watch")
        .clone()
        .expect("exit");
    assert!(info.expected);
    assert_eq!(pids_with_marker(&marker), Vec::<u32>::new());
}
