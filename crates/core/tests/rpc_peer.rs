//! The JSON-RPC peer against a scripted agent on the other end of in-memory pipes.

use agent_bridge_core::agent_process::ExitInfo;
use agent_bridge_core::codec::{BoundedLineCodec, MAX_LINE};
use agent_bridge_core::rpc::{
    Inbound, IncomingRequest, JsonRpc, Peer, PeerError, PeerHandle, PeerOptions,
};
use async_trait::async_trait;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;

/// Records what the agent sent; answers requests by method.
#[derive(Default)]
struct Recorder {
    notifications: Mutex<Vec<(String, Value)>>,
    closed: Mutex<bool>,
    requests: Mutex<Vec<IncomingRequest>>,
}

#[async_trait]
impl Inbound for Recorder {
    async fn notification(&self, _peer: &PeerHandle, method: String, params: Value) {
        self.notifications.lock().unwrap().push((method, params));
    }

    async fn request(&self, peer: &PeerHandle, request: IncomingRequest) {
        match request.method.as_str() {
            "echo" => {
                let params = request.params.clone();
                request.responder.respond(Ok(params)).await;
            }
            "later" => self.requests.lock().unwrap().push(request),
            "drop" => drop(request),
            _ => {
                // The default refusal.
                struct Default;
                #[async_trait]
                impl Inbound for Default {
                    async fn notification(&self, _: &PeerHandle, _: String, _: Value) {}
                }
                Default.request(peer, request).await
            }
        }
    }

    async fn closed(&self, _peer: &PeerHandle, _exit: Option<ExitInfo>) {
        *self.closed.lock().unwrap() = true;
    }
}

/// The agent's side: reads our lines, writes its own.
struct Agent {
    lines: tokio::io::Lines<BufReader<DuplexStream>>,
    out: DuplexStream,
}

impl Agent {
    async fn next(&mut self) -> Value {
        let line = self.lines.next_line().await.unwrap().expect("a line");
        serde_json::from_str(&line).expect("JSON")
    }

    async fn send(&mut self, v: Value) {
        let mut line = v.to_string();
        line.push('\n');
        self.out.write_all(line.as_bytes()).await.unwrap();
    }
}

fn start(options: PeerOptions) -> (PeerHandle, Agent, Arc<Recorder>) {
    let (our_in, their_out) = tokio::io::duplex(1 << 16);
    let (their_in, our_out) = tokio::io::duplex(1 << 16);
    let recorder = Arc::new(Recorder::default());
    let peer = Peer::start(
        FramedRead::new(our_in, BoundedLineCodec::new(MAX_LINE)),
        our_out,
        Arc::new(JsonRpc::v2()),
        recorder.clone(),
        options,
    );
    let agent = Agent {
        lines: BufReader::new(their_in).lines(),
        out: their_out,
    };
    (peer, agent, recorder)
}

#[tokio::test]
async fn answers_reach_their_callers_in_any_order() {
    let (peer, mut agent, _) = start(PeerOptions::new("fake agent"));
    let a = tokio::spawn({
        let peer = peer.clone();
        async move { peer.call("first", json!({"n": 1})).await }
    });
    let first = agent.next().await;
    let b = tokio::spawn({
        let peer = peer.clone();
        async move { peer.call("second", json!({"n": 2})).await }
    });
    let second = agent.next().await;
    assert_eq!(first["jsonrpc"], "2.0");
    assert_eq!(first["method"], "first");
    agent
        .send(json!({"jsonrpc": "2.0", "id": second["id"], "result": "two"}))
        .await;
    agent
        .send(json!({"jsonrpc": "2.0", "id": first["id"], "error": {"code": -32000, "message": "no"}}))
        .await;
    assert_eq!(b.await.unwrap(), Ok(json!("two")));
    match a.await.unwrap() {
        Err(PeerError::Rpc { method, error, .. }) => {
            assert_eq!(method, "first");
            assert_eq!(error.code, -32000);
        }
        other => panic!("expected the agent's error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_agents_requests_are_served_and_never_left_unanswered() {
    let (_peer, mut agent, recorder) = start(PeerOptions::new("fake agent"));
    agent
        .send(json!({"jsonrpc": "2.0", "id": 7, "method": "echo", "params": {"x": 1}}))
        .await;
    assert_eq!(
        agent.next().await,
        json!({"jsonrpc": "2.0", "id": 7, "result": {"x": 1}})
    );
    agent
        .send(json!({"jsonrpc": "2.0", "id": "u", "method": "unknown/thing"}))
        .await;
    let refused = agent.next().await;
    assert_eq!(refused["id"], "u");
    assert_eq!(refused["error"]["code"], -32601);
    agent
        .send(json!({"jsonrpc": "2.0", "id": 8, "method": "drop"}))
        .await;
    let dropped = agent.next().await;
    assert_eq!(dropped["id"], 8);
    assert_eq!(dropped["error"]["code"], -32603);
    // A request kept for later is answered later.
    agent
        .send(json!({"jsonrpc": "2.0", "id": 9, "method": "later"}))
        .await;
    agent
        .send(json!({"jsonrpc": "2.0", "method": "marker"}))
        .await;
    while recorder.notifications.lock().unwrap().is_empty() {
        tokio::task::yield_now().await;
    }
    let kept = recorder.requests.lock().unwrap().pop().expect("kept");
    kept.responder.respond(Ok(json!("decided"))).await;
    assert_eq!(
        agent.next().await,
        json!({"jsonrpc": "2.0", "id": 9, "result": "decided"})
    );
}

#[tokio::test]
async fn notifications_arrive_in_order() {
    let (_peer, mut agent, recorder) = start(PeerOptions::new("fake agent"));
    for n in 0..500 {
        agent
            .send(json!({"jsonrpc": "2.0", "method": "tick", "params": {"n": n}}))
            .await;
    }
    agent
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "echo"}))
        .await;
    let _ = agent.next().await;
    let got: Vec<i64> = recorder
        .notifications
        .lock()
        .unwrap()
        .iter()
        .map(|(_, p)| p["n"].as_i64().unwrap())
        .collect();
    assert_eq!(got, (0..500).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_call_times_out_with_its_method_named() {
    let mut options = PeerOptions::new("slow agent");
    options.call_timeout = Duration::from_millis(50);
    let (peer, mut agent, _) = start(options);
    let err = peer.call("session/prompt", json!({})).await.unwrap_err();
    assert!(matches!(err, PeerError::Timeout { ref method, .. } if method == "session/prompt"));
    assert_eq!(
        err.to_string(),
        "slow agent did not answer `session/prompt` within 0.05 s"
    );
    // A late answer is dropped without harm; the next call still works.
    let late = agent.next().await;
    agent.send(json!({"id": late["id"], "result": 1})).await;
    let next = tokio::spawn({
        let peer = peer.clone();
        async move { peer.call("again", json!({})).await }
    });
    let req = agent.next().await;
    agent.send(json!({"id": req["id"], "result": 2})).await;
    assert_eq!(next.await.unwrap(), Ok(json!(2)));
}

#[tokio::test]
async fn end_of_output_fails_waiting_calls_and_every_later_call_at_once() {
    let (peer, agent, recorder) = start(PeerOptions::new("dying agent"));
    let waiting = tokio::spawn({
        let peer = peer.clone();
        async move { peer.call("turn/start", json!({})).await }
    });
    let Agent { lines, out } = agent;
    // Wait until the request was written, then the agent dies.
    let mut lines = lines;
    let _ = lines.next_line().await;
    drop(out);
    match waiting.await.unwrap() {
        Err(PeerError::Closed { method, .. }) => assert_eq!(method, "turn/start"),
        other => panic!("expected Closed, got {other:?}"),
    }
    while !*recorder.closed.lock().unwrap() {
        tokio::task::yield_now().await;
    }
    // A call after the end fails at once, not after a timeout (the default is 30 s).
    let started = std::time::Instant::now();
    let err = peer.call("turn/interrupt", json!({})).await.unwrap_err();
    assert!(matches!(err, PeerError::Closed { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(peer.is_closed());
}

// Paused time: the sleep below returns only once every task is idle, i.e. the sender is
// blocked waiting for room (not after a guessed 200 ms).
#[tokio::test(start_paused = true)]
async fn the_writer_queue_is_bounded() {
    let mut options = PeerOptions::new("stuck agent");
    options.outbox = 4;
    // A pipe too small for what we write, and an agent that never reads its input.
    let (our_in, _their_out) = tokio::io::duplex(64);
    let (_their_in, our_out) = tokio::io::duplex(64);
    let peer = Peer::start(
        FramedRead::new(our_in, BoundedLineCodec::new(MAX_LINE)),
        our_out,
        Arc::new(JsonRpc::bare()),
        Arc::new(Recorder::default()),
        options,
    );
    let (tx, mut rx) = mpsc::unbounded_channel();
    let sender = tokio::spawn(async move {
        for n in 0..100 {
            let params = json!({"payload": "x".repeat(100), "n": n});
            if peer.notify("flood", Some(&params)).await.is_err() {
                break;
            }
            let _ = tx.send(n);
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut sent = 0;
    while rx.try_recv().is_ok() {
        sent += 1;
    }
    // The sender waits for room: at most the queue plus what the writer holds got through.
    assert!(
        sent < 20,
        "{sent} notifications queued for an agent that reads nothing"
    );
    sender.abort();
}
