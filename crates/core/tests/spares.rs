//! Warm spares of shared processes, against the echo agent: the idle process is the provider's
//! spare, taken by the next session of its launch; one per provider; dropped when it dies;
//! stopped after its idle time.

mod echo_agent;

use agent_bridge_core::lifecycle::shared::SharedProcesses;
use agent_bridge_core::spares;
use echo_agent::*;
use pretty_assertions::assert_eq;
use std::time::Duration;

const LONG: Duration = Duration::from_secs(600);

fn registered(pid: u32) -> bool {
    spares::idle().iter().any(|s| s.pid == pid)
}

fn spare_pid(pool: &SharedProcesses) -> Option<u32> {
    pool.spare().and_then(|p| p.pid())
}

#[tokio::test]
async fn the_last_session_leaves_the_process_as_the_spare_the_next_session_joins() {
    let pool = SharedProcesses::new(LONG, STOP).named("echo-spare");
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let first = pid(&a);
    assert_eq!(spare_pid(&pool), None, "in use: not a spare");
    a.member.leave().await;
    assert!(alive(first));
    assert_eq!(spare_pid(&pool), Some(first));
    let record = spares::idle().into_iter().find(|s| s.pid == first);
    assert_eq!(
        record.map(|r| (r.provider, r.kind)),
        Some(("echo-spare".to_string(), "shared".to_string()))
    );
    let b = join(&pool, &[], echo("b"), "thread-b").await;
    assert_eq!(pid(&b), first, "the spare takes the session");
    assert_eq!(spare_pid(&pool), None, "in use again");
    assert!(!registered(first));
}

#[tokio::test]
async fn a_provider_keeps_one_spare_the_older_one_stops() {
    let pool = SharedProcesses::new(LONG, STOP);
    let a = join(&pool, &[("K", "a")], echo("a"), "thread-a").await;
    let b = join(&pool, &[("K", "b")], echo("b"), "thread-b").await;
    let (pa, pb) = (pid(&a), pid(&b));
    assert!(pa != pb, "two launches, two processes");
    a.member.leave().await;
    assert_eq!(spare_pid(&pool), Some(pa));
    b.member.leave().await;
    assert_eq!(
        spare_pid(&pool),
        Some(pb),
        "the latest idle one is the spare"
    );
    wait_gone(pa).await;
    assert!(alive(pb));
    assert!(!registered(pa));
    // The stopped one's launch starts afresh.
    let c = join(&pool, &[("K", "a")], echo("c"), "thread-c").await;
    assert!(pid(&c) != pa);
}

#[tokio::test]
async fn a_spare_that_dies_is_dropped_and_the_next_session_starts_another() {
    let pool = SharedProcesses::new(LONG, STOP);
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let first = pid(&a);
    a.member.leave().await;
    assert_eq!(spare_pid(&pool), Some(first));
    // SAFETY: kill has no memory preconditions; the pid is our child's.
    unsafe { libc::kill(first as i32, libc::SIGKILL) };
    wait_gone(first).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while spare_pid(&pool).is_some() || registered(first) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the dead spare is kept"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let b = join(&pool, &[], echo("b"), "thread-b").await;
    assert!(pid(&b) != first);
}

#[tokio::test]
async fn a_spare_stops_after_its_idle_time() {
    let pool = SharedProcesses::new(Duration::from_millis(300), STOP);
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let first = pid(&a);
    a.member.leave().await;
    assert_eq!(spare_pid(&pool), Some(first), "kept for its idle time");
    wait_gone(first).await;
    assert_eq!(spare_pid(&pool), None);
    assert!(!registered(first));
    let b = join(&pool, &[], echo("b"), "thread-b").await;
    assert!(pid(&b) != first);
}

#[tokio::test]
async fn no_idle_time_no_spare_the_last_leave_stops_the_process() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let first = pid(&a);
    a.member.leave().await;
    assert!(!alive(first), "gone when the leave returns");
    assert_eq!(spare_pid(&pool), None);
}

#[tokio::test]
async fn a_process_left_after_it_died_is_no_spare_and_keeps_the_spare_there_is() {
    let pool = SharedProcesses::new(LONG, STOP);
    let a = join(&pool, &[("K", "a")], echo("a"), "thread-a").await;
    let b = join(&pool, &[("K", "b")], echo("b"), "thread-b").await;
    let (pa, pb) = (pid(&a), pid(&b));
    a.member.leave().await;
    assert_eq!(spare_pid(&pool), Some(pa));
    // SAFETY: kill has no memory preconditions; the pid is our child's.
    unsafe { libc::kill(pb as i32, libc::SIGKILL) };
    wait_gone(pb).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while !b.member.rpc().is_closed() {
        assert!(tokio::time::Instant::now() < deadline, "the death is seen");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    b.member.leave().await;
    assert_eq!(spare_pid(&pool), Some(pa), "the live spare stays");
    assert!(alive(pa));
    assert!(!registered(pb));
}
