//! ACP `session/update`s -> complete timeline snapshots and session events.
//!
//! - `agent_message_chunk`s grow one `assistant_message` (a new one after anything else, or on
//!   a new `messageId`); `agent_thought_chunk`s likewise one `reasoning`;
//! - `user_message_chunk` -> `user_message`, only outside a live turn (a `session/load`
//!   replay): during a turn the core already shows the user's prompt;
//! - `tool_call` / `tool_call_update` -> one `tool_call` per `toolCallId`, the update merged;
//! - `plan` -> one `todo` per turn, and so does a todo-writing tool call ([`todos`]: its
//!   `todos` list; no tool row when the call was known as one from its first update);
//!   `available_commands_update` -> commands;
//!   `current_mode_update` / `config_option_update` -> handed back for the session config;
//!   `usage_update` -> usage; `session_info_update` -> title;
//! - any other kind is logged once and ignored;
//! - a retry the agent only logs ([`crate::opencode::retry_log`]) is a retry notice during a turn,
//!   withdrawn when the model answers (an item) or the turn ends.

mod permission_call;
pub mod replay_revert;
mod shell_output;
#[cfg(test)]
pub(crate) mod tests;
pub mod todos;
pub mod tools;

use crate::wire::acp::{
    AvailableCommandInput, ContentChunk, SessionUpdate, ToolCallStatus, ToolCallUpdate, UsageUpdate,
};
use crate::wire::tool_call::{self, content_text, ToolSnapshot};
use crate::wire::update::{self, Read};
use crate::wire::ConfigOption;
use agent_bridge_core::AgentEvent;
use agent_bridge_protocol::{ItemBody, ProviderCommand, ProviderUsage, TimelineItem, ToolStatus};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextKind {
    User,
    Assistant,
    Reasoning,
}

#[derive(Debug)]
struct OpenText {
    kind: TextKind,
    id: String,
    message_id: Option<String>,
    text: String,
}

/// A config change the agent reported (applied by the session's config).
#[derive(Debug, Clone)]
pub enum ConfigChange {
    Mode(String),
    Options(Vec<ConfigOption>),
}

/// What one update produced.
#[derive(Debug, Default)]
pub struct Output {
    pub events: Vec<AgentEvent>,
    pub config: Option<ConfigChange>,
    pub title: Option<String>,
}

/// The normalizer of one session.
#[derive(Debug, Default)]
pub struct Normalizer {
    /// The core turn running, if any (else updates belong to a replay).
    turn: Option<String>,
    /// Prefix of item ids outside a turn (`replay`).
    seq: u64,
    text: Option<OpenText>,
    tools: HashMap<String, ToolSnapshot>,
    /// Tool calls shown as the turn's todo list instead of a tool row.
    todo_calls: HashSet<String>,
    /// Tool calls of the running turn, for cancelling those left running.
    turn_tools: Vec<String>,
    /// Calls a replay left waiting, kept past the turn's start for a confirmation that names
    /// none of them ([`permission_call`]).
    left_waiting: Vec<ToolSnapshot>,
    unknown_seen: HashSet<String>,
    /// Every update kind seen (for the report of what each agent sends).
    pub kinds_seen: HashSet<String>,
    retry: agent_bridge_core::retry_notice::RetryNotice,
    /// Revert tokens of replayed user messages and a pending revert's cut.
    pub replay_revert: replay_revert::ReplayRevert,
}

impl Normalizer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn begin_turn(&mut self, turn_id: &str) {
        self.turn = Some(turn_id.to_string());
        self.replay_revert.turn_began();
        self.text = None;
        self.turn_tools.clear();
        // Tool calls of a replay or an earlier turn are finished: none is kept for the
        // session's lifetime, but those a replay left waiting, for a confirmation.
        self.left_waiting = std::mem::take(&mut self.tools)
            .into_values()
            .filter(permission_call::waits_with_input)
            .collect();
        self.todo_calls.clear();
    }

    pub fn active_turn(&self) -> Option<&str> {
        self.turn.as_deref()
    }

    /// The agent retries the model (its words): a retry notice while a turn runs.
    pub fn retrying(&mut self, words: &str) -> Option<AgentEvent> {
        self.turn.as_ref()?;
        Some(AgentEvent::Notice(self.retry.retrying(words, None)))
    }

    /// The retry notice withdrawn, if one is open (the model answered).
    pub fn model_answered(&mut self) -> Option<AgentEvent> {
        self.retry.settle().map(AgentEvent::Notice)
    }

    /// Ends the turn: tool calls still running are reported canceled when `canceled`; an open
    /// retry notice is withdrawn.
    pub fn end_turn(&mut self, canceled: bool) -> Vec<AgentEvent> {
        let mut out: Vec<AgentEvent> = self.model_answered().into_iter().collect();
        for id in std::mem::take(&mut self.turn_tools) {
            if let Some(f) = self.tools.remove(&id) {
                let mut call = tools::tool_call(&f);
                if call.status == ToolStatus::Running {
                    if canceled {
                        call.cancel();
                    } else {
                        call.complete();
                    }
                    out.push(item(tool_item_id(&id), ItemBody::ToolCall(call)));
                }
            }
        }
        self.turn = None;
        self.text = None;
        out
    }

    /// Tool calls whose fields are kept (those of the running turn, or of a replay).
    pub fn tools_kept(&self) -> usize {
        self.tools.len()
    }

    /// Tool calls of the running turn not finished yet.
    pub fn running_tools(&self) -> usize {
        self.turn_tools
            .iter()
            .filter_map(|id| self.tools.get(id))
            .filter(|f| {
                !matches!(
                    f.fields.status,
                    Some(ToolCallStatus::Completed | ToolCallStatus::Failed)
                )
            })
            .count()
    }

    fn prefix(&self) -> String {
        self.turn.clone().unwrap_or_else(|| "replay".into())
    }

    fn next_id(&mut self, what: &str) -> String {
        self.seq += 1;
        format!("{}:{what}:{}", self.prefix(), self.seq)
    }

    /// One `session/update` payload: read by [`update::read`]; a kind not mapped is logged
    /// once and ignored, a payload the crate refuses is logged and skipped.
    pub fn update(&mut self, raw: Value) -> Output {
        let kind = update::kind(&raw).to_string();
        self.kinds_seen.insert(kind.clone());
        let update = match update::read(raw) {
            Read::Update(u) => *u,
            Read::NotMapped => {
                if self.unknown_seen.insert(kind.clone()) {
                    tracing::info!(kind, "ACP update kind not mapped; ignored");
                }
                return Output::default();
            }
            Read::Unreadable(e) => {
                tracing::warn!(kind, "unreadable ACP update ignored: {e}");
                return Output::default();
            }
        };
        if self.turn.is_none() && self.left_out_of_replay(&update) {
            return Output::default();
        }
        let mut out = Output::default();
        match update {
            SessionUpdate::AgentMessageChunk(c) => {
                let usage = c.meta.as_ref().and_then(meta_usage);
                let (text, message_id) = chunk_text(c);
                out.events
                    .extend(self.chunk(TextKind::Assistant, text, message_id));
                if let Some(usage) = usage {
                    out.events.push(AgentEvent::Usage {
                        turn_id: self.turn.clone(),
                        usage,
                    });
                }
            }
            SessionUpdate::AgentThoughtChunk(c) => {
                let (text, message_id) = chunk_text(c);
                out.events
                    .extend(self.chunk(TextKind::Reasoning, text, message_id))
            }
            SessionUpdate::UserMessageChunk(c) => {
                if self.turn.is_none() {
                    let (text, message_id) = chunk_text(c);
                    out.events
                        .extend(self.chunk(TextKind::User, text, message_id));
                }
            }
            SessionUpdate::ToolCallUpdate(f) => {
                self.text = None;
                out.events.extend(self.tool_update(f));
            }
            SessionUpdate::ToolCall(f) => {
                // Not produced by `update::read` (a `tool_call` is read as an update).
                self.text = None;
                out.events.extend(self.tool_update(f.into()));
            }
            SessionUpdate::Plan(plan) => {
                self.text = None;
                let items = plan
                    .entries
                    .iter()
                    .map(|e| todos::entry(&e.content, Some(todos::plan_status(&e.status))))
                    .collect();
                out.events.push(self.todo_item(items));
            }
            SessionUpdate::AvailableCommandsUpdate(u) => {
                let commands = u
                    .available_commands
                    .into_iter()
                    .map(|c| ProviderCommand {
                        name: c.name,
                        description: c.description,
                        argument_hint: match c.input {
                            Some(AvailableCommandInput::Unstructured(i)) => Some(i.hint),
                            _ => None,
                        },
                    })
                    .collect();
                out.events.push(AgentEvent::Commands(commands));
            }
            SessionUpdate::CurrentModeUpdate(u) => {
                out.config = Some(ConfigChange::Mode(u.current_mode_id.0.to_string()));
            }
            SessionUpdate::ConfigOptionUpdate(u) => {
                out.config = Some(ConfigChange::Options(
                    u.config_options
                        .iter()
                        .filter_map(ConfigOption::from_acp)
                        .collect(),
                ));
            }
            SessionUpdate::SessionInfoUpdate(info) => {
                out.title = info.title.take().filter(|t| !t.trim().is_empty());
            }
            SessionUpdate::UsageUpdate(u) => out.events.push(AgentEvent::Usage {
                turn_id: self.turn.clone(),
                usage: usage_update(&u),
            }),
            _ => {
                // A kind in `update::MAPPED` without an arm here.
                if self.unknown_seen.insert(kind.clone()) {
                    tracing::info!(kind, "ACP update kind not mapped; ignored");
                }
            }
        }
        out
    }

    /// Whether a replayed update belongs to the turns of a pending revert (conversation updates
    /// only; config and commands are the session's).
    fn left_out_of_replay(&mut self, update: &SessionUpdate) -> bool {
        let user = match update {
            SessionUpdate::UserMessageChunk(c) => c.message_id.as_ref().map(|m| &*m.0),
            _ => None,
        };
        let conversation = matches!(
            update,
            SessionUpdate::UserMessageChunk(_)
                | SessionUpdate::AgentMessageChunk(_)
                | SessionUpdate::AgentThoughtChunk(_)
                | SessionUpdate::ToolCall(_)
                | SessionUpdate::ToolCallUpdate(_)
                | SessionUpdate::Plan(_)
                | SessionUpdate::UsageUpdate(_)
        );
        self.replay_revert.leaves_out(user) && conversation
    }

    /// A `tool_call` / `tool_call_update`: the merged call's row, or the todo list it carries.
    fn tool_update(&mut self, f: ToolCallUpdate) -> Vec<AgentEvent> {
        let id = f.tool_call_id.0.to_string();
        let first = !self.tools.contains_key(&id);
        let snapshot = self
            .tools
            .entry(id.clone())
            .or_insert_with(|| tool_call::empty(&id));
        tool_call::merge(snapshot, f);
        let list = todos::list(snapshot);
        if first && (list.is_some() || todos::names_todo_tool(snapshot.fields.title.as_deref())) {
            self.todo_calls.insert(id.clone());
        }
        let mut events = Vec::new();
        if !self.todo_calls.contains(&id) {
            let call = tools::tool_call(snapshot);
            if self.turn.is_some() && !self.turn_tools.contains(&id) {
                self.turn_tools.push(id.clone());
            }
            events.push(item(tool_item_id(&id), ItemBody::ToolCall(call)));
        }
        if let Some(items) = list {
            events.push(self.todo_item(items));
        }
        events
    }

    /// The turn's todo list (one per turn, or per replay).
    fn todo_item(&self, items: Vec<agent_bridge_protocol::TodoEntry>) -> AgentEvent {
        item(format!("{}:plan", self.prefix()), ItemBody::Todo { items })
    }

    fn chunk(
        &mut self,
        kind: TextKind,
        text: String,
        message_id: Option<String>,
    ) -> Vec<AgentEvent> {
        if text.is_empty() {
            return Vec::new();
        }
        let continues = self.text.as_ref().is_some_and(|t| {
            t.kind == kind
                && match (&t.message_id, &message_id) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
        });
        if !continues {
            let what = match kind {
                TextKind::User => "user",
                TextKind::Assistant => "assistant",
                TextKind::Reasoning => "reasoning",
            };
            self.text = Some(OpenText {
                kind,
                id: self.next_id(what),
                message_id: message_id.clone(),
                text: String::new(),
            });
        }
        let Some(open) = self.text.as_mut() else {
            return Vec::new();
        };
        open.text.push_str(&text);
        if open.message_id.is_none() {
            open.message_id = message_id;
        }
        let body = match kind {
            TextKind::User => ItemBody::UserMessage {
                text: open.text.clone(),
                message_id: open.message_id.clone(),
                client_message_id: None,
            },
            TextKind::Assistant => ItemBody::AssistantMessage {
                text: open.text.clone(),
                message_id: open.message_id.clone(),
            },
            TextKind::Reasoning => ItemBody::Reasoning {
                text: open.text.clone(),
            },
        };
        let mut row = TimelineItem::new(open.id.clone(), body);
        if kind == TextKind::User {
            row.revert_token = self.replay_revert.token(open.message_id.as_deref());
        }
        row.normalize();
        vec![AgentEvent::Item(row)]
    }
}

fn tool_item_id(tool_call_id: &str) -> String {
    format!("tool:{tool_call_id}")
}

fn item(id: String, body: ItemBody) -> AgentEvent {
    let mut item = TimelineItem::new(id, body);
    item.normalize();
    AgentEvent::Item(item)
}

/// The text of a chunk and its `messageId`.
fn chunk_text(c: ContentChunk) -> (String, Option<String>) {
    (
        content_text(&c.content),
        c.message_id.map(|m| m.0.to_string()),
    )
}

fn usage_update(u: &UsageUpdate) -> ProviderUsage {
    ProviderUsage {
        context_window_used_tokens: Some(u.used),
        context_window_max_tokens: Some(u.size),
        total_cost_usd: u
            .cost
            .as_ref()
            .filter(|c| c.currency.eq_ignore_ascii_case("usd"))
            .map(|c| c.amount),
        ..ProviderUsage::default()
    }
}

/// Token counts of a `session/prompt` answer's `usage` (`inputTokens`, `outputTokens`,
/// `cachedReadTokens`), or of Gemini's `_meta.quota.token_count`.
pub fn prompt_usage(usage: Option<&Value>, meta: Option<&Value>) -> Option<ProviderUsage> {
    if let Some(u) = usage.filter(|u| u.is_object()) {
        return Some(ProviderUsage {
            input_tokens: u["inputTokens"].as_u64(),
            output_tokens: u["outputTokens"].as_u64(),
            cached_input_tokens: u["cachedReadTokens"].as_u64(),
            ..ProviderUsage::default()
        });
    }
    let counts = meta.map(|m| &m["quota"]["token_count"])?;
    counts.is_object().then(|| ProviderUsage {
        input_tokens: counts["input_tokens"].as_u64(),
        output_tokens: counts["output_tokens"].as_u64(),
        ..ProviderUsage::default()
    })
}

/// Qwen's usage in an agent chunk's `_meta.usage`.
fn meta_usage(meta: &serde_json::Map<String, Value>) -> Option<ProviderUsage> {
    let u = meta.get("usage").filter(|u| u.is_object())?;
    let n = |keys: &[&str]| keys.iter().find_map(|k| u[*k].as_u64());
    Some(ProviderUsage {
        input_tokens: n(&["inputTokens", "promptTokens", "input_tokens"]),
        output_tokens: n(&["outputTokens", "completionTokens", "output_tokens"]),
        cached_input_tokens: n(&["cachedReadTokens", "cachedTokens"]),
        ..ProviderUsage::default()
    })
}
