//! Conformance host for the agent-bridge wire contract (`docs/wire.md`).
//!
//! [`BridgeHost`] runs the real `agent-bridge serve` binary the way Paseo's adapter does and
//! checks everything it prints. Test suites (this crate's own, the Claude and Codex end-to-end
//! suites) drive it with JSON inputs and assert on the recorded events.
//!
//! ```no_run
//! use agent_bridge_conformance::{input, BridgeHost};
//! use std::time::Duration;
//!
//! # async fn demo() -> anyhow::Result<()> {
//! let host = BridgeHost::spawn().await?;               // <root>/target/debug/agent-bridge serve
//! host.initialize().await?;                            // plugin.dataDir = a temp dir of the host
//! let (conn, _caps) = host.connect("demo", &["prompt.message"], None).await?;
//! let cwd = std::env::temp_dir();
//! host.open_session(&conn, input::open("r1", "s1", input::session_config(&cwd, serde_json::json!({})))).await?;
//! let turn = host.run_turn(&conn, "s1", "hello", Duration::from_secs(5)).await?;
//! assert_eq!(turn.state(), "completed");
//! host.assert_invariants();
//! # Ok(()) }
//! ```
//!
//! # API
//! - Start: [`BridgeHost::spawn`], [`BridgeHost::spawn_with`] + [`HostOptions`] (`bin`, `args`,
//!   `cwd` = repo root by default, extra `env`, `data_dir`, `request_timeout`). The binary is
//!   `$AGENT_BRIDGE_BIN` or `<target>/debug/agent-bridge`, built once per test process with
//!   `cargo build -p agent-bridge` when missing or older than the workspace sources
//!   ([`bridge_binary`]). The child gets its own
//!   process group and is SIGKILLed (with every descendant seen) when the host drops.
//! - Send: [`send_raw`](BridgeHost::send_raw) / [`send_raw_bytes`](BridgeHost::send_raw_bytes),
//!   [`request`](BridgeHost::request) -> `Result<Value, RpcError>`, [`notify`](BridgeHost::notify),
//!   [`initialize`](BridgeHost::initialize), [`connect`](BridgeHost::connect) ->
//!   `(connectionId, capabilities)`, [`send`](BridgeHost::send) (admission only),
//!   [`close_connection`](BridgeHost::close_connection), [`shutdown`](BridgeHost::shutdown),
//!   [`close_stdin`](BridgeHost::close_stdin), [`signal`](BridgeHost::signal). Errors made by the
//!   host itself use the codes [`HOST_TIMEOUT`], [`HOST_IO`], [`HOST_BAD_RESULT`].
//! - Observe: [`events`](BridgeHost::events), [`wait_event`](BridgeHost::wait_event) (searches
//!   from the first event, so nothing that already arrived is missed),
//!   [`collect_until`](BridgeHost::collect_until), [`messages`](BridgeHost::messages),
//!   [`stdout_lines`](BridgeHost::stdout_lines),
//!   [`wait_message`](BridgeHost::wait_message), [`stderr`](BridgeHost::stderr),
//!   [`wait_exit`](BridgeHost::wait_exit), [`pid`](BridgeHost::pid),
//!   [`descendants`](BridgeHost::descendants) (live process tree via `/proc`, see [`procs`]).
//! - Protocol helpers ([`session`]): `open_session`, `prompt`, `prompt_result`, `run_turn`,
//!   `wait_turn_end`, `wait_answer`, `session_events`, `timeline`; input builders in [`input`].
//! - End-to-end rig of the provider suites ([`rig`]): [`AgentRig`] = the mock model server, a
//!   hermetic env and a real pinned CLI behind a connected bridge, described by a [`RigSpec`].
//! - Provider-agnostic [`scenarios`] (open -> turn, interrupt, close during a turn or an open,
//!   `provider/close`), run over the demo, claude-bridge and codex-bridge.
//! - Check: [`assert_invariants`](BridgeHost::assert_invariants) at the end of every test
//!   (violations plus work still owed); the host also panics on drop for violations no
//!   assertion reported.
//!
//! # What is checked on every line
//! - stdout carries only JSON-RPC 2.0 responses and `provider/event` notifications;
//! - every `ProviderEvent` validates against two JSON Schemas: the one generated from
//!   `agent_bridge_protocol::ProviderEvent` and the hand-written one transcribed from Paseo's
//!   spec (`schema/paseo-events.schema.json`, [`paseo_schema`]); it survives a strict typed
//!   round trip (no `null` optional fields, no unknown keys); `tool_call.error` is `null` unless
//!   `status` is `failed`;
//! - [`InvariantChecker`]: one `session.prompt_result` per clientMessageId; every started turn
//!   gets exactly one terminal state and nothing of the turn follows it; one turn at a time;
//!   a steer result names the active turn; `session.config` before `request.completed` of a
//!   configure; open order `session.opened -> session.config -> timeline.item* ->
//!   session.ready`; exactly one (right-kind) answer per requestId, none for refused inputs;
//!   `session.can_stop_runtime` never answered by `request.completed`; nothing for a session
//!   after `session.closed` nor for a connection after `provider/close`; `provider/send` and
//!   `provider/close` answer `null`.

pub mod agent_groups;
pub mod binary;
pub mod elicitation;
pub mod event;
mod flow;
pub mod gated_open;
pub mod history;
pub mod host;
pub mod input;
pub mod kill;
mod observe;
pub mod paseo_schema;
pub mod plugin_env;
pub mod procs;
mod reader;
pub mod rewind;
pub mod rig;
pub mod scenarios;
pub mod session;
pub mod spare;
pub mod suite;
pub mod validate;

pub use agent_bridge_protocol::invariants;
pub use agent_bridge_protocol::jsonrpc::RpcError;
pub use binary::{bridge_binary, fake_acp_binary, workspace_root};
pub use event::Event;
pub use host::{BridgeHost, HostOptions, HOST_BAD_RESULT, HOST_IO, HOST_TIMEOUT};
pub use invariants::InvariantChecker;
pub use procs::ProcInfo;
pub use rig::{AgentRig, Bridge, RigSpec};
pub use session::TurnRun;
