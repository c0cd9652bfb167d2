//! The live normalizer: app-server notifications in, [`AgentEvent`]s out. Pure state, no I/O,
//! so the recorded transcripts in `shared/fixtures` drive it directly in tests.
//!
//! Text arrives as deltas and leaves as complete snapshots: each `agentMessage` / `reasoning`
//! item grows under its own id. Tool-like items are snapshots keyed by the Codex item id.
//! Only the turn the core started (bound to Codex's turn id at `turn/started`) is reported;
//! items of other turns are stale and dropped. Sub-agent threads become child sessions.

mod children;
pub use children::ends_agent;
pub mod items;
mod turn;

#[cfg(test)]
pub(crate) mod tests;

use crate::wire::items::ThreadItem;
use crate::wire::notify::Notification;
use agent_bridge_core::AgentEvent;
use agent_bridge_protocol::{ItemBody, Severity, TimelineItem, ToolCall, ToolCallDetail};
use items::Source;
use std::collections::{HashMap, HashSet};

/// Live shell output kept per running command (the completed item carries the full output).
const LIVE_OUTPUT_CAP: usize = 256 * 1024;

#[derive(Debug, Clone)]
struct TurnBinding {
    core: String,
    native: Option<String>,
}

#[derive(Debug, Clone, Default)]
struct Reasoning {
    summary: Vec<String>,
    content: Vec<String>,
}

#[derive(Debug)]
pub struct Normalizer {
    session_id: String,
    thread_id: String,
    cwd: String,
    turn: Option<TurnBinding>,
    texts: HashMap<String, String>,
    reasoning: HashMap<String, Reasoning>,
    tools: HashMap<String, ToolCall>,
    last_error: Option<crate::wire::thread::TurnError>,
    warnings: HashSet<String>,
    /// "Retrying the model connection…" while Codex retries a model request.
    retry: agent_bridge_core::retry_notice::RetryNotice,
    /// Codex thread id of a sub-agent -> child session id.
    children: HashMap<String, String>,
}

impl Normalizer {
    pub fn new(session_id: &str, thread_id: &str, cwd: &str) -> Self {
        Self {
            session_id: session_id.to_string(),
            thread_id: thread_id.to_string(),
            cwd: cwd.to_string(),
            turn: None,
            texts: HashMap::new(),
            reasoning: HashMap::new(),
            tools: HashMap::new(),
            last_error: None,
            warnings: HashSet::new(),
            retry: Default::default(),
            children: HashMap::new(),
        }
    }

    /// A normalizer for a session whose thread is not known yet (routes nothing thread-bound).
    pub fn unbound(session_id: &str, cwd: &str) -> Self {
        Self::new(session_id, "", cwd)
    }

    /// Binds the session's Codex thread (and its effective cwd) once it is known.
    pub fn bind_thread(&mut self, thread_id: &str, cwd: &str) {
        self.thread_id = thread_id.to_string();
        self.cwd = cwd.to_string();
    }

    pub fn thread_id(&self) -> &str {
        &self.thread_id
    }

    /// The core started turn `core_id`; Codex's id is bound when it is known.
    pub fn begin_turn(&mut self, core_id: &str) {
        self.turn = Some(TurnBinding {
            core: core_id.to_string(),
            native: None,
        });
        self.last_error = None;
    }

    /// Binds Codex's turn id (from the `turn/start` answer or `turn/started`).
    pub fn bind_native(&mut self, core_id: &str, native: &str) {
        if let Some(t) = self.turn.as_mut().filter(|t| t.core == core_id) {
            t.native.get_or_insert_with(|| native.to_string());
        }
    }

    /// Forgets the active turn (it ended without Codex saying so, e.g. `turn/start` failed).
    pub fn drop_turn(&mut self, core_id: &str) {
        if self.turn.as_ref().is_some_and(|t| t.core == core_id) {
            self.turn = None;
        }
    }

    /// The runtime died and a new one takes over the thread: forgets what the dead one left
    /// unfinished (the turn binding, text still streaming, tool calls, whose rows the core
    /// settled with the turn). Keeps the thread, the sub-agent children and the warnings seen
    /// (their row ids stay unique).
    pub fn forget_unfinished(&mut self) {
        self.turn = None;
        self.texts.clear();
        self.reasoning.clear();
        self.tools.clear();
        self.last_error = None;
    }

    pub fn active_turn(&self) -> Option<(&str, Option<&str>)> {
        self.turn
            .as_ref()
            .map(|t| (t.core.as_str(), t.native.as_deref()))
    }

    /// The last snapshot of a running tool call (for approval details).
    pub fn tool(&self, item_id: &str) -> Option<&ToolCall> {
        self.tools.get(item_id)
    }

    /// Tool calls started and not finished (commands still running, sub-agents at work).
    pub fn running_tools(&self) -> usize {
        self.tools
            .values()
            .filter(|t| t.status == agent_bridge_protocol::ToolStatus::Running)
            .count()
    }

    /// `thread_id` is one of the session's sub-agents.
    pub fn has_child(&self, thread_id: &str) -> bool {
        self.children.contains_key(thread_id)
    }

    fn child_of(&self, thread_id: &str) -> Option<String> {
        self.children.get(thread_id).cloned()
    }

    /// The core turn id when `turn_id` is the bound Codex turn.
    fn ours(&self, turn_id: Option<&str>) -> Option<String> {
        let t = self.turn.as_ref()?;
        match (&t.native, turn_id) {
            (Some(n), Some(id)) if n == id => Some(t.core.clone()),
            (Some(_), None) => Some(t.core.clone()),
            _ => None,
        }
    }

    /// Where an event of `thread_id`/`turn_id` goes: our turn, a child session, or nowhere.
    fn route(&self, thread_id: &str, turn_id: Option<&str>) -> Route {
        if thread_id == self.thread_id {
            match self.ours(turn_id) {
                Some(_) => Route::Main,
                None => Route::Drop,
            }
        } else {
            match self.child_of(thread_id) {
                Some(child) => Route::Child(child),
                None => Route::Drop,
            }
        }
    }

    fn emit(route: &Route, item: TimelineItem, out: &mut Vec<AgentEvent>) {
        match route {
            Route::Main => out.push(AgentEvent::Item(item)),
            Route::Child(child) => out.push(AgentEvent::ChildItem {
                child_session_id: child.clone(),
                item,
            }),
            Route::Drop => {}
        }
    }

    /// Entry point: one app-server notification.
    pub fn notification(&mut self, method: &str, params: serde_json::Value) -> Vec<AgentEvent> {
        match method {
            "item/reasoning/summaryTextDelta"
            | "item/reasoning/summaryPartAdded"
            | "item/reasoning/textDelta" => self.reasoning_delta(method, params),
            _ => self.handle(Notification::parse(method, params)),
        }
    }

    pub fn handle(&mut self, n: Notification) -> Vec<AgentEvent> {
        let mut out = Vec::new();
        // The model answered (or the turn is over): a retry notice is withdrawn.
        let progress = matches!(
            n,
            Notification::TurnCompleted(_)
                | Notification::ItemStarted(_)
                | Notification::ItemCompleted(_)
                | Notification::AgentMessageDelta(_)
        );
        if progress {
            out.extend(self.retry.settle().map(AgentEvent::Notice));
        }
        match n {
            Notification::TurnStarted(t) => self.turn_started(t, &mut out),
            Notification::TurnCompleted(t) => self.turn_completed(t, &mut out),
            Notification::ItemStarted(n) => {
                let route = self.route(&n.thread_id, n.turn_id.as_deref());
                self.item(&route, n.item, Source::Started, &mut out);
            }
            Notification::ItemCompleted(n) => {
                let route = self.route(&n.thread_id, n.turn_id.as_deref());
                self.item(&route, n.item, Source::Completed, &mut out);
            }
            Notification::AgentMessageDelta(d) => {
                let route = self.route(&d.thread_id, d.turn_id.as_deref());
                if route != Route::Drop {
                    let text = self.texts.entry(d.item_id.clone()).or_default();
                    text.push_str(&d.delta);
                    let body = ItemBody::AssistantMessage {
                        text: text.clone(),
                        message_id: None,
                    };
                    Self::emit(&route, TimelineItem::new(d.item_id, body), &mut out);
                }
            }
            Notification::ThreadStatusChanged(c) => self.thread_status(&c, &mut out),
            other => self.turn_level(other, &mut out),
        }
        out
    }

    fn item(&mut self, route: &Route, item: ThreadItem, source: Source, out: &mut Vec<AgentEvent>) {
        if *route == Route::Drop {
            return;
        }
        if item == ThreadItem::Other {
            tracing::debug!("codex item of a type this bridge does not render ignored");
            return;
        }
        if let ThreadItem::CollabAgentToolCall(c) = &item {
            self.open_children(c, out);
            if source == Source::Completed {
                self.close_ended_children(c, out);
            }
        }
        let id = item.id().map(str::to_string);
        // The completed item is authoritative: drop what the deltas assembled, and skip the
        // snapshot when the streamed text already equals it.
        let mut streamed = None;
        if source == Source::Completed {
            if let Some(id) = &id {
                streamed = self.texts.remove(id).or_else(|| {
                    self.reasoning
                        .remove(id)
                        .map(|r| items::reasoning_text(&r.summary, &r.content))
                });
            }
        }
        let children = self.children.clone();
        let lookup = move |thread: &str| children.get(thread).cloned();
        let Some(mapped) = items::to_timeline(&item, source, &lookup) else {
            return;
        };
        if let (
            Some(before),
            ItemBody::AssistantMessage { text, .. } | ItemBody::Reasoning { text },
        ) = (&streamed, &mapped.body)
        {
            if before == text {
                return;
            }
        }
        if let ItemBody::ToolCall(call) = &mapped.body {
            self.tools.insert(mapped.id.clone(), call.clone());
        }
        Self::emit(route, mapped, out);
    }

    /// Reasoning deltas: `summary` (index = part) or raw `content` text.
    fn reasoning_delta(&mut self, method: &str, params: serde_json::Value) -> Vec<AgentEvent> {
        let mut out = Vec::new();
        let Ok(d) = serde_json::from_value::<ReasoningDelta>(params) else {
            return out;
        };
        let route = self.route(&d.thread_id, d.turn_id.as_deref());
        if route == Route::Drop {
            return out;
        }
        let r = self.reasoning.entry(d.item_id.clone()).or_default();
        let (parts, index) = match method {
            "item/reasoning/textDelta" => (&mut r.content, d.content_index.unwrap_or(0)),
            _ => (&mut r.summary, d.summary_index.unwrap_or(0)),
        };
        let index = usize::try_from(index).unwrap_or(0).min(1024);
        if parts.len() <= index {
            parts.resize(index + 1, String::new());
        }
        if let Some(delta) = d.delta {
            parts[index].push_str(&delta);
        }
        let text = items::reasoning_text(&r.summary, &r.content);
        if !text.is_empty() {
            Self::emit(
                &route,
                TimelineItem::new(d.item_id, ItemBody::Reasoning { text }),
                &mut out,
            );
        }
        out
    }

    fn warning(&mut self, message: String, out: &mut Vec<AgentEvent>) {
        if message.is_empty() || !self.warnings.insert(message.clone()) {
            return;
        }
        let id = format!("codex-warning:{}", self.warnings.len());
        out.push(AgentEvent::Item(TimelineItem::new(
            id,
            ItemBody::Notification {
                level: Severity::Warning,
                message,
            },
        )));
    }

    fn output_delta(
        &mut self,
        route: &Route,
        item_id: &str,
        delta: &str,
        out: &mut Vec<AgentEvent>,
    ) {
        let Some(call) = self.tools.get_mut(item_id) else {
            return;
        };
        if let ToolCallDetail::Shell { output, .. } = &mut call.detail {
            let o = output.get_or_insert_with(String::new);
            o.push_str(delta);
            if o.len() > LIVE_OUTPUT_CAP {
                let mut cut = o.len() - LIVE_OUTPUT_CAP;
                while !o.is_char_boundary(cut) {
                    cut += 1;
                }
                o.drain(..cut);
            }
            Self::emit(
                route,
                TimelineItem::new(item_id, ItemBody::ToolCall(call.clone())),
                out,
            );
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Route {
    Main,
    Child(String),
    Drop,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReasoningDelta {
    thread_id: String,
    #[serde(default)]
    turn_id: Option<String>,
    item_id: String,
    #[serde(default)]
    delta: Option<String>,
    #[serde(default)]
    summary_index: Option<i64>,
    #[serde(default)]
    content_index: Option<i64>,
}
