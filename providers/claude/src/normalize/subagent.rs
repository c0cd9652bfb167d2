//! Sub-agents (`Task` / `Agent`): a child session per call, and the parent row's log.

use super::{tools, NormEvent, Normalizer, SubAgent};
use agent_bridge_protocol::{ItemBody, SubAgentAction, TimelineItem, ToolCallDetail};
use serde_json::Value;

impl Normalizer {
    pub(super) fn ensure_child(
        &mut self,
        parent_tool_use_id: &str,
        out: &mut Vec<NormEvent>,
    ) -> String {
        if let Some(sub) = self.subagents.get(parent_tool_use_id) {
            return sub.child_session_id.clone();
        }
        let child_session_id = self.child_id(parent_tool_use_id);
        let (title, description) = match self.tools.get(parent_tool_use_id) {
            Some(t) => (
                t.input
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                t.input
                    .get("prompt")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            ),
            None => (None, None),
        };
        self.subagents.insert(
            parent_tool_use_id.to_string(),
            SubAgent {
                child_session_id: child_session_id.clone(),
                actions: Vec::new(),
                log: Vec::new(),
            },
        );
        out.push(NormEvent::ChildOpened {
            child_session_id: child_session_id.clone(),
            title,
            description,
        });
        child_session_id
    }

    /// A sub-agent started a tool: record it on the parent's `sub_agent` row.
    pub(super) fn note_subagent_action(
        &mut self,
        parent: &str,
        tool_name: &str,
        input: &Value,
        out: &mut Vec<NormEvent>,
    ) {
        let Some(sub) = self.subagents.get_mut(parent) else {
            return;
        };
        let summary = tools::summary(tool_name, input);
        let index = sub.actions.len() as u32 + 1;
        sub.actions.push(SubAgentAction {
            index,
            tool_name: tool_name.to_string(),
            summary: (!summary.is_empty()).then(|| summary.clone()),
        });
        sub.log.push(if summary.is_empty() {
            format!("[{tool_name}]")
        } else {
            format!("[{tool_name}] {summary}")
        });
        self.refresh_subagent_row(parent, out);
    }

    pub(super) fn refresh_subagent_row(&mut self, tool_use_id: &str, out: &mut Vec<NormEvent>) {
        let Some(sub) = self.subagents.get(tool_use_id).cloned() else {
            return;
        };
        let Some(state) = self.tools.get_mut(tool_use_id) else {
            return;
        };
        if let ToolCallDetail::SubAgent {
            child_session_id,
            log,
            actions,
            ..
        } = &mut state.call.detail
        {
            *child_session_id = Some(sub.child_session_id.clone());
            *log = sub.log.join("\n");
            *actions = (!sub.actions.is_empty()).then(|| sub.actions.clone());
        }
        let item = TimelineItem::new(tool_use_id, ItemBody::ToolCall(state.call.clone()));
        let parent = state.parent.clone();
        self.emit(parent.as_deref(), item, out);
    }

    /// The sub-agent's last answer is not streamed: the CLI hands it back as the `Task`
    /// result (`content` of the structured result). Publish it as the child's final row.
    pub(super) fn subagent_final_text(
        &mut self,
        tool_use_id: &str,
        structured: Option<&Value>,
        out: &mut Vec<NormEvent>,
    ) {
        let text = structured
            .and_then(|v| v.get("content"))
            .map(tools::result_text)
            .unwrap_or_default();
        if text.trim().is_empty() {
            return;
        }
        let child_session_id = self.ensure_child(tool_use_id, out);
        let item = TimelineItem::new(
            format!("{tool_use_id}:final"),
            ItemBody::AssistantMessage {
                text,
                message_id: None,
            },
        );
        out.push(NormEvent::ChildItem {
            child_session_id,
            item,
        });
    }
}
