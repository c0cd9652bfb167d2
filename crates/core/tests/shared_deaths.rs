//! A shared process's crash-loop count, against the echo agent: the sessions of one process
//! report the same death; the next process of the launch is another death but the same count.

mod echo_agent;

use agent_bridge_core::lifecycle::shared::SharedProcesses;
use echo_agent::*;
use pretty_assertions::assert_eq;
use std::time::Duration;

#[tokio::test]
async fn the_sessions_of_a_process_count_its_death_once_and_its_successor_counts_on() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let b = join(&pool, &[], echo("b"), "thread-b").await;
    let (da, db) = (a.member.process().death(), b.member.process().death());
    assert_eq!(da.serial, db.serial, "one process");
    assert_eq!(da.deaths.died(da.serial), 1);
    assert_eq!(db.deaths.died(db.serial), 1, "the same death");
    let first = pid(&a);
    // SAFETY: kill has no memory preconditions; the pid is our child's.
    unsafe { libc::kill(first as i32, libc::SIGKILL) };
    wait_gone(first).await;
    // The pool hands the process out until its peer has closed, which can trail the reaping.
    wait_closed(&a).await;
    let c = join(&pool, &[], echo("c"), "thread-c").await;
    assert!(pid(&c) != first);
    let dc = c.member.process().death();
    assert!(dc.serial != da.serial, "another process");
    assert_eq!(dc.deaths.died(dc.serial), 2, "the launch's count goes on");
    dc.deaths.progressed();
    assert_eq!(da.deaths.in_a_row(), 0, "one count for the launch");
    // Another launch has its own.
    let d = join(&pool, &[("K", "other")], echo("d"), "thread-d").await;
    assert_eq!(d.member.process().death().deaths.in_a_row(), 0);
    assert_eq!(d.member.process().death().deaths.died(99), 1);
    assert_eq!(dc.deaths.in_a_row(), 0);
}
