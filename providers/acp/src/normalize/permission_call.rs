//! The tool call a `session/request_permission` asks about, found among the calls of the turn.
//!
//! Most agents name a call they announced (or announce it in the request itself, as Qwen Code
//! does): the request's fields are merged into it. Two ask under another id:
//! - Deep Agents Code asks with a fresh id, no kind and the same input as the call it announced
//!   ([`Normalizer::announced_as`]): merged into that call;
//! - OpenHands asks about its own pseudo call, `confirmation-<session>` titled "Confirm Agent
//!   Actions", kind `other`, no input ([`Normalizer::confirmed_call`]), about the calls it has
//!   announced and not run yet: the permission is about the newest of them, whose own title,
//!   kind and input stay as announced (nothing of the pseudo call is merged). OpenHands keeps
//!   an unconfirmed action in its saved conversation: a restarted (or reopened) agent asks
//!   about it again in the next turn, and the call its replay left waiting is the one asked
//!   about when it is the only one.

use super::{item, tool_item_id, tools, Normalizer};
use crate::wire::acp::{ToolCallStatus, ToolCallUpdate, ToolKind};
use crate::wire::tool_call::{self, ToolSnapshot};
use agent_bridge_core::AgentEvent;
use agent_bridge_protocol::{ItemBody, ToolStatus};

impl Normalizer {
    /// The tool call of a permission request: merged into the timeline (some agents, Qwen,
    /// announce a call only in its permission request), its snapshot returned with the item.
    pub fn permission_tool(&mut self, fields: &ToolCallUpdate) -> (ToolSnapshot, AgentEvent) {
        self.text = None;
        let (id, merged) = match self.announced_as(fields) {
            Some(known) => (known, true),
            None => match self.confirmed_call(fields) {
                Some(known) => (known, false),
                None => (fields.tool_call_id.0.to_string(), true),
            },
        };
        let snapshot = self
            .tools
            .entry(id.clone())
            .or_insert_with(|| tool_call::empty(&id));
        if merged {
            tool_call::merge(snapshot, fields.clone());
        }
        let snapshot = snapshot.clone();
        if self.turn.is_some() && !self.turn_tools.contains(&id) {
            self.turn_tools.push(id.clone());
        }
        let mut call = tools::tool_call(&snapshot);
        // Waiting for the user: running, whatever the request's own status says.
        call.status = ToolStatus::Running;
        (snapshot, item(tool_item_id(&id), ItemBody::ToolCall(call)))
    }

    /// The calls of this turn not finished yet, newest first.
    fn waiting_calls(&self) -> impl Iterator<Item = (&String, &ToolSnapshot)> {
        self.turn_tools.iter().rev().filter_map(|known| {
            let t = self.tools.get(known)?;
            waits(t).then_some((known, t))
        })
    }

    /// The call a permission asks about under another id than the one it was announced with
    /// (Deep Agents Code: `call_…` announced, a hex id asked): an unknown id without a kind whose
    /// input is that of a call of this turn still waiting, the newest such.
    fn announced_as(&self, fields: &ToolCallUpdate) -> Option<String> {
        let id = fields.tool_call_id.0.as_ref();
        let input = fields.fields.raw_input.as_ref()?;
        if self.tools.contains_key(id) || fields.fields.kind.is_some() {
            return None;
        }
        self.waiting_calls()
            .find(|(_, t)| t.fields.raw_input.as_ref() == Some(input))
            .map(|(known, _)| known.clone())
    }

    /// The call a permission about a pseudo call confirms (OpenHands: an unknown id, kind
    /// `other` or none, no input, no content, no locations): the newest call of this turn
    /// still waiting that has an input of its own.
    fn confirmed_call(&mut self, fields: &ToolCallUpdate) -> Option<String> {
        let id = fields.tool_call_id.0.as_ref();
        let f = &fields.fields;
        let bare = f.raw_input.is_none()
            && f.content.as_ref().is_none_or(Vec::is_empty)
            && f.locations.as_ref().is_none_or(Vec::is_empty)
            && matches!(f.kind, None | Some(ToolKind::Other));
        if self.tools.contains_key(id) || !bare {
            return None;
        }
        let of_this_turn = self
            .waiting_calls()
            .find(|(_, t)| t.fields.raw_input.is_some())
            .map(|(known, _)| known.clone());
        if of_this_turn.is_some() || self.left_waiting.len() != 1 {
            return of_this_turn;
        }
        let replayed = self.left_waiting.pop()?;
        let id = tool_call::id(&replayed);
        self.tools.insert(id.clone(), replayed);
        Some(id)
    }
}

/// A call not finished, with an input of its own (one a confirmation can be about).
pub(super) fn waits_with_input(t: &ToolSnapshot) -> bool {
    waits(t) && t.fields.raw_input.is_some()
}

fn waits(t: &ToolSnapshot) -> bool {
    matches!(
        t.fields.status,
        None | Some(ToolCallStatus::Pending | ToolCallStatus::InProgress)
    )
}
