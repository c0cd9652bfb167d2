//! The bridge stopping stops every idle spare ([`spares::Spares::stop_all`]), and a bridge's report of
//! its spares goes with it. Its own test binary: `stop_all` stops every spare of the process.

mod echo_agent;

use agent_bridge_core::lifecycle::shared::SharedProcesses;
use agent_bridge_core::spares;
use echo_agent::*;
use pretty_assertions::assert_eq;
use std::time::Duration;

#[tokio::test]
async fn stopping_the_bridge_stops_the_idle_spares_and_removes_the_report() {
    let dir = std::env::temp_dir().join(format!("ab-spares-{}", std::process::id()));
    std::env::set_var(spares::DIR_ENV, &dir);
    let pool = SharedProcesses::new(Duration::from_secs(600), STOP).named("echo-exit");
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let first = pid(&a);
    a.member.leave().await;
    let report = dir.join(format!("{}.json", std::process::id()));
    assert!(report.exists(), "published while a spare idles");
    let running = spares::running();
    assert_eq!(
        running
            .iter()
            .map(|s| (s.record.provider.as_str(), s.record.pid))
            .collect::<Vec<_>>(),
        vec![("echo-exit", first)]
    );
    assert!(running[0].rss_bytes > 0, "{running:?}");
    spares::Spares::from_env().stop_all().await;
    assert!(!alive(first), "gone when stop_all returns");
    assert!(spares::idle().is_empty());
    assert!(!report.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
