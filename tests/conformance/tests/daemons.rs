//! Daemons do not escape: a tool that leaves its process group with `setsid` (an orphaned
//! double-fork daemon, and a session leader whose parent is still alive) is stopped with the
//! bridge, whether the bridge is stopped by stdin close, SIGTERM or SIGKILL.
//!
//! Such processes are no longer members of the guard's process group, and an orphaned one is no
//! longer a descendant of the bridge either, so they are found by a unique marker in their argv
//! through a scan of the whole `/proc`.

mod common;
use agent_bridge_conformance::procs;
use common::*;

/// How the bridge is stopped.
#[derive(Debug, Clone, Copy)]
enum Stop {
    StdinClose,
    Sigterm,
    Sigkill,
}

/// Unique `sleep` durations for one test: `3<pid><test><role>`, so neither parallel tests nor
/// another checkout running the same suite can confuse their processes with ours.
fn marker(test: u32, role: u32) -> String {
    format!("3{:07}{test}{role}", std::process::id())
}

/// Every live process whose argv mentions one of `markers`.
fn marked(markers: &[String]) -> Vec<ProcInfo> {
    procs::all_procs()
        .into_iter()
        .filter(|p| !matches!(p.state, 'Z' | 'X' | 'x'))
        .filter(|p| markers.iter().any(|m| p.cmdline.contains(m.as_str())))
        .collect()
}

/// Polls until a `sleep MARKER` runs for each marker; returns every marked process.
async fn wait_marked(markers: &[String]) -> Vec<ProcInfo> {
    let deadline = std::time::Instant::now() + T;
    loop {
        let found = marked(markers);
        let all_up = markers.iter().all(|m| {
            let cmd = format!("sleep {m}");
            found.iter().any(|p| p.cmdline == cmd)
        });
        if all_up {
            return found;
        }
        if std::time::Instant::now() >= deadline {
            procs::kill_all(&found);
            panic!("not every marked sleep started: {markers:?} {found:#?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn no_daemon_survives(test: u32, stop: Stop) {
    let orphan = marker(test, 1);
    let nested = marker(test, 2);
    let foreground = marker(test, 3);
    // `setsid -f`: forks, the child calls setsid and runs the sleep, the parent exits at once
    // (the sleep is orphaned). `setsid sh -c '… & wait'`: a new session whose leader (the
    // intermediate shell) stays alive as the sleep's parent. The foreground sleep keeps the tool
    // running until the bridge is stopped.
    let command = format!(
        "setsid -f sleep {orphan} </dev/null >/dev/null 2>&1; \
         setsid sh -c 'sleep {nested} & wait' </dev/null >/dev/null 2>&1 & \
         sleep {foreground}"
    );
    let d = demo().await;
    d.open("s", json!({"mode": "auto"})).await;
    d.prompt("s", &format!("run `{command}`")).await;
    let markers = [orphan.clone(), nested.clone(), foreground];
    let recorded = wait_marked(&markers).await;
    let daemon = |m: &str| {
        recorded
            .iter()
            .find(|p| p.cmdline == format!("sleep {m}"))
            .cloned()
            .expect("marked sleep")
    };
    let (o, n) = (daemon(&orphan), daemon(&nested));
    let tool_group = recorded
        .iter()
        .find(|p| p.cmdline.starts_with("sh -c exec 2>&1;"))
        .map(|p| p.pgid);
    for p in [&o, &n] {
        assert_ne!(
            Some(p.pgid),
            tool_group,
            "{p:?} should have left the tool's group ({recorded:#?})"
        );
    }
    let since = std::time::Instant::now();
    match stop {
        Stop::StdinClose => d.host.close_stdin().await,
        Stop::Sigterm => d.host.signal(libc::SIGTERM).expect("SIGTERM"),
        Stop::Sigkill => d.host.signal(libc::SIGKILL).expect("SIGKILL"),
    }
    let exited = d.host.wait_exit(EXIT_LIMIT).await;
    let took = since.elapsed();
    let alive = procs::wait_gone(&recorded, Duration::from_secs(1)).await;
    procs::kill_all(&alive);
    assert!(
        exited.is_ok(),
        "{stop:?}: the bridge did not exit: {exited:?}\n{}",
        d.host.stderr()
    );
    assert!(took <= EXIT_LIMIT, "{stop:?}: exit took {took:?}");
    assert!(
        alive.is_empty(),
        "{stop:?}: setsid daemons outlived the bridge: {alive:#?}"
    );
}

#[tokio::test]
async fn stdin_close_stops_setsid_daemons() {
    no_daemon_survives(1, Stop::StdinClose).await;
}

#[tokio::test]
async fn sigterm_stops_setsid_daemons() {
    no_daemon_survives(2, Stop::Sigterm).await;
}

#[tokio::test]
async fn sigkill_stops_setsid_daemons() {
    no_daemon_survives(3, Stop::Sigkill).await;
}
