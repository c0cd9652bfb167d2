//! Fresh spares against the echo agent: with a fresh start given (as the Codex and ACP
//! providers give), the last session's leave stops its process (gone when the leave returns)
//! and the pool starts another of the launch as the spare, which the next session joins.

mod echo_agent;

use agent_bridge_core::lifecycle::shared::{ByParam, SharedKey, SharedProcesses};
use agent_bridge_core::spares;
use echo_agent::*;
use pretty_assertions::assert_eq;
use std::sync::Arc;
use std::time::Duration;

const LONG: Duration = Duration::from_secs(600);

fn with_fresh_start(pool: &SharedProcesses) {
    let spec = spec(&[]);
    let owned = spec.clone();
    pool.spare_start(
        &SharedKey::of(&spec),
        Arc::new(ByParam("sessionId")),
        Arc::new(move |inbound| Box::pin(start_echo(owned.clone(), inbound))),
    );
}

async fn spare_pid(pool: &SharedProcesses) -> u32 {
    for _ in 0..200 {
        if let Some(pid) = pool.spare().and_then(|p| p.pid()) {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no spare started");
}

#[tokio::test]
async fn the_last_leave_stops_the_process_and_a_fresh_spare_takes_the_next_session() {
    let pool = SharedProcesses::new(LONG, STOP).named("echo-fresh");
    with_fresh_start(&pool);
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let first = pid(&a);
    a.member.leave().await;
    assert!(
        !alive(first),
        "the session's process is gone when its leave returns"
    );
    let spare = spare_pid(&pool).await;
    assert!(spare != first, "a fresh process");
    let record = spares::idle().into_iter().find(|s| s.pid == spare);
    assert_eq!(
        record.map(|r| (r.provider, r.kind)),
        Some(("echo-fresh".to_string(), "shared".to_string()))
    );
    let b = join(&pool, &[], echo("b"), "thread-b").await;
    assert_eq!(pid(&b), spare, "the spare takes the session");
    assert!(pool.spare().is_none(), "in use: not a spare");
    b.member.leave().await;
    assert!(!alive(spare));
    let next = spare_pid(&pool).await;
    assert!(next != spare);
}

#[tokio::test]
async fn without_an_idle_time_no_fresh_spare_starts() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    with_fresh_start(&pool);
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let first = pid(&a);
    a.member.leave().await;
    assert!(!alive(first));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(pool.spare().is_none());
}
