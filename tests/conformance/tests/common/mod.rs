//! Shared set-up for the conformance tests: a bridge with the built-in `demo` provider.
#![allow(dead_code)]

pub mod hostile;

pub use agent_bridge_conformance::{input, BridgeHost, Event, HostOptions, ProcInfo};
pub use serde_json::{json, Value};
use std::path::{Path, PathBuf};
pub use std::time::Duration;

/// The demo provider's id.
pub const DEMO: &str = "demo";
/// Every capability the demo implements.
pub const DEMO_CAPS: [&str; 8] = [
    "prompt.message",
    "prompt.command",
    "prompt.steer",
    "session.configure",
    "session.list",
    "session.persistence",
    "permission",
    "session.can_stop_runtime",
];
/// Default wait for anything that should happen promptly.
pub const T: Duration = Duration::from_secs(5);
/// How long the bridge may take to exit after stdin closes (docs/wire.md).
pub const EXIT_LIMIT: Duration = Duration::from_millis(3500);

/// A bridge, initialized, with one demo connection holding every capability, and a scratch cwd.
pub struct Demo {
    pub host: BridgeHost,
    pub conn: String,
    pub dir: tempfile::TempDir,
}

pub async fn demo() -> Demo {
    demo_with(HostOptions::default()).await
}

pub async fn demo_with(options: HostOptions) -> Demo {
    let host = BridgeHost::spawn_with(options)
        .await
        .expect("spawn agent-bridge serve");
    host.initialize().await.expect("initialize");
    let (conn, caps) = host
        .connect(DEMO, &DEMO_CAPS, None)
        .await
        .expect("connect demo");
    assert_eq!(
        caps,
        DEMO_CAPS.to_vec(),
        "the demo negotiates every capability it declares"
    );
    let dir = tempfile::Builder::new()
        .prefix("conformance-cwd-")
        .tempdir()
        .expect("temp cwd");
    Demo { host, conn, dir }
}

impl Demo {
    pub fn cwd(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A session config in the scratch cwd with `patch` merged in.
    pub fn config(&self, patch: Value) -> Value {
        input::session_config(self.cwd(), patch)
    }

    /// Opens `sid` (history skip) and waits for `session.ready`; returns the open's events.
    pub async fn open(&self, sid: &str, patch: Value) -> Vec<Event> {
        let rid = self.host.unique("open");
        self.host
            .open_session(&self.conn, input::open(&rid, sid, self.config(patch)))
            .await
            .expect("open session")
    }

    /// Sends an input and expects admission.
    pub async fn send(&self, input: Value) {
        let what = input.to_string();
        self.host
            .send(&self.conn, input)
            .await
            .unwrap_or_else(|e| panic!("input refused: {e}\n{what}"));
    }

    /// Sends a text prompt; returns its clientMessageId.
    pub async fn prompt(&self, sid: &str, text: &str) -> String {
        self.host
            .prompt(&self.conn, sid, text)
            .await
            .expect("prompt admitted")
    }

    /// Sends a prompt that must start a turn; returns (clientMessageId, turnId) once started.
    pub async fn start_turn(&self, sid: &str, text: &str) -> (String, String) {
        let cmid = self.prompt(sid, text).await;
        let result = self
            .host
            .prompt_result(sid, &cmid, T)
            .await
            .expect("prompt result");
        assert_eq!(
            result["type"], "turn",
            "prompt `{text}` should start a turn: {result}"
        );
        let turn = result["turnId"].as_str().expect("turnId").to_string();
        self.wait(|e| {
            e.is_for("session.turn", sid)
                && e.turn_id() == Some(&turn)
                && e.turn_state() == Some("started")
        })
        .await;
        (cmid, turn)
    }

    /// Waits (up to [`T`]) for the first event matching `pred`.
    pub async fn wait(&self, pred: impl Fn(&Event) -> bool) -> Event {
        self.host.wait_event(pred, T).await.expect("expected event")
    }

    /// Sends a request-style input and waits for its answer event.
    pub async fn ask(&self, input: Value) -> Event {
        let rid = input["requestId"].as_str().expect("requestId").to_string();
        self.send(input).await;
        self.host.wait_answer(&rid, T).await.expect("answer")
    }

    /// The latest `session.config` of a session.
    pub fn config_state(&self, sid: &str) -> Value {
        self.host
            .session_events(sid)
            .iter()
            .rev()
            .find(|e| e.is("session.config"))
            .map(|e| e.event["config"].clone())
            .expect("a session.config")
    }

    /// Closes the connection with `provider/close` and asserts it answered within [`EXIT_LIMIT`].
    pub async fn close_connection_in_time(&self) {
        let started = std::time::Instant::now();
        self.host
            .close_connection(&self.conn)
            .await
            .expect("provider/close");
        assert!(
            started.elapsed() < EXIT_LIMIT,
            "provider/close took {:?}",
            started.elapsed()
        );
    }

    /// Interrupts the active turn of `sid` and waits for it to be canceled.
    pub async fn interrupt(&self, sid: &str, turn: &str) {
        let rid = self.host.unique("int");
        let answer = self.ask(input::interrupt(&rid, sid)).await;
        assert_eq!(answer.kind(), "request.completed", "{answer}");
        let end = self
            .host
            .wait_turn_end(sid, turn, T)
            .await
            .expect("turn end");
        assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    }
}

/// Polls until a descendant of the bridge whose command line is exactly `cmdline` is alive (so
/// the whole chain leading to it exists); returns every live descendant.
pub async fn wait_descendant(host: &BridgeHost, cmdline: &str) -> Vec<ProcInfo> {
    let deadline = std::time::Instant::now() + T;
    loop {
        let all = host.descendants();
        if all.iter().any(|p| p.cmdline == cmdline) {
            return all;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no descendant running `{cmdline}`: {all:#?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The error of a refused request (panics when it was accepted).
pub fn refusal<T: std::fmt::Debug>(
    result: Result<T, agent_bridge_conformance::RpcError>,
) -> agent_bridge_conformance::RpcError {
    match result {
        Ok(v) => panic!("expected a JSON-RPC error, got Ok({v:?})"),
        Err(e) => e,
    }
}

/// Asserts that a request was refused with `code`.
#[track_caller]
pub fn assert_code<T: std::fmt::Debug>(
    result: Result<T, agent_bridge_conformance::RpcError>,
    code: i64,
    what: &str,
) {
    let err = refusal(result);
    assert_eq!(err.code, code, "{what}: wrong error code: {err:?}");
    assert!(
        !err.message.trim().is_empty(),
        "{what}: error without a message"
    );
}
