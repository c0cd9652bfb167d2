//! The pure normalizer: Claude Code stdout (or transcript) messages -> complete timeline
//! snapshots and session facts. No IO; the session feeds it line by line.
//!
//! Item ids are stable: text and thinking blocks are `<message id>:<block ordinal>` (the CLI
//! streams a block through `stream_event`s, then repeats it whole in an `assistant` message
//! sharing the `message.id`; both land on the same row), tool calls use the `tool_use` id, the
//! todo list is one row per (sub-)session, compactions are `compaction:<n>`.

mod blocks;
mod prune;
pub mod result;
mod subagent;
mod system;
pub mod tools;

#[cfg(test)]
mod prune_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod tests_support;

use crate::wire::{CliMessage, ContentBlock, UserMessage};
use agent_bridge_core::TurnOutcome;
use agent_bridge_protocol::{
    ItemBody, ProviderNotice, ProviderUsage, SubAgentAction, TimelineItem, ToolCall, ToolCallDetail,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Whether messages come from a live process or a transcript being replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Live,
    Replay,
}

/// What the normalizer learned from one message.
#[derive(Debug, Clone, PartialEq)]
pub enum NormEvent {
    /// A row of the main session (complete snapshot).
    Item(TimelineItem),
    /// A sub-agent's child session appeared.
    ChildOpened {
        child_session_id: String,
        title: Option<String>,
        description: Option<String>,
    },
    /// A row of a child session.
    ChildItem {
        child_session_id: String,
        item: TimelineItem,
    },
    /// `system/init`: the CLI's actual session id, model and permission mode.
    Init(InitInfo),
    /// `system/commands_changed`: the CLI's whole slash-command list, replacing the last one.
    CommandsChanged(Vec<agent_bridge_protocol::ProviderCommand>),
    /// The permission mode changed (`system/status`).
    ModeChanged(String),
    /// The CLI echoed a user line the bridge wrote (`--replay-user-messages`).
    Echo { uuid: String },
    /// Live context-window usage during a turn.
    Usage(ProviderUsage),
    /// A session notice ("Retrying the model connection…" while the CLI retries the API).
    Notice(ProviderNotice),
    /// A `result` line: one run of the CLI ended.
    RunEnded {
        outcome: TurnOutcome,
        usage: ProviderUsage,
        /// The run's structured answer (`--json-schema`), also emitted as its last
        /// `assistant_message` just before.
        structured: Option<Value>,
    },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct InitInfo {
    pub session_id: String,
    pub model: Option<String>,
    pub permission_mode: Option<String>,
    pub slash_commands: Vec<String>,
    pub version: Option<String>,
}

#[derive(Debug, Clone)]
struct ToolState {
    call: ToolCall,
    input: Value,
    partial_json: String,
    parent: Option<String>,
    done: bool,
}

#[derive(Debug, Clone)]
struct SubAgent {
    child_session_id: String,
    actions: Vec<SubAgentAction>,
    log: Vec<String>,
}

/// The normalizer of one session.
#[derive(Debug)]
pub struct Normalizer {
    session_id: String,
    mode: Mode,
    messages: blocks::Messages,
    tools: HashMap<String, ToolState>,
    subagents: HashMap<String, SubAgent>,
    compactions: u32,
    compaction_open: Option<String>,
    swallow_summary: bool,
    interrupted: bool,
    /// Between the start of a CLI run (init, a request, output) and its `result`.
    run_active: bool,
    /// Background tasks still running: task id -> the tool call that started it.
    background: BTreeMap<String, Option<String>>,
    /// Prompt tokens of the last main-thread request, and its output so far.
    context_prompt: u64,
    context_output: u64,
    context_max: Option<u64>,
    /// "Retrying the model connection…" while the CLI retries an API request.
    retry: agent_bridge_core::retry_notice::RetryNotice,
}

impl Normalizer {
    /// `session_id` is the Paseo session id; child session ids derive from it.
    pub fn new(session_id: impl Into<String>, mode: Mode) -> Self {
        Self {
            session_id: session_id.into(),
            mode,
            messages: blocks::Messages::default(),
            tools: HashMap::new(),
            subagents: HashMap::new(),
            compactions: 0,
            compaction_open: None,
            swallow_summary: false,
            interrupted: false,
            run_active: false,
            background: BTreeMap::new(),
            context_prompt: 0,
            context_output: 0,
            context_max: None,
            retry: Default::default(),
        }
    }

    /// The child session id of a sub-agent started by tool call `tool_use_id`.
    pub fn child_id(&self, tool_use_id: &str) -> String {
        format!("{}/agent/{tool_use_id}", self.session_id)
    }

    /// The bridge asked the CLI to stop the current run: its errors are cancellations.
    pub fn set_interrupted(&mut self) {
        self.interrupted = true;
    }

    /// The context window of the selected model, when known.
    pub fn set_context_max(&mut self, max: Option<u64>) {
        if max.is_some() {
            self.context_max = max;
        }
    }

    /// Background tasks (run_in_background shells, sub-agents) still running.
    pub fn background_tasks(&self) -> usize {
        self.background.len()
    }

    /// The CLI is working on a run (a turn, or an autonomous run after a background task).
    pub fn run_active(&self) -> bool {
        self.run_active
    }

    /// Tool calls that started and have no result yet.
    pub fn running_tools(&self) -> usize {
        self.tools.values().filter(|t| !t.done).count()
    }

    pub fn handle(&mut self, msg: &CliMessage) -> Vec<NormEvent> {
        let mut out = Vec::new();
        // The API answered (or the run ended): a retry notice is withdrawn.
        if matches!(
            msg,
            CliMessage::Assistant(_) | CliMessage::StreamEvent(_) | CliMessage::Result(_)
        ) {
            out.extend(self.retry.settle().map(NormEvent::Notice));
        }
        match msg {
            CliMessage::Result(_) => self.run_active = false,
            CliMessage::Assistant(_) | CliMessage::StreamEvent(_) => self.run_active = true,
            CliMessage::System(sys)
                if sys.subtype == "init" || sys.status.as_deref() == Some("requesting") =>
            {
                self.run_active = true
            }
            _ => {}
        }
        match msg {
            CliMessage::System(sys) => self.system(sys, &mut out),
            CliMessage::StreamEvent(ev) => {
                self.stream_event(&ev.event, ev.parent_tool_use_id.as_deref(), &mut out)
            }
            CliMessage::Assistant(a) => {
                let parent = a.parent_tool_use_id.as_deref();
                let id = a
                    .message
                    .id
                    .clone()
                    .or_else(|| a.uuid.clone())
                    .unwrap_or_default();
                for block in a.message.content.blocks() {
                    self.assistant_block(&id, &block, parent, &mut out);
                }
            }
            CliMessage::User(u) => self.user(u, &mut out),
            CliMessage::Result(r) => {
                let (outcome, usage) =
                    result::outcome(r, self.interrupted, self.context_used(), self.context_max);
                if let Some(max) = r.context_window() {
                    self.context_max = Some(max);
                }
                if self.interrupted || matches!(outcome, TurnOutcome::Canceled) {
                    self.cancel_running(&mut out);
                }
                self.interrupted = false;
                self.prune_settled();
                let structured = r.structured_output.clone().filter(|v| !v.is_null());
                if let Some(answer) = &structured {
                    out.push(NormEvent::Item(result::structured_item(r, answer)));
                }
                out.push(NormEvent::RunEnded {
                    outcome,
                    usage,
                    structured,
                });
            }
            CliMessage::ControlRequest(_)
            | CliMessage::ControlResponse(_)
            | CliMessage::ControlCancelRequest { .. }
            | CliMessage::Other => {}
        }
        out
    }

    /// Settles what a replayed transcript left running (its process is gone) as canceled.
    pub fn finish_replay(&mut self) -> Vec<NormEvent> {
        let mut out = Vec::new();
        self.cancel_running(&mut out);
        out
    }

    fn context_used(&self) -> Option<u64> {
        let used = self.context_prompt + self.context_output;
        (used > 0).then_some(used)
    }

    fn user(&mut self, u: &UserMessage, out: &mut Vec<NormEvent>) {
        if u.is_replay == Some(true) {
            if let Some(uuid) = &u.uuid {
                out.push(NormEvent::Echo { uuid: uuid.clone() });
            }
            return;
        }
        let blocks = u.message.content.blocks();
        let mut had_result = false;
        for block in &blocks {
            if let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } = block
            {
                had_result = true;
                self.tool_result(
                    tool_use_id,
                    content,
                    u.tool_use_result.as_ref(),
                    is_error.unwrap_or(false),
                    out,
                );
            } else if let ContentBlock::WebSearchToolResult {
                tool_use_id,
                content,
            } = block
            {
                had_result = true;
                self.tool_result(tool_use_id, content, None, false, out);
            }
        }
        if had_result {
            return;
        }
        if u.is_meta == Some(true)
            || u.is_synthetic == Some(true)
            || u.is_compact_summary == Some(true)
        {
            return;
        }
        if std::mem::take(&mut self.swallow_summary) {
            return;
        }
        let text = u.message.content.text();
        if text.trim().is_empty() || is_noise(&text) {
            return;
        }
        let uuid = u.uuid.clone().unwrap_or_default();
        match u.parent_tool_use_id.as_deref() {
            Some(parent) => {
                let child = self.ensure_child(parent, out);
                let item = TimelineItem::new(
                    format!("user:{uuid}"),
                    ItemBody::UserMessage {
                        text,
                        message_id: Some(uuid),
                        client_message_id: None,
                    },
                );
                out.push(NormEvent::ChildItem {
                    child_session_id: child,
                    item,
                });
            }
            // Live prompts are published by the core; only a transcript replays them. Their
            // uuid is where a rewind goes back to (see `crate::rewind`).
            None if self.mode == Mode::Replay => {
                let mut item = TimelineItem::new(
                    format!("user:{uuid}"),
                    ItemBody::UserMessage {
                        text,
                        message_id: Some(uuid.clone()),
                        client_message_id: None,
                    },
                );
                item.revert_token = (!uuid.is_empty()).then_some(Value::String(uuid));
                out.push(NormEvent::Item(item));
            }
            None => {}
        }
    }

    /// Routes an item to the main session or to the sub-agent child it belongs to.
    fn emit(&mut self, parent: Option<&str>, item: TimelineItem, out: &mut Vec<NormEvent>) {
        match parent {
            None => out.push(NormEvent::Item(item)),
            Some(p) => {
                let child = self.ensure_child(p, out);
                out.push(NormEvent::ChildItem {
                    child_session_id: child,
                    item,
                });
            }
        }
    }

    fn tool_result(
        &mut self,
        id: &str,
        content: &Value,
        structured: Option<&Value>,
        is_error: bool,
        out: &mut Vec<NormEvent>,
    ) {
        let interrupted = self.interrupted;
        let Some(state) = self.tools.get_mut(id) else {
            return;
        };
        if state.done {
            return;
        }
        state.done = true;
        let name = state.call.name.clone();
        if tools::tool_kind(&name) == tools::ToolKind::Todo {
            return;
        }
        let detail = std::mem::replace(
            &mut state.call.detail,
            ToolCallDetail::Plan {
                text: String::new(),
            },
        );
        state.call.detail = tools::with_result(detail, content, structured, is_error);
        if is_error && interrupted {
            state.call.cancel();
        } else if is_error {
            state.call.fail(Value::String(tools::result_text(content)));
        } else {
            state.call.complete();
        }
        if tools::tool_kind(&name) == tools::ToolKind::SubAgent {
            self.refresh_subagent_row(id, out);
            if self.mode == Mode::Live {
                self.subagent_final_text(id, structured, out);
            }
            return;
        }
        let item = TimelineItem::new(id, ItemBody::ToolCall(state.call.clone()));
        let parent = state.parent.clone();
        self.emit(parent.as_deref(), item, out);
    }

    /// Marks every tool still running as canceled (interrupt, end of a replay).
    fn cancel_running(&mut self, out: &mut Vec<NormEvent>) {
        let mut ids: Vec<String> = self
            .tools
            .iter()
            .filter(|(_, t)| !t.done)
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        for id in ids {
            let Some(state) = self.tools.get_mut(&id) else {
                continue;
            };
            state.done = true;
            if tools::tool_kind(&state.call.name) == tools::ToolKind::Todo {
                continue;
            }
            state.call.cancel();
            let item = TimelineItem::new(id.as_str(), ItemBody::ToolCall(state.call.clone()));
            let parent = state.parent.clone();
            self.emit(parent.as_deref(), item, out);
        }
    }
}

/// User-role text the CLI injects that is not a prompt.
pub fn is_noise(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("[Request interrupted by user")
        || t.starts_with("<local-command-stdout>")
        || t.starts_with("<local-command-stderr>")
        || t.starts_with("<command-name>")
        || t.starts_with("<command-message>")
        || t.starts_with("<task-notification>")
        || t.starts_with("<system-reminder>")
        || t == "No response requested."
}
