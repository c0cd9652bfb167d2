//! Assembling assistant text, thinking and tool-use blocks from `stream_event` deltas and the
//! per-block `assistant` messages that repeat them whole under the same `message.id`.

use super::{tools, NormEvent, Normalizer, ToolState};
use crate::wire::{ContentBlock, Delta, StreamEvent};
use agent_bridge_protocol::{ItemBody, ProviderUsage, TimelineItem, ToolCall};
use serde_json::Value;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    Tool,
}

#[derive(Debug, Clone)]
struct Block {
    kind: Kind,
    text: String,
    stream_index: Option<u64>,
    /// Already covered by a whole `assistant` block.
    matched: bool,
    tool_id: Option<String>,
}

#[derive(Debug, Default)]
pub(super) struct Messages {
    blocks: HashMap<String, Vec<Block>>,
    /// The message being streamed, per context (`None` = main thread, else the sub-agent's
    /// parent tool_use id).
    current: HashMap<Option<String>, String>,
}

impl Messages {
    /// Blocks and open streams held.
    pub(super) fn retained(&self) -> usize {
        self.blocks.values().map(Vec::len).sum::<usize>() + self.current.len()
    }

    /// Keeps only the messages being streamed in the contexts `keep` accepts; every other
    /// message is whole already (a later line names a new message id).
    pub(super) fn retain_streaming(&mut self, keep: impl Fn(&Option<String>) -> bool) {
        self.current.retain(|ctx, _| keep(ctx));
        let live: std::collections::HashSet<&String> = self.current.values().collect();
        self.blocks.retain(|id, _| live.contains(id));
    }
}

fn text_item(message_id: &str, ordinal: usize, kind: Kind, text: &str) -> Option<TimelineItem> {
    if text.is_empty() {
        return None;
    }
    let id = format!("{message_id}:{ordinal}");
    let body = match kind {
        Kind::Text => ItemBody::AssistantMessage {
            text: text.to_string(),
            message_id: Some(message_id.to_string()),
        },
        Kind::Thinking => ItemBody::Reasoning {
            text: text.to_string(),
        },
        Kind::Tool => return None,
    };
    Some(TimelineItem::new(id, body))
}

impl Normalizer {
    pub(super) fn stream_event(
        &mut self,
        ev: &StreamEvent,
        parent: Option<&str>,
        out: &mut Vec<NormEvent>,
    ) {
        let ctx = parent.map(str::to_string);
        match ev {
            StreamEvent::MessageStart { message } => {
                let Some(id) = message.id.clone() else { return };
                self.messages.current.insert(ctx, id.clone());
                self.messages.blocks.entry(id).or_default();
                if parent.is_none() {
                    if let Some(usage) = &message.usage {
                        self.context_prompt = usage.prompt_tokens();
                        self.context_output = usage.output_tokens.unwrap_or(0);
                        self.push_context_usage(out);
                    }
                }
            }
            StreamEvent::ContentBlockStart {
                index,
                content_block,
            } => {
                let Some(mid) = self.messages.current.get(&ctx).cloned() else {
                    return;
                };
                match content_block {
                    ContentBlock::Text { text } | ContentBlock::Thinking { thinking: text } => {
                        let kind = if matches!(content_block, ContentBlock::Text { .. }) {
                            Kind::Text
                        } else {
                            Kind::Thinking
                        };
                        let list = self.messages.blocks.entry(mid.clone()).or_default();
                        list.push(Block {
                            kind,
                            text: text.clone(),
                            stream_index: Some(*index),
                            matched: false,
                            tool_id: None,
                        });
                        let ordinal = list.len() - 1;
                        if let Some(item) = text_item(&mid, ordinal, kind, text) {
                            self.emit(parent, item, out);
                        }
                    }
                    ContentBlock::ToolUse { id, name, input }
                    | ContentBlock::ServerToolUse { id, name, input }
                    | ContentBlock::McpToolUse {
                        id, name, input, ..
                    } => {
                        let list = self.messages.blocks.entry(mid).or_default();
                        list.push(Block {
                            kind: Kind::Tool,
                            text: String::new(),
                            stream_index: Some(*index),
                            matched: false,
                            tool_id: Some(id.clone()),
                        });
                        let input = if input.as_object().is_some_and(|o| o.is_empty()) {
                            Value::Null
                        } else {
                            input.clone()
                        };
                        self.tool_use(id, name, &input, parent, out);
                    }
                    _ => {}
                }
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                let Some(mid) = self.messages.current.get(&ctx).cloned() else {
                    return;
                };
                let Some(list) = self.messages.blocks.get_mut(&mid) else {
                    return;
                };
                let Some(ordinal) = list.iter().position(|b| b.stream_index == Some(*index)) else {
                    return;
                };
                let block = &mut list[ordinal];
                match delta {
                    Delta::TextDelta { text } | Delta::ThinkingDelta { thinking: text } => {
                        if block.matched || block.kind == Kind::Tool {
                            return;
                        }
                        block.text.push_str(text);
                        if let Some(item) = text_item(&mid, ordinal, block.kind, &block.text) {
                            self.emit(parent, item, out);
                        }
                    }
                    Delta::InputJsonDelta { partial_json } => {
                        let Some(tool_id) = block.tool_id.clone() else {
                            return;
                        };
                        self.tool_input_delta(&tool_id, partial_json, out);
                    }
                    Delta::Other => {}
                }
            }
            StreamEvent::MessageDelta { usage } => {
                if parent.is_none() {
                    if let Some(out_tokens) = usage.as_ref().and_then(|u| u.output_tokens) {
                        self.context_output = out_tokens;
                        self.push_context_usage(out);
                    }
                }
            }
            StreamEvent::ContentBlockStop { .. }
            | StreamEvent::MessageStop
            | StreamEvent::Other => {}
        }
    }

    fn push_context_usage(&self, out: &mut Vec<NormEvent>) {
        if self.mode == super::Mode::Replay {
            return;
        }
        out.push(NormEvent::Usage(ProviderUsage {
            context_window_used_tokens: self.context_used(),
            context_window_max_tokens: self.context_max,
            ..ProviderUsage::default()
        }));
    }

    /// One block of a whole `assistant` message.
    pub(super) fn assistant_block(
        &mut self,
        message_id: &str,
        block: &ContentBlock,
        parent: Option<&str>,
        out: &mut Vec<NormEvent>,
    ) {
        match block {
            ContentBlock::Text { text } | ContentBlock::Thinking { thinking: text } => {
                let kind = if matches!(block, ContentBlock::Text { .. }) {
                    Kind::Text
                } else {
                    Kind::Thinking
                };
                let list = self
                    .messages
                    .blocks
                    .entry(message_id.to_string())
                    .or_default();
                let ordinal = match list.iter().position(|b| b.kind == kind && !b.matched) {
                    Some(i) => i,
                    None => {
                        list.push(Block {
                            kind,
                            text: String::new(),
                            stream_index: None,
                            matched: false,
                            tool_id: None,
                        });
                        list.len() - 1
                    }
                };
                let b = &mut list[ordinal];
                b.matched = true;
                if text.is_empty() || *text == b.text {
                    return;
                }
                b.text = text.clone();
                if let Some(item) = text_item(message_id, ordinal, kind, text) {
                    self.emit(parent, item, out);
                }
            }
            ContentBlock::ToolUse { id, name, input }
            | ContentBlock::ServerToolUse { id, name, input }
            | ContentBlock::McpToolUse {
                id, name, input, ..
            } => {
                let list = self
                    .messages
                    .blocks
                    .entry(message_id.to_string())
                    .or_default();
                if let Some(b) = list.iter_mut().find(|b| b.tool_id.as_deref() == Some(id)) {
                    b.matched = true;
                } else {
                    list.push(Block {
                        kind: Kind::Tool,
                        text: String::new(),
                        stream_index: None,
                        matched: true,
                        tool_id: Some(id.clone()),
                    });
                }
                self.tool_use(id, name, input, parent, out);
            }
            _ => {}
        }
    }

    /// A tool call started or its input grew.
    fn tool_use(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        parent: Option<&str>,
        out: &mut Vec<NormEvent>,
    ) {
        let known = self.tools.contains_key(id);
        if known {
            let state = self.tools.get(id).map(|t| (t.input == *input, t.done));
            if matches!(state, Some((true, _)) | Some((_, true))) || input.is_null() {
                return;
            }
        } else {
            let mut call = ToolCall::running(id, name, tools::detail_for(name, input));
            call.metadata = tools::metadata_for(name);
            self.tools.insert(
                id.to_string(),
                ToolState {
                    call,
                    input: Value::Null,
                    partial_json: String::new(),
                    parent: parent.map(str::to_string),
                    done: false,
                },
            );
            if let Some(p) = parent {
                self.note_subagent_action(p, name, input, out);
            }
        }
        self.set_tool_input(id, input.clone(), out);
    }

    fn tool_input_delta(&mut self, id: &str, partial: &str, out: &mut Vec<NormEvent>) {
        let Some(state) = self.tools.get_mut(id) else {
            return;
        };
        state.partial_json.push_str(partial);
        if let Ok(v) = serde_json::from_str::<Value>(&state.partial_json) {
            if v != state.input {
                self.set_tool_input(id, v, out);
            }
        }
    }

    fn set_tool_input(&mut self, id: &str, input: Value, out: &mut Vec<NormEvent>) {
        let Some(state) = self.tools.get_mut(id) else {
            return;
        };
        if !input.is_null() {
            state.input = input;
        }
        let name = state.call.name.clone();
        let parent = state.parent.clone();
        match tools::tool_kind(&name) {
            tools::ToolKind::Todo => {
                if state.input.is_null() {
                    return;
                }
                let items = tools::todo_entries(&state.input);
                let todo_id = match &parent {
                    None => "todo".to_string(),
                    Some(p) => format!("todo:{p}"),
                };
                self.emit(
                    parent.as_deref(),
                    TimelineItem::new(todo_id, ItemBody::Todo { items }),
                    out,
                );
            }
            tools::ToolKind::SubAgent => {
                state.call.detail = tools::detail_for(&name, &state.input);
                if !state.input.is_null() {
                    self.ensure_child(id, out);
                }
                self.refresh_subagent_row(id, out);
            }
            tools::ToolKind::Call => {
                state.call.detail = tools::detail_for(&name, &state.input);
                let item = TimelineItem::new(id, ItemBody::ToolCall(state.call.clone()));
                self.emit(parent.as_deref(), item, out);
            }
        }
    }
}
