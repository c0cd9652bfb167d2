//! A flood of 10,000 requests from a host that reads none of the answers, through the real
//! `agent-bridge serve`: the bridge must apply backpressure (stop reading its stdin once its
//! answers cannot be written) instead of buffering without bound, keep its memory bounded, and
//! answer every request once the host reads again.

mod common;
use common::hostile::*;
use common::*;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const FLOOD: usize = 10_000;
/// The flood writer counts as stalled when it wrote nothing for this long.
const STALL: Duration = Duration::from_secs(1);
/// Hang guard of each phase.
const PHASE: Duration = Duration::from_secs(120);

fn flood_id(m: &Value) -> Option<&str> {
    m.get("id")?.as_str()?.strip_prefix("flood-")
}

/// The requests answered from tasks of their own (the ones that need a bound: a request
/// answered at once already waits for room in stdout's queue).
fn request(n: usize) -> String {
    let method = if n.is_multiple_of(2) {
        "provider/availability"
    } else {
        "provider/catalogCacheKey"
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":"flood-{n}","method":"{method}","params":{{"providerId":"demo","options":{{}}}}}}"#
    )
}

#[tokio::test]
async fn a_flood_nobody_reads_meets_backpressure_and_bounded_memory_then_is_answered() {
    let d = Arc::new(with_bystander().await);
    let idle = d.host.rss_bytes().expect("rss");
    d.host.pause_reading();
    let written = Arc::new(AtomicUsize::new(0));
    let writer = tokio::spawn({
        let d = d.clone();
        let written = written.clone();
        async move {
            for n in 0..FLOOD {
                d.host.send_raw(&request(n)).await.expect("write");
                written.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    // Until the writer stalls (the bridge stopped reading) or it wrote everything.
    let mut peak = idle;
    let mut last = (0, std::time::Instant::now());
    let started = std::time::Instant::now();
    loop {
        peak = peak.max(d.host.rss_bytes().unwrap_or(0));
        let now = written.load(Ordering::SeqCst);
        if now == FLOOD {
            break;
        }
        if now != last.0 {
            last = (now, std::time::Instant::now());
        } else if last.1.elapsed() >= STALL {
            break;
        }
        assert!(
            started.elapsed() < PHASE,
            "the flood neither ended nor stalled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stalled_at = written.load(Ordering::SeqCst);
    eprintln!(
        "flood: {stalled_at} of {FLOOD} requests written before the bridge stopped reading; \
         RSS idle {:.1} MB, peak while unread {:.1} MB",
        idle as f64 / 1e6,
        peak as f64 / 1e6
    );
    assert!(
        stalled_at < FLOOD,
        "the bridge read all {FLOOD} requests while nobody read its answers: no backpressure"
    );
    d.host.resume_reading();
    tokio::time::timeout(PHASE, writer)
        .await
        .expect("the rest of the flood is read once the host reads")
        .expect("writer");
    let answered = d
        .host
        .wait_messages(|m| flood_id(m).is_some(), FLOOD, PHASE)
        .await
        .expect("every request answered");
    peak = peak.max(d.host.rss_bytes().unwrap_or(0));
    let ids: HashSet<String> = d
        .host
        .messages()
        .iter()
        .filter(|m| m.get("result").is_some())
        .filter_map(|m| flood_id(m).map(str::to_string))
        .collect();
    assert_eq!(answered, FLOOD, "one answer per request");
    assert_eq!(ids.len(), FLOOD, "every request answered with a result");
    eprintln!("flood: peak bridge RSS {:.1} MB", peak as f64 / 1e6);
    assert!(peak < RSS_BOUND, "peak RSS {peak} bytes");
    bystander_completes_a_turn(&d, "the flood").await;
    d.host.assert_invariants();
}
