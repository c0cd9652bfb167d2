//! A `result` line -> how the run ended and what it used.

use crate::wire::ResultMessage;
use agent_bridge_core::TurnOutcome;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ItemBody, ProviderError, ProviderUsage, TimelineItem};
use serde_json::Value;

/// The outcome and usage of a run. `interrupted`: the bridge asked the CLI to stop it.
pub fn outcome(
    r: &ResultMessage,
    interrupted: bool,
    context_used: Option<u64>,
    context_max: Option<u64>,
) -> (TurnOutcome, ProviderUsage) {
    let usage = r.usage.clone().unwrap_or_default();
    let usage = ProviderUsage {
        input_tokens: usage.input_tokens,
        cached_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
        total_cost_usd: r.total_cost_usd,
        context_window_max_tokens: r.context_window().or(context_max),
        context_window_used_tokens: context_used,
    };
    let aborted = r
        .terminal_reason
        .as_deref()
        .is_some_and(|t| t.starts_with("aborted"));
    let is_error = r.is_error.unwrap_or(false) || r.subtype != "success";
    let outcome = if interrupted || (aborted && is_error) {
        TurnOutcome::Canceled
    } else if !is_error {
        TurnOutcome::Completed
    } else {
        TurnOutcome::Failed(error_of(r))
    };
    (outcome, usage)
}

/// The run's structured answer as its final `assistant_message`: the JSON object's text, as
/// codex-bridge's final message is for a prompt with an output schema.
pub fn structured_item(r: &ResultMessage, answer: &Value) -> TimelineItem {
    let id = match &r.uuid {
        Some(uuid) => format!("structured-output:{uuid}"),
        None => format!(
            "structured-output:{}",
            r.session_id.as_deref().unwrap_or("")
        ),
    };
    TimelineItem::new(
        id,
        ItemBody::AssistantMessage {
            text: answer.to_string(),
            message_id: None,
        },
    )
}

fn error_of(r: &ResultMessage) -> ProviderError {
    let errors: Vec<String> = r
        .errors
        .iter()
        .flatten()
        .map(|e| match e {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    // API and auth failures arrive as `is_error` with the CLI's message as the result text.
    let result_text = r.result.clone().filter(|t| !t.trim().is_empty());
    let message = result_text
        .clone()
        .or_else(|| {
            errors
                .iter()
                .find(|e| !e.starts_with("[ede_diagnostic]"))
                .cloned()
        })
        .unwrap_or_else(|| {
            format!(
                "Claude Code run failed ({})",
                if r.subtype.is_empty() {
                    "error"
                } else {
                    &r.subtype
                }
            )
        });
    let mut diagnostic = result_text
        .iter()
        .chain(errors.iter())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(status) = r.api_error_status.as_ref().filter(|s| !s.is_null()) {
        if !diagnostic.is_empty() {
            diagnostic.push('\n');
        }
        diagnostic.push_str(&format!("api_error_status: {status}"));
    }
    let code = match r.subtype.as_str() {
        // API and auth failures are reported as a "success" run with `is_error`.
        "" | "success" => ErrorCode::ApiError,
        other => ErrorCode::parse(other),
    };
    ProviderError::new(message)
        .with_code(code)
        .with_diagnostic(diagnostic)
}
