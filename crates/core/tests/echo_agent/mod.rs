//! An echo agent for the shared-process tests: `sh` answering `initialize`, then writing back
//! every line it reads. What a test sends as a notification comes back as the agent's
//! notification; a call comes back as the agent's request, answered by the member it was
//! routed to.
#![allow(dead_code)]

use agent_bridge_core::lifecycle::shared::{ByParam, SharedKey, SharedProcesses};
use agent_bridge_core::lifecycle::{
    AgentRuntime, EventTarget, Liveness, RuntimeLaunch, SharedMember, Translator,
};
use agent_bridge_core::rpc::{IncomingRequest, JsonRpc, PeerHandle};
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_core::{AgentEvent, ProcessScope, SessionSink};
use agent_bridge_protocol::{ProviderError, ProviderNotice, Severity};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

pub const ECHO: &str = r#"read line; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; exec cat"#;
pub const STOP: Duration = Duration::from_secs(3);
pub const WAIT: Duration = Duration::from_secs(10);

pub fn spec(env: &[(&str, &str)]) -> SpawnSpec {
    SpawnSpec {
        program: "sh".into(),
        args: vec!["-c".into(), ECHO.into()],
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        ..SpawnSpec::default()
    }
}

/// A notification becomes a notice `<member>:<n>`; a request is answered `{"by": member}`.
pub struct Echo {
    pub name: &'static str,
    /// A thread it found (a sub-agent's), routed to it without a claim.
    pub owns: Option<&'static str>,
}

#[async_trait::async_trait]
impl Translator for Echo {
    async fn notification(&self, _: &PeerHandle, method: String, params: Value) -> Vec<AgentEvent> {
        vec![AgentEvent::Notice(ProviderNotice {
            id: format!("{}:{}:{}", self.name, method, params["n"]),
            severity: Severity::Info,
            title: String::new(),
            description: None,
            dismissed: None,
        })]
    }

    async fn request(&self, _: &PeerHandle, request: IncomingRequest) -> Vec<AgentEvent> {
        request
            .responder
            .respond(Ok(json!({"by": self.name})))
            .await;
        Vec::new()
    }

    fn owns(&self, native: &str) -> bool {
        self.owns == Some(native)
    }
}

pub async fn start_echo(
    spec: SpawnSpec,
    inbound: Arc<dyn agent_bridge_core::rpc::Inbound>,
) -> Result<(AgentRuntime, Value), ProviderError> {
    let launch = RuntimeLaunch {
        spec: &spec,
        label: "echo agent",
        install: "",
        dialect: Arc::new(JsonRpc::v2()),
        call_timeout: WAIT,
        scope: None,
    };
    let runtime = AgentRuntime::spawn(launch, inbound, Liveness::default())?;
    match runtime.rpc.call("initialize", json!({})).await {
        Ok(answer) => Ok((runtime, answer)),
        Err(e) => Err(runtime.failed_start(e).await),
    }
}

pub struct Session {
    pub member: SharedMember,
    pub rx: mpsc::Receiver<AgentEvent>,
}

pub async fn join(
    pool: &SharedProcesses,
    env: &[(&str, &str)],
    echo: Echo,
    native: &str,
) -> Session {
    join_in(pool, env, echo, native, &ProcessScope::default()).await
}

pub async fn join_in(
    pool: &SharedProcesses,
    env: &[(&str, &str)],
    echo: Echo,
    native: &str,
    scope: &ProcessScope,
) -> Session {
    let (sink, rx) = SessionSink::channel();
    let spec = spec(env);
    let member = pool
        .join(
            SharedKey::of(&spec),
            Arc::new(ByParam("sessionId")),
            |inbound| start_echo(spec.clone(), inbound),
            Arc::new(echo),
            EventTarget::new(Some(sink)),
            scope,
        )
        .await
        .expect("joined");
    member.claim(native);
    member.liveness().go_live();
    Session { member, rx }
}

pub fn echo(name: &'static str) -> Echo {
    Echo { name, owns: None }
}

pub async fn next(rx: &mut mpsc::Receiver<AgentEvent>) -> AgentEvent {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("an event in time")
        .expect("the sink is open")
}

pub async fn notice(rx: &mut mpsc::Receiver<AgentEvent>) -> String {
    match next(rx).await {
        AgentEvent::Notice(n) => n.id,
        other => panic!("not a notice: {other:?}"),
    }
}

pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
    })
}

pub async fn wait_gone(pid: u32) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while alive(pid) {
        assert!(tokio::time::Instant::now() < deadline, "{pid} still alive");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the session's peer has seen its process's end (its output closed): only then
/// does the pool know the process is dead, which can come after the process is reaped.
pub async fn wait_closed(s: &Session) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !s.member.rpc().is_closed() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the peer never closed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn pid(s: &Session) -> u32 {
    s.member.process().pid().expect("a pid")
}
