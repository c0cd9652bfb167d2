//! The ACP methods the fake answers, and its live sessions.

use crate::scenario::Scenario;
use crate::store::{Record, Store};
use crate::Out;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// JSON-RPC error codes the fake answers with.
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
/// ACP's "resource not found" (an unknown session).
pub const NOT_FOUND: i64 = -32002;

/// A session this process serves.
pub struct Live {
    pub record: Record,
    /// The current mode id (from the scenario's `modes`, then `session/set_mode`).
    pub mode: Option<String>,
    pub model: Option<String>,
    pub config_options: Option<Vec<Value>>,
    /// Cancelled by `session/cancel`; a fresh one per turn.
    pub cancel: CancellationToken,
}

pub struct Agent {
    pub scenario: Scenario,
    pub store: Mutex<Store>,
    out: mpsc::Sender<Out>,
    sessions: Mutex<HashMap<String, Live>>,
    /// Our requests to the client (permissions), by id.
    pending: Mutex<HashMap<i64, oneshot::Sender<Value>>>,
    next_id: AtomicI64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn str_param<'a>(params: &'a Value, key: &str) -> Option<&'a str> {
    params.get(key).and_then(Value::as_str)
}

type Answer = Result<Value, (i64, String)>;

impl Agent {
    pub fn new(scenario: Scenario, out: mpsc::Sender<Out>) -> Agent {
        Agent {
            scenario,
            store: Mutex::new(Store::from_env()),
            out,
            sessions: Mutex::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
        }
    }

    pub fn store_mut(&self) -> MutexGuard<'_, Store> {
        lock(&self.store)
    }

    pub async fn send(&self, out: Out) {
        let _ = self.out.send(out).await;
    }

    pub async fn line(&self, msg: Value) {
        self.send(Out::Line(msg.to_string())).await;
    }

    /// One message from the client. Requests are answered in order, except `session/prompt`,
    /// which runs as a task of its own (turns of several sessions run at once).
    pub async fn receive(self: &Arc<Self>, msg: Value) {
        lock(&self.store).log(&msg);
        let method = msg
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let id = msg.get("id").cloned();
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match (method, id) {
            (Some(method), Some(id)) if method == "session/prompt" => {
                let me = self.clone();
                tokio::spawn(async move {
                    if let Some(answer) = crate::turn::prompt(&me, &params).await {
                        me.answer(id, answer).await;
                    }
                });
            }
            (Some(method), Some(id)) => {
                let answer = self.request(&method, &params).await;
                self.answer(id, answer).await;
                if method == "initialize" {
                    let steps = self.scenario.after_initialize.clone();
                    crate::turn::run_plain(self, &steps).await;
                }
            }
            (Some(method), None) => self.notification(&method, &params),
            (None, Some(id)) => {
                let result = match msg.get("result") {
                    Some(r) => r.clone(),
                    None => json!({"error": msg.get("error").cloned().unwrap_or(Value::Null)}),
                };
                let waiter = id.as_i64().and_then(|id| lock(&self.pending).remove(&id));
                if let Some(waiter) = waiter {
                    let _ = waiter.send(result);
                }
            }
            (None, None) => eprintln!("fake-acp: neither a request nor a response: {msg}"),
        }
    }

    async fn answer(&self, id: Value, answer: Answer) {
        let msg = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        self.line(msg).await;
    }

    /// Sends a request to the client and waits for its result (`{"error": ...}` for an error).
    pub async fn ask(&self, method: &str, params: Value) -> Value {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        self.line(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        rx.await.unwrap_or(Value::Null)
    }

    fn notification(&self, method: &str, params: &Value) {
        if method == "session/cancel" {
            let sid = str_param(params, "sessionId").unwrap_or_default();
            if let Some(live) = lock(&self.sessions).get(sid) {
                live.cancel.cancel();
            }
        }
    }

    /// Runs `f` on a live session.
    pub fn with_session<R>(&self, sid: &str, f: impl FnOnce(&mut Live) -> R) -> Option<R> {
        lock(&self.sessions).get_mut(sid).map(f)
    }

    /// Appends an update to a session's history (and its file).
    pub fn remember(&self, sid: &str, update: &Value) {
        let record = self.with_session(sid, |live| {
            live.record.history.push(update.clone());
            let n = live.record.history.len();
            live.record.updated_at = format!("2026-01-01T00:{:02}:{:02}Z", (n / 60) % 60, n % 60);
            live.record.clone()
        });
        if let Some(record) = record {
            lock(&self.store).save(&record);
        }
    }

    /// Sends a `session/update` of `sid` and remembers it.
    pub async fn update(&self, sid: &str, update: Value) {
        self.remember(sid, &update);
        self.line(json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": sid, "update": update}}))
            .await;
    }

    fn session_state(&self, live: &Live) -> Value {
        let mut out = json!({});
        if let Some(modes) = &self.scenario.modes {
            let mut modes = modes.clone();
            if let Some(mode) = &live.mode {
                modes["currentModeId"] = json!(mode);
            }
            out["modes"] = modes;
        }
        if let Some(models) = &self.scenario.models {
            let mut models = models.clone();
            if let Some(model) = &live.model {
                models["currentModelId"] = json!(model);
            }
            out["models"] = models;
        }
        if let Some(options) = &live.config_options {
            out["configOptions"] = json!(options);
        }
        out
    }

    /// Makes `record` live in this process; returns what `session/new|load|resume` answer.
    fn go_live(&self, record: Record) -> Value {
        let live = Live {
            mode: self
                .scenario
                .modes
                .as_ref()
                .and_then(|m| str_param(m, "currentModeId"))
                .map(str::to_string),
            model: None,
            config_options: self.scenario.config_options.clone(),
            cancel: CancellationToken::new(),
            record,
        };
        let state = self.session_state(&live);
        lock(&self.sessions).insert(live.record.session_id.clone(), live);
        state
    }

    async fn request(&self, method: &str, params: &Value) -> Answer {
        if self.scenario.refuse.iter().any(|m| m == method) {
            return Err((METHOD_NOT_FOUND, format!("Method not found: {method}")));
        }
        let sid = str_param(params, "sessionId")
            .unwrap_or_default()
            .to_string();
        match method {
            "initialize" => Ok(json!({
                "protocolVersion": 1,
                "agentCapabilities": self.scenario.capabilities.to_wire(),
                "authMethods": [],
                "agentInfo": {"name": "fake-acp", "version": env!("CARGO_PKG_VERSION")},
            })),
            "authenticate" => Ok(json!({})),
            "session/new" => {
                let id = lock(&self.store).new_id();
                let record = Record {
                    session_id: id.clone(),
                    cwd: str_param(params, "cwd").unwrap_or_default().to_string(),
                    ..Record::default()
                };
                lock(&self.store).save(&record);
                let mut state = self.go_live(record);
                state["sessionId"] = json!(id);
                Ok(state)
            }
            "session/load" | "session/resume" => {
                let record = lock(&self.store).load(&sid);
                let Some(record) = record else {
                    return Err((NOT_FOUND, format!("Session not found: {sid}")));
                };
                let history = record.history.clone();
                let state = self.go_live(record);
                if method == "session/load" {
                    for update in history {
                        self.line(json!({"jsonrpc": "2.0", "method": "session/update",
                            "params": {"sessionId": sid, "update": update}}))
                            .await;
                    }
                }
                Ok(state)
            }
            "session/list" => {
                let cwd = str_param(params, "cwd");
                let sessions: Vec<Value> = lock(&self.store)
                    .list(cwd)
                    .into_iter()
                    .map(|r| {
                        json!({"sessionId": r.session_id, "cwd": r.cwd, "title": r.title,
                            "updatedAt": r.updated_at})
                    })
                    .collect();
                Ok(json!({"sessions": sessions}))
            }
            "session/close" => match lock(&self.sessions).remove(&sid) {
                Some(live) => {
                    live.cancel.cancel();
                    Ok(json!({}))
                }
                None => Err((NOT_FOUND, format!("Session not found: {sid}"))),
            },
            "session/set_mode" => self.set_mode(&sid, str_param(params, "modeId")),
            "session/set_model" => {
                let model = str_param(params, "modelId").map(str::to_string);
                self.with_session(&sid, |live| live.model = model)
                    .map(|()| json!({}))
                    .ok_or((NOT_FOUND, format!("Session not found: {sid}")))
            }
            "session/set_config_option" => {
                let answer = self.set_config_option(&sid, params);
                self.announce_config(&sid, params, &answer).await;
                answer
            }
            _ => Err((METHOD_NOT_FOUND, format!("Method not found: {method}"))),
        }
    }

    fn set_mode(&self, sid: &str, mode: Option<&str>) -> Answer {
        let known = self
            .scenario
            .modes
            .as_ref()
            .and_then(|m| m.get("availableModes"))
            .and_then(Value::as_array)
            .is_some_and(|modes| modes.iter().any(|m| str_param(m, "id") == mode));
        if !known {
            return Err((INVALID_PARAMS, format!("unknown mode {mode:?}")));
        }
        let mode = mode.map(str::to_string);
        self.with_session(sid, |live| live.mode = mode)
            .map(|()| json!({}))
            .ok_or((NOT_FOUND, format!("Session not found: {sid}")))
    }

    /// The scenario's `configUpdateBeforeAnswer`: for an accepted change of a listed option, its
    /// filler updates, then a `config_option_update` with every option's value.
    async fn announce_config(&self, sid: &str, params: &Value, answer: &Answer) {
        let announced = str_param(params, "configId")
            .and_then(|id| self.scenario.config_update_before_answer.get(id));
        let (Ok(state), Some(&fillers)) = (answer, announced) else {
            return;
        };
        for n in 0..fillers {
            let command = json!({"name": format!("filler-{n}"), "description": "-"});
            self.update(
                sid,
                json!({"sessionUpdate": "available_commands_update", "availableCommands": [command]}),
            )
            .await;
        }
        self.update(
            sid,
            json!({"sessionUpdate": "config_option_update", "configOptions": state["configOptions"]}),
        )
        .await;
    }

    fn set_config_option(&self, sid: &str, params: &Value) -> Answer {
        let config_id = str_param(params, "configId").unwrap_or_default();
        let value = params.get("value").cloned().unwrap_or(Value::Null);
        let changed = self.with_session(sid, |live| {
            let options = live.config_options.as_mut()?;
            let option = options
                .iter_mut()
                .find(|o| str_param(o, "id") == Some(config_id))?;
            let allowed = match option.get("options").and_then(Value::as_array) {
                Some(choices) => choices.iter().any(|c| c.get("value") == Some(&value)),
                None => value.is_boolean(),
            };
            if !allowed {
                return None;
            }
            option["currentValue"] = value.clone();
            Some(json!({"configOptions": options}))
        });
        match changed {
            None => Err((NOT_FOUND, format!("Session not found: {sid}"))),
            Some(None) => Err((
                INVALID_PARAMS,
                format!("bad value for {config_id}: {value}"),
            )),
            Some(Some(answer)) => Ok(answer),
        }
    }
}
