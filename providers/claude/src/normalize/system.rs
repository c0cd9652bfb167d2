//! `system` messages: init, status (permission mode, compaction), compact boundaries, and
//! background tasks.

use super::{InitInfo, NormEvent, Normalizer};
use crate::wire::SystemMessage;
use agent_bridge_protocol::{CompactionStatus, CompactionTrigger, ItemBody, TimelineItem};
use serde_json::Value;

impl Normalizer {
    pub(super) fn system(&mut self, sys: &SystemMessage, out: &mut Vec<NormEvent>) {
        match sys.subtype.as_str() {
            "init" => {
                if let Some(model) = &sys.model {
                    self.context_max = Some(if model.contains("[1m]") {
                        1_000_000
                    } else {
                        200_000
                    });
                }
                out.push(NormEvent::Init(InitInfo {
                    session_id: sys.session_id.clone().unwrap_or_default(),
                    model: sys.model.clone(),
                    permission_mode: sys.permission_mode.clone(),
                    slash_commands: sys.slash_commands.clone().unwrap_or_default(),
                    version: sys.claude_code_version.clone(),
                }));
            }
            "commands_changed" => {
                if let Some(list) = &sys.commands {
                    out.push(NormEvent::CommandsChanged(crate::commands::from_list(list)));
                }
            }
            "status" => {
                if let Some(mode) = &sys.permission_mode {
                    out.push(NormEvent::ModeChanged(mode.clone()));
                }
                if sys.status.as_deref() == Some("compacting") {
                    self.compactions += 1;
                    let id = format!("compaction:{}", self.compactions);
                    self.compaction_open = Some(id.clone());
                    out.push(compaction(&id, CompactionStatus::Loading, None, None));
                } else if sys
                    .compact_result
                    .as_deref()
                    .is_some_and(|r| r != "success")
                {
                    if let Some(id) = self.compaction_open.take() {
                        out.push(NormEvent::Item(TimelineItem::new(
                            format!("{id}:error"),
                            ItemBody::Error {
                                message: match &sys.compact_error {
                                    Some(e) => format!("Compaction failed: {e}"),
                                    None => "Compaction failed".into(),
                                },
                            },
                        )));
                        out.push(compaction(&id, CompactionStatus::Completed, None, None));
                    }
                }
            }
            "compact_boundary" => {
                let id = self.compaction_open.take().unwrap_or_else(|| {
                    self.compactions += 1;
                    format!("compaction:{}", self.compactions)
                });
                let meta = sys.compact_metadata.clone().unwrap_or_default();
                let trigger = match meta.trigger.as_deref() {
                    Some("auto") => Some(CompactionTrigger::Auto),
                    Some("manual") => Some(CompactionTrigger::Manual),
                    _ => None,
                };
                out.push(compaction(
                    &id,
                    CompactionStatus::Completed,
                    trigger,
                    meta.pre_tokens,
                ));
                self.swallow_summary = true;
            }
            "task_started" => {
                if let Some(id) = &sys.task_id {
                    self.background.insert(id.clone(), sys.tool_use_id.clone());
                }
            }
            "task_notification" => {
                if let Some(id) = &sys.task_id {
                    self.background.remove(id);
                }
            }
            "task_updated" => {
                let status = sys
                    .patch
                    .as_ref()
                    .and_then(|p| p.get("status"))
                    .and_then(Value::as_str);
                if let (Some(id), Some(status)) = (&sys.task_id, status) {
                    if !matches!(status, "running" | "pending") {
                        self.background.remove(id);
                    }
                }
            }
            // The CLI retries an API request it could not get through (Live only: a
            // transcript's old retries are history).
            "api_retry" if self.mode == super::Mode::Live => {
                out.push(NormEvent::Notice(
                    self.retry.retrying(&retry_words(sys), None),
                ));
            }
            _ => {}
        }
    }
}

/// `attempt 3 of 10, next in 2 s (HTTP 529, overloaded)` from an `api_retry` message.
fn retry_words(sys: &SystemMessage) -> String {
    let mut words = match (sys.attempt, sys.max_retries) {
        (Some(a), Some(m)) => format!("attempt {a} of {m}"),
        (Some(a), None) => format!("attempt {a}"),
        _ => "retrying".to_string(),
    };
    if let Some(ms) = sys.retry_delay_ms.filter(|ms| *ms >= 0.0) {
        words.push_str(&format!(", next in {:.0} s", (ms / 1000.0).ceil()));
    }
    let error = match &sys.error {
        Some(Value::String(e)) => Some(e.clone()),
        Some(Value::Object(o)) => o.get("message").and_then(Value::as_str).map(str::to_string),
        _ => None,
    };
    let why: Vec<String> = sys
        .error_status
        .map(|s| format!("HTTP {s}"))
        .into_iter()
        .chain(error.filter(|e| !e.is_empty() && e != "unknown"))
        .collect();
    if !why.is_empty() {
        words.push_str(&format!(" ({})", why.join(", ")));
    }
    words
}

fn compaction(
    id: &str,
    status: CompactionStatus,
    trigger: Option<CompactionTrigger>,
    pre_tokens: Option<u64>,
) -> NormEvent {
    NormEvent::Item(TimelineItem::new(
        id,
        ItemBody::Compaction {
            status,
            trigger,
            pre_tokens,
        },
    ))
}
