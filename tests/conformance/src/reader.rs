//! The reader tasks: every stdout line is recorded, checked for JSON-RPC hygiene, routed
//! (responses to their requests, `provider/event`s through validation and the invariant
//! checker); stderr is kept for diagnostics.

use crate::event::Event;
use crate::invariants::InvariantChecker;
use crate::validate::validate_event;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::watch;

/// Bytes of stderr kept (the tail).
const STDERR_KEEP: usize = 512 * 1024;

#[derive(Debug, Default)]
pub(crate) struct State {
    /// Every stdout line as received (lossy UTF-8, without the newline).
    pub lines: Vec<String>,
    /// Every parsed stdout message, in order.
    pub messages: Vec<Value>,
    /// Responses to the host's own (numeric-id) requests.
    pub responses: HashMap<i64, Value>,
    /// Requests awaiting an answer: id -> (method, params).
    pub pending: HashMap<i64, (String, Value)>,
    pub events: Vec<Event>,
    pub checker: InvariantChecker,
    pub stdout_closed: bool,
    pub stderr: String,
    /// How many violations `assert_invariants` already surfaced.
    pub reported: usize,
}

impl State {
    pub fn stderr_tail(&self) -> String {
        let tail = self.stderr.len().saturating_sub(4096);
        let mut cut = tail;
        while !self.stderr.is_char_boundary(cut) {
            cut += 1;
        }
        format!("--- bridge stderr (tail) ---\n{}", &self.stderr[cut..])
    }

    /// The last events and the stderr tail, for failure messages.
    pub fn summary(&self) -> String {
        let from = self.events.len().saturating_sub(20);
        let events: Vec<String> = self.events[from..]
            .iter()
            .map(|e| format!("  {e}"))
            .collect();
        format!(
            "--- last {} of {} events ---\n{}\n{}",
            events.len(),
            self.events.len(),
            events.join("\n"),
            self.stderr_tail()
        )
    }
}

pub(crate) struct Shared {
    pub state: Mutex<State>,
    /// Bumped after every stdout line (and at EOF): waiters re-check the state.
    pub tick: watch::Sender<u64>,
    /// While true the stdout reader reads nothing (a host that stopped reading).
    pub paused: watch::Sender<bool>,
}

impl Shared {
    pub fn new() -> Self {
        Self {
            state: Mutex::new(State::default()),
            tick: watch::Sender::new(0),
            paused: watch::Sender::new(false),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn bump(&self) {
        self.tick.send_modify(|n| *n += 1);
    }
}

pub(crate) async fn read_stdout(stdout: impl AsyncRead + Unpin, shared: std::sync::Arc<Shared>) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    let mut paused = shared.paused.subscribe();
    loop {
        let _ = paused.wait_for(|p| !*p).await;
        buf.clear();
        match reader.read_until(b'\n', &mut buf).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                shared
                    .lock()
                    .checker
                    .report(format!("reading the bridge's stdout failed: {e}"));
                break;
            }
        }
        {
            let mut st = shared.lock();
            if buf.last() == Some(&b'\n') {
                buf.pop();
            } else {
                st.checker
                    .report("the last stdout line has no terminating newline".into());
            }
            handle_line(&mut st, &buf);
        }
        shared.bump();
    }
    shared.lock().stdout_closed = true;
    shared.bump();
}

pub(crate) async fn read_stderr(stderr: impl AsyncRead + Unpin, shared: std::sync::Arc<Shared>) {
    let echo = std::env::var_os("CONFORMANCE_ECHO_STDERR").is_some();
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if echo {
            eprintln!("[bridge] {line}");
        }
        let mut st = shared.lock();
        st.stderr.push_str(&line);
        st.stderr.push('\n');
        if st.stderr.len() > STDERR_KEEP * 2 {
            let mut cut = st.stderr.len() - STDERR_KEEP;
            while !st.stderr.is_char_boundary(cut) {
                cut += 1;
            }
            st.stderr.drain(..cut);
        }
    }
}

fn short(text: &str) -> String {
    let cut: String = text.chars().take(300).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

fn handle_line(st: &mut State, raw: &[u8]) {
    st.lines.push(String::from_utf8_lossy(raw).into_owned());
    let Ok(text) = std::str::from_utf8(raw) else {
        st.checker.report(format!(
            "stdout: a line that is not UTF-8 ({} bytes)",
            raw.len()
        ));
        return;
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            st.checker.report(format!(
                "stdout: a line that is not JSON ({e}): {}",
                short(text)
            ));
            return;
        }
    };
    let Some(obj) = value.as_object() else {
        st.checker.report(format!(
            "stdout: a JSON line that is not an object: {}",
            short(text)
        ));
        return;
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        st.checker.report(format!(
            "stdout: a message without `jsonrpc: \"2.0\"`: {}",
            short(text)
        ));
    }
    let method = obj.get("method").and_then(Value::as_str);
    let has_id = obj.contains_key("id");
    let is_response =
        has_id && (obj.contains_key("result") ^ obj.contains_key("error")) && method.is_none();
    match (method, is_response) {
        (None, true) => handle_response(st, &value),
        (Some("provider/event"), false) if !has_id => handle_event(st, &value),
        (Some(other), false) => st.checker.report(format!(
            "stdout: unexpected message `{other}` from the bridge: {}",
            short(text)
        )),
        _ => st.checker.report(format!(
            "stdout: not a JSON-RPC 2.0 response or notification: {}",
            short(text)
        )),
    }
    st.messages.push(value);
}

fn handle_response(st: &mut State, msg: &Value) {
    if let Some(error) = msg.get("error") {
        let code_ok = error.get("code").is_some_and(Value::is_i64);
        let message_ok = error
            .get("message")
            .and_then(Value::as_str)
            .is_some_and(|m| !m.trim().is_empty());
        if !code_ok || !message_ok {
            st.checker.report(format!(
                "error response without an integer code and a message: {msg}"
            ));
        }
    }
    let Some(id) = msg.get("id").and_then(Value::as_i64) else {
        return;
    };
    let Some((method, params)) = st.pending.remove(&id) else {
        return;
    };
    let conn = params
        .get("connectionId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let ok = msg.get("result");
    match (method.as_str(), ok) {
        ("provider/connect", Some(result)) => {
            if let Some(cid) = result.get("connectionId").and_then(Value::as_str) {
                st.checker.on_connect(cid);
            }
        }
        ("provider/send", Some(result)) if !result.is_null() => {
            st.checker.report(format!(
                "provider/send answered with {result} instead of null"
            ));
        }
        ("provider/send", None) => {
            if let Some(input) = params.get("input") {
                st.checker.on_refused(&conn, input);
            }
        }
        ("provider/close", Some(result)) => {
            if !result.is_null() {
                st.checker.report(format!(
                    "provider/close answered with {result} instead of null"
                ));
            }
            st.checker.on_connection_closed(&conn);
        }
        _ => {}
    }
    st.responses.insert(id, msg.clone());
}

fn handle_event(st: &mut State, msg: &Value) {
    let seq = st.events.len();
    let params = msg.get("params").and_then(Value::as_object);
    let (Some(conn), Some(event)) = (
        params
            .and_then(|p| p.get("connectionId"))
            .and_then(Value::as_str),
        params
            .and_then(|p| p.get("event"))
            .filter(|e| e.is_object()),
    ) else {
        st.checker.report(format!(
            "provider/event without params {{connectionId, event}}: {msg}"
        ));
        return;
    };
    if let Some(extra) =
        params.and_then(|p| p.keys().find(|k| *k != "connectionId" && *k != "event"))
    {
        st.checker.report(format!(
            "provider/event #{seq}: unexpected params key `{extra}`"
        ));
    }
    for problem in validate_event(event) {
        st.checker
            .report(format!("event #{seq} is invalid: {problem} -- {event}"));
    }
    st.checker.on_event(seq, conn, event);
    st.events.push(Event {
        seq,
        connection_id: conn.to_string(),
        event: event.clone(),
        at: Instant::now(),
    });
}
