//! End-to-end warm open (real bridge, real pinned `claude`, mock model): once a session is open,
//! a spare CLI is kept ready; the next open in the same cwd with the same flags is served by it,
//! an open with other flags spawns its own, a spare makes no model traffic and is no session,
//! and no spare outlives the bridge.

mod common;

use agent_bridge_conformance::procs::{self, ProcInfo};
use common::*;
use serde_json::json;
use std::time::Duration;

/// Waits until `cond` holds for the `claude` processes under the bridge; returns them.
async fn procs_until(rig: &Rig, what: &str, cond: impl Fn(&[ProcInfo]) -> bool) -> Vec<ProcInfo> {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let found = rig.cli_procs();
        if cond(&found) {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never: {what}: {found:?}\nstderr:\n{}",
            rig.host.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn pids(found: &[ProcInfo]) -> Vec<i32> {
    found.iter().map(|p| p.pid).collect()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn second_open_is_served_by_the_spare_and_no_spare_outlives_the_bridge() {
    let Some(rig) = warm_rig().await else { return };
    rig.open("s-1", json!({})).await;
    let first = first_session_cli(&rig);
    // A spare is started once the first CLI has answered.
    let found = procs_until(&rig, "a spare next to the session", |p| p.len() == 2).await;
    let spare = found[1].clone();
    assert_ne!(spare.pid, first.pid);

    // The second open in the same cwd with the same flags takes the spare (it waits for it if
    // it is still starting) and a new spare is started for the next one.
    rig.open("s-2", json!({})).await;
    let found = procs_until(&rig, "a new spare", |p| p.len() == 3).await;
    let fresh = found[2].clone();
    assert_eq!(
        pids(&found[..2]),
        vec![first.pid, spare.pid],
        "no process was started for s-2"
    );
    assert!(
        rig.mock.model_requests().is_empty(),
        "opening sessions and spares makes no model request"
    );

    // The spare now is s-2: it answers s-2's prompt, and s-2's close stops exactly it.
    let run = rig.run_turn("s-2", "say hi").await;
    assert_eq!(run.state(), "completed");
    assert!(last_assistant_text(&rig.timeline("s-2")).starts_with("hi! (mock reply"));
    assert!(rig.timeline("s-1").is_empty(), "nothing leaked into s-1");
    rig.finish("s-2").await;
    assert!(
        procs::wait_gone(std::slice::from_ref(&spare), STEP)
            .await
            .is_empty(),
        "s-2 ran in the spare"
    );
    assert!(first.is_alive() && fresh.is_alive());

    // Other flags never take the spare: s-3 (plan mode) gets a process of its own.
    rig.open("s-3", json!({"mode": "plan"})).await;
    let found = procs_until(&rig, "s-3's own CLI", |p| {
        p.iter()
            .any(|q| q.cmdline.contains("--permission-mode=plan"))
    })
    .await;
    assert!(fresh.is_alive(), "the default spare is still unused");
    assert!(found.iter().any(|p| p.pid == fresh.pid));
    let plan: Vec<&ProcInfo> = found
        .iter()
        .filter(|p| p.cmdline.contains("--permission-mode=plan"))
        .collect();
    assert!(!plan.is_empty() && plan.iter().all(|p| p.pid != fresh.pid));
    rig.finish("s-3").await;

    // Spares are no sessions: closing every session leaves only spares, and the bridge's exit
    // stops them all.
    rig.finish("s-1").await;
    assert!(
        procs::wait_gone(std::slice::from_ref(&first), STEP)
            .await
            .is_empty(),
        "s-1's CLI stopped with s-1"
    );
    let everything = rig.host.descendants();
    let spares = rig.cli_procs();
    assert!(!spares.is_empty(), "spares stay ready after the sessions");
    rig.host.close_stdin().await;
    rig.host
        .wait_exit(STEP)
        .await
        .expect("the bridge exits on stdin EOF");
    assert!(
        procs::wait_gone(&everything, Duration::from_secs(10))
            .await
            .is_empty(),
        "a spare (or its guard) outlived the bridge"
    );
    rig.report("warm-open");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalog_in_a_cwd_leaves_a_spare_for_the_first_open_there() {
    let Some(rig) = warm_rig().await else { return };
    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "cat",
            |rid| json!({"type": "catalog", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("catalog"), "{answer}");
    // The catalog's CLI stays as the spare for a default session in that cwd.
    let found = procs_until(&rig, "the catalog's CLI kept", |p| p.len() == 1).await;
    let spare = found[0].clone();
    rig.open("s-c", json!({})).await;
    let found = procs_until(&rig, "a new spare", |p| p.len() == 2).await;
    assert_eq!(found[0].pid, spare.pid, "s-c runs in the catalog's CLI");
    let run = rig.run_turn("s-c", "say hi").await;
    assert_eq!(run.state(), "completed");
    rig.finish("s-c").await;
    assert!(
        procs::wait_gone(std::slice::from_ref(&spare), STEP)
            .await
            .is_empty(),
        "s-c's close stopped it"
    );
    rig.report("warm-open-after-catalog");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_bridge_leaves_no_spare() {
    let Some(rig) = warm_rig().await else { return };
    rig.open("s-k", json!({})).await;
    procs_until(&rig, "a spare next to the session", |p| p.len() == 2).await;
    let everything = rig.host.descendants();
    rig.host.signal(libc::SIGKILL).expect("kill -9 the bridge");
    rig.host.wait_exit(STEP).await.expect("the bridge is gone");
    assert!(
        procs::wait_gone(&everything, Duration::from_secs(10))
            .await
            .is_empty(),
        "a CLI or spare outlived a SIGKILLed bridge"
    );
    rig.report("warm-spare-kill-9-bridge");
}
