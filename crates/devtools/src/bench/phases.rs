//! The measurements, each a short conversation with the bridge over its pipes.

use super::bridge::{Bridge, Tally};
use super::report::Stream;
use super::stats::Dist;
use crate::host::proc_tree::{cpu_seconds, rss_bytes};
use agent_bridge_protocol::wire::{METHOD_CONNECT, METHOD_INITIALIZE, METHOD_SEND};
use agent_bridge_protocol::{
    HistoryMode, PromptDelivery, PromptInput, ProviderContent, ProviderInput, ProviderPrompt,
    ProviderSessionConfig,
};
use anyhow::{anyhow, bail};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Lets the bridge settle (allocator, lazily started tasks) before memory is read.
pub const SETTLE: Duration = Duration::from_millis(300);

/// Round trip of the first `initialize`, then of `repeats` more.
pub fn initialize(b: &mut Bridge, repeats: usize) -> anyhow::Result<(f64, Option<Dist>)> {
    let params = json!({ "apiVersion": 1, "host": { "name": "agent-bridge bench", "version": env!("CARGO_PKG_VERSION") } });
    let (_, first) = b.call(METHOD_INITIALIZE, params.clone())?;
    let mut again = Vec::new();
    for _ in 0..repeats {
        let (_, rtt) = b.call(METHOD_INITIALIZE, params.clone())?;
        again.push(rtt.as_nanos() as i64);
    }
    Ok((first.as_secs_f64() * 1e3, Dist::from_nanos(again)))
}

/// `provider/connect` offering what the demo needs; returns the connection id.
pub fn connect(b: &mut Bridge, provider_id: &str) -> anyhow::Result<String> {
    let params = json!({ "providerId": provider_id, "request": { "versions": [1], "capabilities": ["prompt.message", "permission"] } });
    let (result, _) = b.call(METHOD_CONNECT, params)?;
    result
        .get("connectionId")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| anyhow!("connect returned no connectionId: {result}"))
}

pub fn current_rss(b: &Bridge) -> anyhow::Result<u64> {
    rss_bytes(b.pid)
        .map(|(rss, _)| rss)
        .ok_or_else(|| anyhow!("cannot read /proc/{}/status", b.pid))
}

fn send_line(b: &mut Bridge, connection: &str, input: ProviderInput) -> anyhow::Result<Value> {
    let params = json!({ "connectionId": connection, "input": serde_json::to_value(input)? });
    Ok(b.request_line(METHOD_SEND, params).1)
}

fn open_input(session_id: &str, cwd: &str) -> ProviderInput {
    ProviderInput::SessionOpen {
        request_id: session_id.to_string(),
        session_id: session_id.to_string(),
        config: ProviderSessionConfig {
            cwd: cwd.to_string(),
            mode: Some("auto".into()),
            ..Default::default()
        },
        persistence: None,
        history: HistoryMode::Skip,
    }
}

fn wait_ready(b: &Bridge, ids: &[String], limit: Duration) -> anyhow::Result<Vec<Instant>> {
    let times = b.wait(limit, "session.ready", |s| {
        ids.iter()
            .map(|id| s.ready.get(id).cloned())
            .collect::<Option<Vec<_>>>()
    })?;
    times
        .into_iter()
        .map(|(at, r)| {
            r.map(|()| at)
                .map_err(|e| anyhow!("session.open failed: {e}"))
        })
        .collect()
}

/// Opens sessions one at a time; returns each open's latency (send -> `session.ready`) in ns.
pub fn open_sequential(
    b: &mut Bridge,
    connection: &str,
    ids: &[String],
    cwd: &str,
) -> anyhow::Result<Vec<i64>> {
    let mut latencies = Vec::new();
    for id in ids {
        let line = send_line(b, connection, open_input(id, cwd))?;
        let sent = Instant::now();
        b.write_lines(&[line])?;
        let ready = wait_ready(b, std::slice::from_ref(id), Duration::from_secs(10))?;
        latencies.push(ready[0].saturating_duration_since(sent).as_nanos() as i64);
    }
    Ok(latencies)
}

/// Opens sessions all at once and waits until every one is ready.
pub fn open_all(b: &mut Bridge, connection: &str, ids: &[String], cwd: &str) -> anyhow::Result<()> {
    let mut lines = Vec::new();
    for id in ids {
        lines.push(send_line(b, connection, open_input(id, cwd))?);
    }
    b.write_lines(&lines)?;
    wait_ready(b, ids, Duration::from_secs(60))?;
    Ok(())
}

/// Sends `BENCH n` to every session at once and waits for every turn to end. The rate counts
/// from the moment the prompts are written to the moment the last turn ended. Also returns
/// the raw latency samples (ns).
pub fn stream(
    b: &mut Bridge,
    connection: &str,
    ids: &[String],
    n: u32,
    limit: Duration,
) -> anyhow::Result<(Stream, Vec<i64>)> {
    {
        let mut s = b.state();
        s.latencies_ns.clear();
        for id in ids {
            s.tallies.insert(id.clone(), Tally::new(n));
        }
    }
    let mut lines = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let prompt = ProviderPrompt {
            client_message_id: format!("bench-{}-{i}", crate::bench::bridge::unix_nanos()),
            delivery: PromptDelivery::Auto,
            input: PromptInput::Message {
                content: vec![ProviderContent::text(format!("BENCH {n}"))],
            },
            output_schema: None,
            clear_pending_permissions: None,
        };
        let input = ProviderInput::SessionPrompt {
            session_id: id.clone(),
            prompt,
        };
        lines.push(send_line(b, connection, input)?);
    }
    let cpu_before = cpu_seconds(b.pid);
    let start = Instant::now();
    b.write_lines(&lines)?;
    let ended = b.wait(limit, "every bench turn to end", |s| {
        let all = ids
            .iter()
            .all(|id| s.tallies.get(id).is_some_and(|t| t.end.is_some()));
        all.then_some(())
    });
    let cpu = cpu_seconds(b.pid)
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    let mut s = b.state();
    let tallies: Vec<Tally> = ids.iter().filter_map(|id| s.tallies.remove(id)).collect();
    let samples = std::mem::take(&mut s.latencies_ns);
    drop(s);
    if let Err(e) = ended {
        tracing::warn!("{e:#}");
    }
    let last = tallies
        .iter()
        .filter_map(|t| t.end.map(|(_, at)| at).or(t.last_item))
        .max()
        .unwrap_or(start);
    let received: u64 = tallies.iter().map(|t| u64::from(t.unique)).sum();
    let seconds = last.saturating_duration_since(start).as_secs_f64();
    let stream = Stream {
        sessions: ids.len(),
        events_per_session: n,
        events_received: received,
        seconds,
        events_per_sec: if seconds > 0.0 {
            received as f64 / seconds
        } else {
            0.0
        },
        events_lost: (ids.len() as u64 * u64::from(n)).saturating_sub(received),
        duplicates: tallies.iter().map(|t| u64::from(t.duplicates)).sum(),
        turns_not_completed: ids.len() - tallies.iter().filter(|t| t.complete()).count(),
        latency: Dist::from_nanos(samples.clone()),
        bridge_cpu_seconds: cpu,
    };
    Ok((stream, samples))
}

/// Many small turns one after another on one session: latency without queueing.
pub fn small_turns(
    b: &mut Bridge,
    connection: &str,
    id: &str,
    turns: usize,
    n: u32,
) -> anyhow::Result<Option<Dist>> {
    let mut all = Vec::new();
    let ids = [id.to_string()];
    for _ in 0..turns {
        let (st, samples) = stream(b, connection, &ids, n, Duration::from_secs(10))?;
        if st.turns_not_completed > 0 || st.events_lost > 0 {
            bail!("a small bench turn did not complete");
        }
        all.extend(samples);
    }
    Ok(Dist::from_nanos(all))
}
