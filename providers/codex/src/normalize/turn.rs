//! Turn-level notifications: start/end, plan and diff updates, usage, errors, warnings and the
//! streamed pieces of tool items (command output, patch updates, plan text).

use super::{Normalizer, Route};
use crate::wire::notify::{Notification, TurnNotification};
use crate::wire::thread::{ThreadTokenUsage, TurnStatus};
use agent_bridge_core::{AgentEvent, TurnOutcome};
use agent_bridge_protocol::{
    ItemBody, JsonMap, ProviderError, ProviderUsage, TimelineItem, TodoEntry, TodoStatus, ToolCall,
    ToolCallDetail,
};
use serde_json::{json, Value};

pub fn usage(u: &ThreadTokenUsage) -> ProviderUsage {
    ProviderUsage {
        input_tokens: Some(u.last.input_tokens),
        cached_input_tokens: Some(u.last.cached_input_tokens),
        output_tokens: Some(u.last.output_tokens),
        total_cost_usd: None,
        context_window_max_tokens: u.model_context_window,
        context_window_used_tokens: Some(u.last.total_tokens),
    }
}

/// The first file a unified diff touches (`+++ b/path`, else `--- a/path`).
pub fn first_diff_path(diff: &str) -> Option<String> {
    let pick = |prefix: &str| {
        diff.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map(|p| p.trim())
            .map(|p| p.strip_prefix("b/").or(p.strip_prefix("a/")).unwrap_or(p))
            .filter(|p| *p != "/dev/null" && !p.is_empty())
            .map(str::to_string)
    };
    pick("+++ ").or_else(|| pick("--- "))
}

fn todo_status(s: &str) -> TodoStatus {
    match s {
        "completed" => TodoStatus::Completed,
        "inProgress" | "in_progress" => TodoStatus::InProgress,
        _ => TodoStatus::Pending,
    }
}

impl Normalizer {
    pub(super) fn turn_started(&mut self, t: TurnNotification, _out: &mut [AgentEvent]) {
        if t.thread_id != self.thread_id {
            return;
        }
        if let Some(binding) = self.turn.as_mut() {
            if binding.native.is_none() {
                binding.native = Some(t.turn.id);
            }
        }
    }

    pub(super) fn turn_completed(&mut self, t: TurnNotification, out: &mut Vec<AgentEvent>) {
        if t.thread_id != self.thread_id {
            return;
        }
        let Some(core) = self.ours(Some(&t.turn.id)) else {
            tracing::debug!(turn = %t.turn.id, "end of a turn that is not ours");
            return;
        };
        let outcome = match t.turn.status {
            TurnStatus::Completed => TurnOutcome::Completed,
            TurnStatus::Interrupted => TurnOutcome::Canceled,
            TurnStatus::Failed | TurnStatus::InProgress | TurnStatus::Unknown => {
                let error = t.turn.error.or_else(|| self.last_error.take());
                TurnOutcome::Failed(match error {
                    Some(e) => {
                        let code = e.code();
                        let mut pe = ProviderError::new(if e.message.is_empty() {
                            "the Codex turn failed".to_string()
                        } else {
                            e.message.clone()
                        })
                        .with_diagnostic(e.additional_details.clone().unwrap_or_default());
                        pe.code = code.map(|c| agent_bridge_protocol::ErrorCode::parse(&c));
                        pe
                    }
                    None => ProviderError::new("the Codex turn failed"),
                })
            }
        };
        self.turn = None;
        self.last_error = None;
        // A completed turn may leave work running (a background terminal, a sub-agent); an
        // interrupted or failed one leaves nothing Codex will finish.
        if outcome == TurnOutcome::Completed {
            self.tools
                .retain(|_, t| t.status == agent_bridge_protocol::ToolStatus::Running);
        } else {
            self.tools.clear();
        }
        out.push(AgentEvent::TurnEnded {
            turn_id: core,
            outcome,
        });
    }

    pub(super) fn turn_level(&mut self, n: Notification, out: &mut Vec<AgentEvent>) {
        match n {
            Notification::CommandOutputDelta(d) => {
                let route = self.route(&d.thread_id, d.turn_id.as_deref());
                if route != Route::Drop {
                    self.output_delta(&route, &d.item_id, &d.delta, out);
                }
            }
            Notification::PatchUpdated(p) => {
                let route = self.route(&p.thread_id, p.turn_id.as_deref());
                if let (false, Some(call)) = (route == Route::Drop, self.tools.get_mut(&p.item_id))
                {
                    call.detail = super::items::file_change_detail(&p.changes);
                    let item = TimelineItem::new(&p.item_id, ItemBody::ToolCall(call.clone()));
                    Self::emit(&route, item, out);
                }
            }
            Notification::PlanDelta(d) => {
                let route = self.route(&d.thread_id, d.turn_id.as_deref());
                if route == Route::Drop {
                    return;
                }
                let call = self.tools.entry(d.item_id.clone()).or_insert_with(|| {
                    ToolCall::running(
                        &d.item_id,
                        "plan",
                        ToolCallDetail::Plan {
                            text: String::new(),
                        },
                    )
                });
                if let ToolCallDetail::Plan { text } = &mut call.detail {
                    text.push_str(&d.delta);
                }
                let item = TimelineItem::new(&d.item_id, ItemBody::ToolCall(call.clone()));
                Self::emit(&route, item, out);
            }
            Notification::PlanUpdated(p) => {
                let route = self.route(&p.thread_id, Some(&p.turn_id));
                let items = p
                    .plan
                    .iter()
                    .map(|s| TodoEntry {
                        text: s.step.clone(),
                        completed: s.status == "completed",
                        id: None,
                        status: Some(todo_status(&s.status)),
                        active_form: None,
                    })
                    .collect();
                let item =
                    TimelineItem::new(format!("plan:{}", p.turn_id), ItemBody::Todo { items });
                Self::emit(&route, item, out);
            }
            Notification::DiffUpdated(d) => {
                let route = self.route(&d.thread_id, Some(&d.turn_id));
                if d.diff.trim().is_empty() {
                    return;
                }
                let mut call = ToolCall::running(
                    format!("diff:{}", d.turn_id),
                    "turn_diff",
                    ToolCallDetail::Edit {
                        file_path: first_diff_path(&d.diff).unwrap_or_default(),
                        old_string: None,
                        new_string: None,
                        unified_diff: Some(d.diff.clone()),
                    },
                );
                call.complete();
                let mut meta = JsonMap::new();
                meta.insert("kind".into(), json!("turn_diff"));
                meta.insert("turnId".into(), Value::String(d.turn_id.clone()));
                call.metadata = Some(meta);
                let item =
                    TimelineItem::new(format!("diff:{}", d.turn_id), ItemBody::ToolCall(call));
                Self::emit(&route, item, out);
            }
            Notification::TokenUsage(u) => {
                if u.thread_id != self.thread_id {
                    return;
                }
                out.push(AgentEvent::Usage {
                    turn_id: self.ours(u.turn_id.as_deref()),
                    usage: usage(&u.token_usage),
                });
            }
            Notification::Error(e) => {
                if e.will_retry {
                    tracing::info!("codex will retry after: {}", e.error.message);
                    if e.thread_id.as_deref().is_none_or(|t| t == self.thread_id) {
                        let notice = self
                            .retry
                            .retrying(&e.error.message, e.error.additional_details.as_deref());
                        out.push(AgentEvent::Notice(notice));
                    }
                } else if e.thread_id.as_deref().is_none_or(|t| t == self.thread_id) {
                    self.last_error = Some(e.error);
                }
            }
            Notification::Warning(w) => {
                if w.thread_id.as_deref().is_none_or(|t| t == self.thread_id) {
                    self.warning(w.message, out);
                }
            }
            Notification::RequestResolved(_) => {}
            Notification::Other(method) => {
                tracing::debug!(method, "codex notification ignored");
            }
            Notification::TurnStarted(_)
            | Notification::TurnCompleted(_)
            | Notification::ItemStarted(_)
            | Notification::ItemCompleted(_)
            | Notification::AgentMessageDelta(_)
            | Notification::ThreadStatusChanged(_) => {}
        }
    }
}
