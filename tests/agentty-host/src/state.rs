//! What the host knows: every message of the plugin, the panel it drew (and the text fields as
//! the user sees them), the rules it broke (`violations`: what Agentty refuses, drops or stops
//! the plugin for), what it would draw otherwise than written (`notes`: ignored fields, unknown
//! icons, stray stdout), and the measures the tests report.

pub use crate::field::Field;
use crate::host::HostOptions;
use crate::manifest::Manifest;
use crate::tree;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Agentty stops a plugin that sends more than this in one second (its window).
pub const MAX_MESSAGES_PER_SECOND: u32 = 240;
/// Agentty drops `ui/notify` calls closer together than this.
pub const NOTIFY_INTERVAL: Duration = Duration::from_millis(700);

/// One line of the plugin.
#[derive(Debug, Clone)]
pub enum Msg {
    Json(Instant, Value),
    Stray(String),
}

/// Measures of a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    /// Most lines (stdout and stderr) in any rolling second.
    pub max_rate: usize,
    /// Most lines in one of Agentty's own windows.
    pub max_window: u32,
    pub trees: usize,
    pub max_elements: usize,
    pub max_depth: usize,
    pub max_tree_bytes: usize,
    pub notifies: usize,
    pub log_lines: usize,
}

pub struct State {
    pub messages: Vec<Msg>,
    pub panel: Option<Value>,
    pub fields: HashMap<String, Field>,
    pub violations: Vec<String>,
    /// What the host accepts but draws or handles otherwise than the plugin wrote it.
    pub notes: Vec<String>,
    pub logs: Vec<String>,
    pub notified: Vec<Value>,
    pub injected: Vec<Value>,
    pub badge: String,
    pub shown: bool,
    /// The context as Agentty has it; a plugin gets it cut to its permissions ([`State::context_for`]).
    pub context: Value,
    session_get: Option<Value>,
    /// The manifest's permissions.
    permissions: Vec<String>,
    /// The manifest's `apiVersion` (trees are checked against it).
    api: u32,
    /// A line over 16 MB ended the reading of stdout.
    pub stdout_closed: bool,
    /// Answers to the host's own requests (`initialize`), by id.
    pub answers: HashMap<u64, Value>,
    pub exited: Option<(Instant, Option<i32>)>,
    pub stats: Stats,
    window: Option<(Instant, u32)>,
    recent: VecDeque<Instant>,
    notified_at: Option<Instant>,
}

impl State {
    pub fn new(options: &HostOptions, manifest: &Manifest) -> State {
        State {
            messages: Vec::new(),
            panel: None,
            fields: HashMap::new(),
            violations: Vec::new(),
            notes: Vec::new(),
            logs: Vec::new(),
            notified: Vec::new(),
            injected: Vec::new(),
            badge: String::new(),
            shown: false,
            context: options.context.clone(),
            session_get: options.session_get.clone(),
            permissions: manifest.permissions.clone(),
            api: manifest.api_version,
            stdout_closed: false,
            answers: HashMap::new(),
            exited: None,
            stats: Stats::default(),
            window: None,
            recent: VecDeque::new(),
            notified_at: None,
        }
    }

    pub fn violation(&mut self, what: String) {
        self.violations.push(what);
    }

    pub fn note(&mut self, what: String) {
        if !self.notes.contains(&what) {
            self.notes.push(what);
        }
    }

    pub fn set_context(&mut self, context: Value) {
        self.context = context;
    }

    /// The context as this plugin sees it: cut to its permissions.
    pub fn context_for(&self) -> Value {
        crate::scoped_context(&self.context, &self.permissions)
    }

    /// `session/get` (`plugin_session` in Agentty's `workbench/plugin_host.rs`): the pane named
    /// or the focused one; -32602 when there is none or it is not Claude Code or Codex (a shell
    /// has no session), -32002 when it has no session yet.
    fn session(&self, params: &Value) -> Result<Value, (i64, String)> {
        let pane = self.context.get("pane").filter(|p| p.is_object());
        let pane = match params.get("paneId").and_then(Value::as_u64) {
            Some(id) => pane.filter(|p| p["id"].as_u64() == Some(id)),
            None => pane,
        };
        let Some(pane) = pane else {
            return Err((-32602, "no such pane".into()));
        };
        if !matches!(pane["kind"].as_str(), Some("claude" | "codex")) {
            return Err((
                -32602,
                "the pane is not running Claude Code or Codex".into(),
            ));
        }
        self.session_get
            .clone()
            .ok_or((-32002, "no session yet".to_string()))
    }

    /// Counts one line (stdout or stderr) as Agentty does, and in a rolling second.
    pub fn count(&mut self, now: Instant) {
        self.window = match self.window {
            Some((start, n)) if now.duration_since(start) < Duration::from_secs(1) => {
                Some((start, n + 1))
            }
            _ => Some((now, 1)),
        };
        let n = self.window.map_or(0, |w| w.1);
        self.stats.max_window = self.stats.max_window.max(n);
        if n == MAX_MESSAGES_PER_SECOND + 1 {
            self.violation(format!(
                "more than {MAX_MESSAGES_PER_SECOND} messages a second: Agentty stops the plugin"
            ));
        }
        while self
            .recent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(1))
        {
            self.recent.pop_front();
        }
        self.recent.push_back(now);
        self.stats.max_rate = self.stats.max_rate.max(self.recent.len());
        self.stats.log_lines = self.logs.len();
    }

    /// Handles one JSON message of the plugin; returns the answer to write back, if any.
    pub fn message(&mut self, v: Value, manifest: &Manifest) -> Option<Value> {
        self.messages.push(Msg::Json(Instant::now(), v.clone()));
        let id = v.get("id").filter(|id| !id.is_null()).cloned();
        let Some(method) = v.get("method").and_then(Value::as_str) else {
            // An answer to one of the host's requests.
            if let Some(n) = id.as_ref().and_then(Value::as_u64) {
                self.answers.insert(n, v.clone());
            }
            return None;
        };
        let params = v.get("params").cloned().unwrap_or(Value::Null);
        let result = self.call(method, params, manifest);
        let id = id?;
        Some(match result {
            Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        })
    }

    fn call(
        &mut self,
        method: &str,
        params: Value,
        manifest: &Manifest,
    ) -> Result<Value, (i64, String)> {
        let needs = match method {
            "host/revealPath" | "workspace/list" => Some("workspace.read"),
            "prompt/inject" => Some("prompt.inject"),
            "terminal/send" => Some("terminal.write"),
            "session/get" => Some("session.read"),
            "net/fetch" => Some("net.request"),
            _ => None,
        };
        // Methods a later API added (the host's API table): a plugin calling one declares it.
        let since = match method {
            "host/timer" => 2,
            m if m.starts_with("browser/") => 3,
            _ => 1,
        };
        if since > manifest.api_version {
            self.note(format!(
                "{method} is API {since} (the manifest declares {})",
                manifest.api_version
            ));
        }
        if let Some(p) = needs.filter(|p| !manifest.has(p)) {
            return Err((
                -32001,
                format!("{method} needs the \"{p}\" permission in agentty-plugin.json"),
            ));
        }
        match method {
            "ui/setPanel" => self.set_panel(params.get("tree").cloned().unwrap_or(Value::Null)),
            "ui/showPanel" => {
                self.shown = true;
                Ok(Value::Null)
            }
            "ui/notify" => {
                let now = Instant::now();
                if self
                    .notified_at
                    .is_some_and(|t| now.duration_since(t) < NOTIFY_INTERVAL)
                {
                    self.violation(format!(
                        "ui/notify within 700 ms of the last: Agentty drops it ({params})"
                    ));
                } else {
                    self.notified_at = Some(now);
                    self.stats.notifies += 1;
                    self.notified.push(params);
                }
                Ok(Value::Null)
            }
            "ui/setBadge" => {
                let text = params.get("text").and_then(Value::as_str).unwrap_or("");
                if text.chars().count() > 8 {
                    self.note(format!("a badge over 8 characters (cut): {text}"));
                }
                self.badge = text.chars().take(8).collect();
                Ok(Value::Null)
            }
            "context/get" => Ok(self.context_for()),
            "host/info" => Ok(json!({
                "version": crate::AGENTTY_VERSION,
                "apiVersion": crate::manifest::API_VERSION,
                "language": "en",
                "utcOffsetMinutes": 0,
                "uiFeatures": ["flow", "popover"],
            })),
            "session/get" => self.session(&params),
            "prompt/inject" => self.inject(params),
            "workspace/list" => Ok(json!([])),
            other => Err((-32601, format!("unknown method {other}"))),
        }
    }

    /// `prompt/inject` (`plugin_call` and `deliver_prompt` in Agentty's
    /// `workbench/plugin_host.rs`): `text` must be a string; `target: "ask"` (the default) opens
    /// the "Send to…" dialog and answers `asked`; any other target refuses an empty prompt.
    fn inject(&mut self, params: Value) -> Result<Value, (i64, String)> {
        let Some(text) = params.get("text").and_then(Value::as_str) else {
            return Err((
                -32602,
                "invalid prompt request: missing field `text`".into(),
            ));
        };
        let ask = params
            .get("target")
            .and_then(Value::as_str)
            .is_none_or(|t| t == "ask");
        if !ask && text.trim().is_empty() {
            return Err((-32602, "the prompt is empty".into()));
        }
        self.injected.push(params);
        Ok(if ask {
            json!({"status": "asked"})
        } else {
            json!({"status": "sent", "paneId": 1, "submitted": true})
        })
    }

    fn set_panel(&mut self, tree: Value) -> Result<Value, (i64, String)> {
        let bytes = tree.to_string().len();
        match tree::check(&tree, self.api) {
            Ok(checked) => {
                for note in checked.notes {
                    self.note(format!("ui/setPanel: {note}"));
                }
                let m = checked.measure;
                self.stats.trees += 1;
                self.stats.max_elements = self.stats.max_elements.max(m.elements);
                self.stats.max_depth = self.stats.max_depth.max(m.depth);
                self.stats.max_tree_bytes = self.stats.max_tree_bytes.max(bytes);
                let mut inputs = Vec::new();
                tree::inputs(&tree, &mut inputs);
                self.fields
                    .retain(|id, _| inputs.iter().any(|(i, _, _)| i == id));
                for (id, value, rows) in inputs {
                    let value = value.unwrap_or_default();
                    match self.fields.get_mut(&id) {
                        Some(field) => {
                            field.rows = rows;
                            field.sync(&value);
                        }
                        None => {
                            self.fields.insert(id, Field::new(&value, rows));
                        }
                    }
                }
                self.panel = Some(tree);
                Ok(Value::Null)
            }
            Err(e) => {
                self.violation(format!("invalid UI tree: {e}"));
                Err((-32602, format!("invalid UI tree: {e}")))
            }
        }
    }

    /// The node of the current panel with element id `id`.
    pub fn find(&self, id: &str) -> Option<&Value> {
        tree::find(self.panel.as_ref()?, id)
    }

    /// The rows of list `id` (empty when there is no such list).
    pub fn rows(&self, id: &str) -> Vec<Value> {
        self.find(id)
            .and_then(|l| l.get("items"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }

    /// The JSON messages the plugin sent with method `method`.
    pub fn sent(&self, method: &str) -> Vec<Value> {
        self.messages
            .iter()
            .filter_map(|m| match m {
                Msg::Json(_, v) if v.get("method").and_then(Value::as_str) == Some(method) => {
                    Some(v.clone())
                }
                _ => None,
            })
            .collect()
    }
}
