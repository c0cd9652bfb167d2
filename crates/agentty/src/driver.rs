//! The plugin's loop: Agentty's lines on stdin, the bridge core's events, availability checks
//! and the panel clock, one at a time; and the shutdown that leaves no process behind.

use crate::app::{Agent, App, Availability, Effect, Purpose};
use crate::bridge::{Bridge, Core};
use crate::limits::*;
use crate::outbox::Outbox;
use crate::store::Store;
use crate::wire::{self, codes, Context, Incoming, UiEvent};
use crate::Options;
use agent_bridge_core::codec::{BoundedLineCodec, Line};
use agent_bridge_protocol::wire::EventNotification;
use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability, ProviderInput};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

/// Why the plugin stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Shutdown,
    InputClosed,
    Signal,
}

/// Results of background work, handed to the loop.
enum Internal {
    Availability(String, Availability),
    /// provider, connection id or why not.
    Connected(String, Result<String, String>),
}

/// The bridge connection to one provider.
enum Connection {
    /// Being made; the inputs wait for it.
    Connecting(Vec<ProviderInput>),
    Ready(String),
}

struct Driver {
    app: App,
    outbox: Outbox,
    bridge: Bridge,
    /// provider id → its connection.
    connections: HashMap<String, Connection>,
    /// Where background work reports to the loop.
    internal: mpsc::UnboundedSender<Internal>,
    /// Agentty request id → why it was asked.
    asked: HashMap<u64, Purpose>,
    next_id: u64,
    rendered_at: Option<Instant>,
    badge: String,
}

/// Serves Agentty on `input` / `output` until `shutdown`, the end of `input` or `stop`.
pub async fn serve<R, W>(options: Options, input: R, output: W, stop: CancellationToken) -> Ended
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (outbox, writer) = Outbox::start(output);
    let (bridge, core, mut events) = Bridge::start(
        options.plugin_dir.clone(),
        options.providers.clone(),
        options.spares.clone(),
    );
    let agents = agents(&bridge, &options).await;
    let (tx, mut internal) = mpsc::unbounded_channel();
    for a in &agents {
        spawn_availability(&bridge, &a.id, tx.clone());
    }
    let app = App::new(agents, Store::open(options.data_dir.as_deref()));
    let mut d = Driver {
        app,
        outbox,
        bridge,
        connections: HashMap::new(),
        internal: tx,
        asked: HashMap::new(),
        next_id: 0,
        rendered_at: None,
        badge: String::new(),
    };
    let mut lines = FramedRead::new(input, BoundedLineCodec::new(MAX_LINE_BYTES));
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(50));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let ended = loop {
        tokio::select! {
            _ = stop.cancelled() => break Ended::Signal,
            line = lines.next() => match line {
                None | Some(Err(_)) => break Ended::InputClosed,
                Some(Ok(Line::Oversize { len })) => {
                    tracing::warn!(len, "ignored a line over 16 MB from Agentty");
                }
                Some(Ok(Line::InvalidUtf8)) => {
                    tracing::warn!("ignored a line from Agentty that is not UTF-8");
                }
                Some(Ok(Line::Text(text))) => {
                    if d.incoming(&text).await {
                        break Ended::Shutdown;
                    }
                }
            },
            Some(event) = events.recv() => {
                d.event(event).await;
                d.tool_tick().await;
            }
            Some(msg) = internal.recv() => match msg {
                Internal::Availability(provider, availability) => {
                    let effects = d.app.on_availability(&provider, availability);
                    d.run(effects).await;
                    d.tool_tick().await;
                }
                Internal::Connected(provider, result) => {
                    d.connected(provider, result).await;
                    d.tool_tick().await;
                }
            },
            _ = tick.tick() => {
                d.tick();
                d.tool_tick().await;
            }
        }
    };
    let abandoned = d.app.abandon_tool_calls();
    d.run(abandoned).await;
    d.shutdown(core).await;
    let Driver { outbox, .. } = d;
    drop(outbox);
    let _ = tokio::time::timeout(std::time::Duration::from_millis(100), writer).await;
    ended
}

/// The providers the panel offers: every one of `plugin.json` that the core serves, the demo
/// only with `AGENT_BRIDGE_DEMO=1`.
async fn agents(bridge: &Bridge, options: &Options) -> Vec<Agent> {
    let served = match bridge.initialize(options.data_dir.as_deref()).await {
        Ok(init) => init.providers,
        Err(e) => {
            tracing::error!("the bridge core did not start: {e}");
            Vec::new()
        }
    };
    options
        .providers
        .iter()
        .filter(|e| options.demo || e.agent != "demo")
        .filter_map(|e| {
            let info = served.iter().find(|p| p.id == e.descriptor.id)?;
            let mut a = Agent::new(&info.id, &info.label, info.capabilities.clone());
            a.demo = e.agent == "demo";
            Some(a)
        })
        .collect()
}

fn spawn_availability(bridge: &Bridge, provider: &str, tx: mpsc::UnboundedSender<Internal>) {
    let bridge = bridge.clone();
    let provider = provider.to_string();
    tokio::spawn(async move {
        let result = bridge
            .availability(&provider, None, AVAILABILITY_TIMEOUT)
            .await;
        let availability = match result {
            Ok(a) => availability(a),
            Err(e) => Availability::Unavailable(e.to_string()),
        };
        let _ = tx.send(Internal::Availability(provider, availability));
    });
}

fn availability(a: ProviderAvailability) -> Availability {
    let what = match a.status {
        AvailabilityStatus::Available => return Availability::Available,
        AvailabilityStatus::Missing => "not installed",
        AvailabilityStatus::Unrunnable => "not runnable",
        AvailabilityStatus::Incompatible => "wrong version",
    };
    let why = match a.diagnostic {
        Some(d) if !d.trim().is_empty() => format!("{what}: {}", cut(d.trim(), 160)),
        _ => what.to_string(),
    };
    Availability::Unavailable(why)
}

impl Driver {
    /// One line of Agentty; true when it asked the plugin to stop.
    async fn incoming(&mut self, line: &str) -> bool {
        let Some(message) = Incoming::parse(line) else {
            tracing::warn!("ignored a line from Agentty that is not JSON-RPC");
            return false;
        };
        match message {
            Incoming::Request { id, method, params } if method == "tools/call" => {
                let effects = self.app.on_tool_call(id, &params, Instant::now());
                self.run(effects).await;
                self.tool_tick().await;
            }
            Incoming::Request { id, method, params } => {
                let answer = match method.as_str() {
                    "initialize" => {
                        if let Some(ctx) = Context::of(&params) {
                            self.app.on_context(ctx);
                        }
                        Ok(json!({"name": "agent-bridge", "version": env!("CARGO_PKG_VERSION")}))
                    }
                    other => Err((codes::METHOD_NOT_FOUND, format!("unknown method {other}"))),
                };
                self.outbox.send(wire::response(&id, answer));
                self.app.dirty = true;
                self.render();
            }
            Incoming::Notification { method, params } => {
                if let Some(ctx) = Context::of(&params) {
                    self.app.on_context(ctx);
                }
                let effects = match method.as_str() {
                    "shutdown" => return true,
                    "panel/open" | "panel/close" => {
                        self.app.on_panel(method == "panel/open");
                        if method == "panel/open" {
                            self.render();
                        }
                        Vec::new()
                    }
                    "ui/event" => match serde_json::from_value::<UiEvent>(params) {
                        Ok(ev) => self.app.on_ui_event(&ev),
                        Err(e) => {
                            tracing::warn!("ignored a ui/event that could not be read: {e}");
                            Vec::new()
                        }
                    },
                    "command/execute" => {
                        let command = params.get("command").and_then(Value::as_str).unwrap_or("");
                        self.app.on_command(command)
                    }
                    _ => Vec::new(),
                };
                self.run(effects).await;
            }
            Incoming::Response { id, result } => {
                if let Some(purpose) = self.asked.remove(&id) {
                    let effects = self.app.on_host_answer(purpose, result);
                    self.run(effects).await;
                }
            }
        }
        false
    }

    async fn event(&mut self, n: EventNotification) {
        let effects = self.app.on_bridge_event(n.event);
        self.run(effects).await;
    }

    /// Carries out what the app asked for, in order.
    async fn run(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Bridge { provider, input } => self.send(&provider, input).await,
                Effect::Host {
                    method,
                    params,
                    purpose,
                } => self.ask(method, params, purpose),
                Effect::Reply { id, result } => self.outbox.send(wire::response(&id, result)),
            }
        }
    }

    /// Answers the tool calls that are due (and carries out what that takes).
    async fn tool_tick(&mut self) {
        let effects = self.app.tool_tick(Instant::now());
        if !effects.is_empty() {
            self.run(effects).await;
        }
    }

    fn ask(&mut self, method: &str, params: Value, purpose: Purpose) {
        self.next_id += 1;
        self.asked.insert(self.next_id, purpose);
        self.outbox
            .send(wire::request(self.next_id, method, params));
    }

    /// An input on `provider`'s connection. The first one connects in the background (an
    /// agent slow to connect must not hold up the panel, Agentty or the other agents); inputs
    /// wait in order until it is up.
    async fn send(&mut self, provider: &str, input: ProviderInput) {
        match self.connections.get_mut(provider) {
            Some(Connection::Ready(id)) => {
                let id = id.clone();
                if let Err(e) = self.bridge.send(&id, &input).await {
                    self.app.on_send_failed(&input, &e.to_string());
                }
            }
            Some(Connection::Connecting(queued)) => queued.push(input),
            None => {
                self.connections
                    .insert(provider.into(), Connection::Connecting(vec![input]));
                let caps: Vec<String> = self
                    .app
                    .agent(provider)
                    .map(|a| {
                        a.capabilities
                            .iter()
                            .map(|c| c.as_str().to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                let (bridge, tx, provider) = (
                    self.bridge.clone(),
                    self.internal.clone(),
                    provider.to_string(),
                );
                tokio::spawn(async move {
                    let result = bridge
                        .connect(&provider, &caps)
                        .await
                        .map(|c| c.connection_id)
                        .map_err(|e| e.to_string());
                    let _ = tx.send(Internal::Connected(provider, result));
                });
            }
        }
    }

    /// A connection is up (its waiting inputs go, in order) or could not be made (they fail).
    async fn connected(&mut self, provider: String, result: Result<String, String>) {
        let queued = match self.connections.remove(&provider) {
            Some(Connection::Connecting(queued)) => queued,
            _ => Vec::new(),
        };
        match result {
            Ok(id) => {
                self.connections
                    .insert(provider, Connection::Ready(id.clone()));
                for input in queued {
                    if let Err(e) = self.bridge.send(&id, &input).await {
                        self.app.on_send_failed(&input, &e.to_string());
                    }
                }
            }
            Err(why) => {
                for input in queued {
                    self.app.on_send_failed(&input, &why);
                }
            }
        }
        self.app.dirty = true;
    }

    fn tick(&mut self) {
        let now = Instant::now();
        let interval = if self.app.panel_open {
            PANEL_INTERVAL
        } else {
            HIDDEN_PANEL_INTERVAL
        };
        let due = self
            .rendered_at
            .is_none_or(|t| now.duration_since(t) >= interval);
        if self.app.dirty && due {
            self.render();
        }
        let running = self.app.running();
        let badge = if running == 0 {
            String::new()
        } else {
            running.to_string()
        };
        if badge != self.badge {
            self.badge = badge.clone();
            self.outbox
                .send(wire::notification("ui/setBadge", json!({"text": badge})));
        }
        if let Some(params) = self.app.due_notice(now) {
            self.outbox.send(wire::notification("ui/notify", params));
        }
    }

    /// `ui/setPanel` with the current tree.
    fn render(&mut self) {
        let tree = self.app.render();
        let params = json!({"tree": tree});
        let size = params.to_string().len();
        if size > MAX_TREE_BYTES {
            tracing::warn!(size, "the panel tree is too large to send");
            return;
        }
        self.rendered_at = Some(Instant::now());
        self.ask("ui/setPanel", params, Purpose::Panel);
    }

    /// Closes every connection (so every session and its CLI), then stops the core, within
    /// [`SHUTDOWN_BUDGET`]; what is still running then is killed with the runtime.
    async fn shutdown(&mut self, core: Core) {
        let deadline = tokio::time::Instant::now() + SHUTDOWN_BUDGET;
        let closes = self.connections.values().filter_map(|c| match c {
            Connection::Ready(id) => Some(self.bridge.close(id)),
            Connection::Connecting(_) => None,
        });
        let all = futures_util::future::join_all(closes);
        let closing = deadline - std::time::Duration::from_millis(200);
        if tokio::time::timeout_at(closing, all).await.is_err() {
            tracing::warn!("the sessions did not close in time; their processes are killed");
        }
        self.bridge.shutdown().await;
        let mut task = core.task;
        if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
            core.cancel.cancel();
            let _ = tokio::time::timeout(std::time::Duration::from_millis(100), task).await;
        }
    }
}
