//! A dead peer fails calls at once: the peer over fake transports whose process exits while its
//! output stays open (a grandchild holds the pipe), whose reader is stuck in a handler, or whose
//! input pipe is broken. Every call below would wait for the call timeout (30 s) without the
//! fix; the 5 s bounds only guard against a hang.

use super::{Inbound, JsonRpc, LineSource, Peer, PeerError, PeerHandle, PeerOptions};
use crate::agent_process::ExitInfo;
use crate::codec::Line;
use async_trait::async_trait;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::AsyncWrite;
use tokio::sync::{mpsc, watch};

const HANG_GUARD: Duration = Duration::from_secs(5);

/// The agent's stdout: the lines the test pushes, then nothing (never end of input) unless the
/// test drops its sender.
struct ScriptedLines(mpsc::Receiver<String>);

#[async_trait]
impl LineSource for ScriptedLines {
    async fn next_line(&mut self) -> Option<Line> {
        self.0.recv().await.map(Line::Text)
    }
}

/// The agent's stdin as the test sees it: every line written, or a broken pipe, or a pipe that
/// never takes a byte (an agent that stopped reading).
#[derive(Clone, Default)]
struct FakeStdin {
    written: Arc<Mutex<Vec<u8>>>,
    /// Writes tried while `stuck`.
    attempts: Arc<std::sync::atomic::AtomicUsize>,
    broken: bool,
    stuck: bool,
}

impl FakeStdin {
    fn lines(&self) -> Vec<Value> {
        let bytes = self.written.lock().map(|w| w.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl AsyncWrite for FakeStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.broken {
            return Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into()));
        }
        if self.stuck {
            self.attempts
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            return Poll::Pending;
        }
        if let Ok(mut w) = self.written.lock() {
            w.extend_from_slice(buf);
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// A provider handler; with `block` every notification waits forever (the session's sink is
/// full and nobody drains it), which stops the reader.
#[derive(Default)]
struct Handler {
    block: bool,
    blocked: Arc<tokio::sync::Notify>,
}

#[async_trait]
impl Inbound for Handler {
    async fn notification(&self, _peer: &PeerHandle, _method: String, _params: Value) {
        if self.block {
            self.blocked.notify_one();
            std::future::pending::<()>().await;
        }
    }
}

struct Fake {
    peer: PeerHandle,
    stdout: mpsc::Sender<String>,
    exit: watch::Sender<Option<ExitInfo>>,
}

fn start(stdin: FakeStdin, handler: Handler, outbox: usize) -> Fake {
    let (stdout, lines) = mpsc::channel(16);
    let (exit, exit_rx) = watch::channel(None);
    let mut options = PeerOptions::new("fake agent");
    options.outbox = outbox;
    options.exit = Some(exit_rx);
    let peer = Peer::start(
        ScriptedLines(lines),
        stdin,
        Arc::new(JsonRpc::v2()),
        Arc::new(handler),
        options,
    );
    Fake { peer, stdout, exit }
}

fn killed() -> Option<ExitInfo> {
    Some(ExitInfo {
        status: "signal: 9 (SIGKILL)".into(),
        code: None,
        signal: Some(9),
        stderr: String::new(),
        expected: false,
    })
}

/// A call's outcome, or a panic when it hangs.
async fn settle(
    call: impl std::future::Future<Output = Result<Value, PeerError>>,
) -> Result<Value, PeerError> {
    tokio::time::timeout(HANG_GUARD, call)
        .await
        .expect("the call waited although the agent is dead")
}

fn assert_closed(result: Result<Value, PeerError>, method: &str, reason_has: &str) {
    match result {
        Err(PeerError::Closed {
            method: m, reason, ..
        }) => {
            assert_eq!(m, method);
            assert!(reason.contains(reason_has), "reason: {reason}");
        }
        other => panic!("expected `{method}` to fail as closed, got {other:?}"),
    }
}

/// Waits until `pred` holds (the peer's tasks run on the same runtime).
async fn until(what: &str, pred: impl Fn() -> bool) {
    let wait = async {
        while !pred() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(HANG_GUARD, wait)
        .await
        .unwrap_or_else(|_| panic!("never: {what}"));
}

#[tokio::test]
async fn a_call_after_the_process_exited_fails_at_once_though_its_output_is_still_open() {
    let stdin = FakeStdin::default();
    let fake = start(stdin.clone(), Handler::default(), 8);
    let _ = fake.exit.send(killed());
    until("the peer saw the exit", || fake.peer.is_closed()).await;
    let result = settle(fake.peer.call("turn/interrupt", json!({}))).await;
    assert_closed(result, "turn/interrupt", "exited: signal: 9 (SIGKILL)");
    assert_eq!(stdin.lines(), Vec::<Value>::new(), "nothing is written");
    assert!(fake.peer.notify("late", None).await.is_err());
    drop(fake.stdout);
}

#[tokio::test]
async fn a_waiting_call_fails_when_the_process_exits_while_the_reader_is_stuck_in_a_handler() {
    let stdin = FakeStdin::default();
    let handler = Handler {
        block: true,
        ..Handler::default()
    };
    let blocked = handler.blocked.clone();
    let fake = start(stdin.clone(), handler, 8);
    let _ = fake
        .stdout
        .send(json!({"jsonrpc": "2.0", "method": "tick"}).to_string())
        .await;
    blocked.notified().await;
    let waiting = tokio::spawn({
        let peer = fake.peer.clone();
        async move { peer.call("turn/interrupt", json!({})).await }
    });
    until("the request was written", || stdin.lines().len() == 1).await;
    // The agent answers, but the reader is stuck and will never read it; then it is killed.
    let id = stdin.lines()[0]["id"].clone();
    let _ = fake
        .stdout
        .try_send(json!({"jsonrpc": "2.0", "id": id, "result": null}).to_string());
    let _ = fake.exit.send(killed());
    let result = settle(async { waiting.await.expect("call task") }).await;
    assert_closed(result, "turn/interrupt", "exited");
    let later = settle(fake.peer.call("session/close", json!({}))).await;
    assert_closed(later, "session/close", "exited");
}

#[tokio::test]
async fn a_broken_input_pipe_fails_the_call_and_every_later_one_at_once() {
    let stdin = FakeStdin {
        broken: true,
        ..FakeStdin::default()
    };
    let fake = start(stdin, Handler::default(), 8);
    let first = settle(fake.peer.call("turn/interrupt", json!({}))).await;
    assert_closed(first, "turn/interrupt", "writing to it failed");
    assert!(fake.peer.is_closed());
    let second = settle(fake.peer.call("thread/unsubscribe", json!({}))).await;
    assert_closed(second, "thread/unsubscribe", "writing to it failed");
}

#[tokio::test]
async fn calls_queued_behind_a_stuck_writer_fail_when_the_process_exits() {
    let stdin = FakeStdin {
        stuck: true,
        ..FakeStdin::default()
    };
    // Room for one line in the queue: the writer holds the first, the queue the second, and the
    // third call waits for room.
    let attempts = stdin.attempts.clone();
    let fake = start(stdin, Handler::default(), 1);
    let calls: Vec<_> = ["a", "b", "c"]
        .into_iter()
        .map(|method| {
            let peer = fake.peer.clone();
            tokio::spawn(async move { peer.call(method, json!({})).await })
        })
        .collect();
    until("the writer is stuck", || {
        attempts.load(std::sync::atomic::Ordering::SeqCst) > 0
    })
    .await;
    // Let the other two calls reach the queue (this runtime has one thread).
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    let _ = fake.exit.send(killed());
    for (call, method) in calls.into_iter().zip(["a", "b", "c"]) {
        let result = settle(async { call.await.expect("call task") }).await;
        assert_closed(result, method, "exited");
    }
}

#[tokio::test]
async fn end_of_output_still_fails_waiting_calls_and_answers_still_arrive_before_it() {
    let stdin = FakeStdin::default();
    let fake = start(stdin.clone(), Handler::default(), 8);
    let answered = tokio::spawn({
        let peer = fake.peer.clone();
        async move { peer.call("first", json!({})).await }
    });
    until("the request was written", || stdin.lines().len() == 1).await;
    let id = stdin.lines()[0]["id"].clone();
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": "one"}).to_string();
    let _ = fake.stdout.send(answer).await;
    assert_eq!(
        settle(async { answered.await.expect("call task") }).await,
        Ok(json!("one"))
    );
    let waiting = tokio::spawn({
        let peer = fake.peer.clone();
        async move { peer.call("second", json!({})).await }
    });
    until("the request was written", || stdin.lines().len() == 2).await;
    drop(fake.stdout);
    let result = settle(async { waiting.await.expect("call task") }).await;
    assert_closed(result, "second", "its output ended");
}

#[tokio::test]
async fn a_call_after_the_process_died_but_before_its_exit_was_taken_in_fails_at_once() {
    // The bridge's child exited; its keeper has not reaped it yet, so no exit was reported.
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("true starts");
    let stdin = FakeStdin::default();
    let (_stdout, lines) = mpsc::channel(16);
    let mut options = PeerOptions::new("fake agent");
    options.child = Some(child.id());
    let peer = Peer::start(
        ScriptedLines(lines),
        stdin.clone(),
        Arc::new(JsonRpc::v2()),
        Arc::new(Handler::default()),
        options,
    );
    until("the child has exited", || {
        super::child::exited_unreaped(child.id())
    })
    .await;
    let result = settle(peer.call("session/prompt", json!({}))).await;
    assert_closed(result, "session/prompt", "its process has exited");
    assert_eq!(stdin.lines(), Vec::<Value>::new(), "nothing is written");
    assert!(child.wait().expect("reaped").success());
}
