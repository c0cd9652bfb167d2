//! The benchmark's host: `agent-bridge serve` as a child over pipes. One thread only reads
//! stdout and stamps each line with the host clock the moment it is read; a second thread
//! parses and tallies, so the measurement is not limited by parsing.

use crate::host::child::serve_command;
use agent_bridge_protocol::jsonrpc::RpcError;
use agent_bridge_protocol::wire::EventNotification;
use agent_bridge_protocol::{ItemBody, ProviderEvent, TurnState};
use anyhow::{anyhow, bail, Context};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Nanoseconds since the Unix epoch (the clock the demo stamps `BENCH` items with).
pub fn unix_nanos() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or_default()
}

/// What one session's bench turn delivered.
#[derive(Debug, Default)]
pub struct Tally {
    pub expected: u32,
    seen: Vec<u64>,
    pub unique: u32,
    pub duplicates: u32,
    pub unexpected: u32,
    pub first_item: Option<Instant>,
    pub last_item: Option<Instant>,
    pub end: Option<(TurnState, Instant)>,
    /// When a real agent's assistant text was read (a Codex or Claude turn; at most 64).
    pub outputs: Vec<Instant>,
}

impl Tally {
    pub fn new(expected: u32) -> Self {
        Tally {
            expected,
            seen: vec![0; (expected as usize).div_ceil(64)],
            ..Tally::default()
        }
    }

    /// Records bench item number `i`.
    pub fn record(&mut self, i: u32, at: Instant) {
        self.first_item.get_or_insert(at);
        self.last_item = Some(at);
        if i >= self.expected {
            self.unexpected += 1;
            return;
        }
        let (word, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        if self.seen[word] & bit != 0 {
            self.duplicates += 1;
        } else {
            self.seen[word] |= bit;
            self.unique += 1;
        }
    }

    /// Every item arrived once and the turn completed.
    pub fn complete(&self) -> bool {
        self.unique == self.expected
            && self.duplicates == 0
            && self.unexpected == 0
            && matches!(self.end, Some((TurnState::Completed, _)))
    }
}

/// Everything the parser thread learned.
#[derive(Debug, Default)]
pub struct State {
    /// Answers to the host's requests: id -> (when read, result or error).
    pub answers: HashMap<i64, (Instant, Result<Value, String>)>,
    /// `session.ready` (or a failed open) by session id.
    pub ready: HashMap<String, (Instant, Result<(), String>)>,
    pub tallies: HashMap<String, Tally>,
    /// Added latency (host read − agent emission) of every bench item, in ns.
    pub latencies_ns: Vec<i64>,
    pub malformed: u64,
    pub lines: u64,
    pub eof: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running `agent-bridge serve`.
pub struct Bridge {
    child: Child,
    stdin: Option<ChildStdin>,
    pub pid: u32,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    next_id: i64,
}

impl Bridge {
    /// Starts `<exe> serve [--plugin-dir DIR]` in DIR with piped stdio.
    pub fn spawn(bridge: &Path, plugin_dir: Option<&Path>) -> anyhow::Result<Bridge> {
        let mut child = serve_command(bridge, plugin_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {} serve", bridge.display()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("no stdout pipe"))?;
        let stdin = child.stdin.take();
        let shared = Arc::new(Shared::default());
        let (tx, rx) = mpsc::channel::<(i128, Instant, String)>();
        let reader = std::thread::Builder::new()
            .name("bench-read".into())
            .spawn(move || {
                let mut out = BufReader::with_capacity(1 << 20, stdout);
                loop {
                    let mut line = String::new();
                    match out.read_line(&mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            if tx.send((unix_nanos(), Instant::now(), line)).is_err() {
                                break;
                            }
                        }
                    }
                }
            })?;
        let parser_shared = shared.clone();
        let parser = std::thread::Builder::new()
            .name("bench-parse".into())
            .spawn(move || parse_loop(rx, &parser_shared))?;
        Ok(Bridge {
            pid: child.id(),
            child,
            stdin,
            shared,
            threads: vec![reader, parser],
            next_id: 1,
        })
    }

    pub fn state(&self) -> MutexGuard<'_, State> {
        self.shared.lock()
    }

    /// Writes lines to the bridge's stdin, then flushes once.
    pub fn write_lines(&mut self, lines: &[Value]) -> anyhow::Result<()> {
        let mut buf = Vec::new();
        for l in lines {
            serde_json::to_writer(&mut buf, l)?;
            buf.push(b'\n');
        }
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("stdin is closed"))?;
        stdin.write_all(&buf)?;
        stdin.flush()?;
        Ok(())
    }

    /// A request message with a fresh id.
    pub fn request_line(&mut self, method: &str, params: Value) -> (i64, Value) {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        (id, line)
    }

    /// Sends a request; returns its id and when it was written.
    pub fn request(&mut self, method: &str, params: Value) -> anyhow::Result<(i64, Instant)> {
        let (id, line) = self.request_line(method, params);
        let at = Instant::now();
        self.write_lines(&[line])?;
        Ok((id, at))
    }

    /// Sends a request and waits for its answer; returns the result and the round trip.
    pub fn call(&mut self, method: &str, params: Value) -> anyhow::Result<(Value, Duration)> {
        let (id, sent) = self.request(method, params)?;
        let (read, result) = self.answer(id, Duration::from_secs(30))?;
        let result = result.map_err(|e| anyhow!("`{method}` failed: {e}"))?;
        Ok((result, read.saturating_duration_since(sent)))
    }

    /// Waits for the answer to request `id`.
    pub fn answer(
        &self,
        id: i64,
        limit: Duration,
    ) -> anyhow::Result<(Instant, Result<Value, String>)> {
        self.wait(limit, &format!("the answer to request {id}"), |s| {
            s.answers.remove(&id)
        })
    }

    /// Waits until `check` returns something (re-checked whenever the parser learns more).
    pub fn wait<T>(
        &self,
        limit: Duration,
        what: &str,
        mut check: impl FnMut(&mut State) -> Option<T>,
    ) -> anyhow::Result<T> {
        let deadline = Instant::now() + limit;
        let mut state = self.shared.lock();
        loop {
            if let Some(v) = check(&mut state) {
                return Ok(v);
            }
            if state.eof {
                bail!("the bridge stopped while waiting for {what}");
            }
            let now = Instant::now();
            if now >= deadline {
                bail!("timed out after {limit:?} waiting for {what}");
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, (deadline - now).min(Duration::from_millis(100)))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Closes stdin and waits for the bridge to exit (killing it after `limit`).
    pub fn shutdown(mut self, limit: Duration) -> anyhow::Result<()> {
        let _ =
            self.write_lines(&[json!({ "jsonrpc": "2.0", "method": "shutdown", "params": {} })]);
        self.stdin = None;
        let deadline = Instant::now() + limit;
        loop {
            if self.child.try_wait()?.is_some() {
                break;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                bail!("the bridge did not exit within {limit:?} after shutdown");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        Ok(())
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    id: Option<i64>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<RpcError>,
    #[serde(default)]
    params: Option<EventNotification>,
}

fn parse_loop(rx: mpsc::Receiver<(i128, Instant, String)>, shared: &Shared) {
    while let Ok((nanos, at, text)) = rx.recv() {
        let parsed = serde_json::from_str::<Line>(&text);
        let mut state = shared.lock();
        state.lines += 1;
        let notify = match parsed {
            Err(_) => {
                state.malformed += 1;
                false
            }
            Ok(line) => absorb(&mut state, line, nanos, at),
        };
        drop(state);
        if notify {
            shared.changed.notify_all();
        }
    }
    shared.lock().eof = true;
    shared.changed.notify_all();
}

/// Applies one line to the state; true when a waiter may care.
fn absorb(state: &mut State, line: Line, nanos: i128, at: Instant) -> bool {
    if let Some(n) = line.params {
        return absorb_event(state, n.event, nanos, at);
    }
    let Some(id) = line.id else {
        state.malformed += 1;
        return false;
    };
    let result = match line.error {
        Some(e) => Err(e.to_string()),
        None => Ok(line.result.unwrap_or(Value::Null)),
    };
    state.answers.insert(id, (at, result));
    true
}

fn absorb_event(state: &mut State, event: ProviderEvent, nanos: i128, at: Instant) -> bool {
    match event {
        ProviderEvent::TimelineItem {
            session_id, item, ..
        } => {
            let Some(i) = bench_index(&item.id) else {
                // A real agent's reply (a Codex or Claude turn): when it began to show.
                if let (ItemBody::AssistantMessage { .. }, Some(t)) =
                    (&item.body, state.tallies.get_mut(&session_id))
                {
                    t.first_item.get_or_insert(at);
                    if t.outputs.len() < 64 {
                        t.outputs.push(at);
                    }
                }
                return false;
            };
            if let ItemBody::AssistantMessage { text, .. } = &item.body {
                if let Some(sent) = text.strip_prefix("t=").and_then(|t| t.parse::<i128>().ok()) {
                    state.latencies_ns.push((nanos - sent) as i64);
                }
            }
            if let Some(t) = state.tallies.get_mut(&session_id) {
                t.record(i, at);
            }
            false
        }
        ProviderEvent::SessionReady { session_id, .. } => {
            state.ready.insert(session_id, (at, Ok(())));
            true
        }
        ProviderEvent::RequestFailed { request_id, error } => {
            // Opens use the session id as request id.
            state.ready.insert(request_id, (at, Err(error.message)));
            true
        }
        ProviderEvent::SessionTurn {
            session_id,
            state: turn,
            ..
        } if turn != TurnState::Started => {
            if let Some(t) = state.tallies.get_mut(&session_id) {
                t.end = Some((turn, at));
            }
            true
        }
        _ => false,
    }
}

/// `bench:<turn>:<i>` -> i.
pub fn bench_index(item_id: &str) -> Option<u32> {
    let rest = item_id.strip_prefix("bench:")?;
    rest.rsplit(':').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_ids_parse() {
        assert_eq!(bench_index("bench:1b2c-3d:17"), Some(17));
        assert_eq!(bench_index("assistant:x"), None);
        assert_eq!(bench_index("bench:t:x"), None);
    }

    #[test]
    fn tally_counts_unique_duplicate_and_stray_items() {
        let now = Instant::now();
        let mut t = Tally::new(3);
        for i in [0, 1, 1, 2, 7] {
            t.record(i, now);
        }
        assert_eq!((t.unique, t.duplicates, t.unexpected), (3, 1, 1));
        assert!(!t.complete());
        let mut t = Tally::new(2);
        t.record(0, now);
        t.record(1, now);
        assert!(!t.complete(), "no turn end yet");
        t.end = Some((TurnState::Completed, now));
        assert!(t.complete());
    }
}
