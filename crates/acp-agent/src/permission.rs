//! A core permission (`session.permission`) as ACP `session/request_permission`, and the
//! client's outcome back as the core's permission response.
//!
//! - The provider's own actions (Codex's "allow for the session", a plan's "implement", the
//!   demo's Run / Don't run) become options with their ids; their behavior gives the kind
//!   (`allow_*` / `reject_*`, `*_always` when the action says "always" or "session").
//! - Without actions: `allow` (allow once), `allow_always` when the agent suggested permission
//!   rules to remember (Claude's suggestions, sent back as `updatedPermissions`), and `reject`.
//! - A question with one multiple-choice question (Claude's `AskUserQuestion`) offers each
//!   answer as an option; choosing one answers `{"answers": {question: label}}`.
//! - `cancelled` (the client cancelled the turn) denies.

use agent_bridge_protocol::{
    PermissionBehavior, PermissionKind, ProviderPermissionRequest, ProviderPermissionResponse,
};
use agent_client_protocol_schema::v1::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind,
};
use serde_json::{json, Value};

const ALLOW: &str = "allow";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT: &str = "reject";
const ANSWER_PREFIX: &str = "answer:";

/// One permission the client was asked, kept until it answers.
#[derive(Debug, Clone)]
pub struct AskedPermission {
    pub session_id: String,
    pub request: ProviderPermissionRequest,
}

/// The options offered for `request`.
pub fn options(request: &ProviderPermissionRequest) -> Vec<PermissionOption> {
    if let Some(q) = single_question(request) {
        let mut out: Vec<PermissionOption> = q
            .labels
            .iter()
            .enumerate()
            .map(|(i, label)| {
                PermissionOption::new(
                    format!("{ANSWER_PREFIX}{i}"),
                    label.clone(),
                    PermissionOptionKind::AllowOnce,
                )
            })
            .collect();
        out.push(PermissionOption::new(
            REJECT,
            "Skip",
            PermissionOptionKind::RejectOnce,
        ));
        return out;
    }
    if let Some(actions) = request.actions.as_ref().filter(|a| !a.is_empty()) {
        return actions
            .iter()
            .map(|a| {
                let text = format!("{} {}", a.id, a.label).to_lowercase();
                let always = text.contains("always") || text.contains("session");
                let kind = match (a.behavior, always) {
                    (PermissionBehavior::Allow, false) => PermissionOptionKind::AllowOnce,
                    (PermissionBehavior::Allow, true) => PermissionOptionKind::AllowAlways,
                    (PermissionBehavior::Deny, false) => PermissionOptionKind::RejectOnce,
                    (PermissionBehavior::Deny, true) => PermissionOptionKind::RejectAlways,
                };
                PermissionOption::new(a.id.clone(), a.label.clone(), kind)
            })
            .collect();
    }
    let mut out = vec![PermissionOption::new(
        ALLOW,
        "Allow",
        PermissionOptionKind::AllowOnce,
    )];
    if request.suggestions.as_ref().is_some_and(|s| !s.is_empty()) {
        out.push(PermissionOption::new(
            ALLOW_ALWAYS,
            "Always allow",
            PermissionOptionKind::AllowAlways,
        ));
    }
    out.push(PermissionOption::new(
        REJECT,
        "Reject",
        PermissionOptionKind::RejectOnce,
    ));
    out
}

/// The timeline tool call a permission guards, when the provider names it (`toolCallId` of an
/// ACP agent, Claude's `toolUseId`, Codex's `itemId`): the permission is then shown on that
/// call.
pub fn guarded_call(request: &ProviderPermissionRequest) -> Option<String> {
    let metadata = request.metadata.as_ref()?;
    ["toolCallId", "toolUseId", "itemId"]
        .iter()
        .find_map(|k| metadata.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// The tool call the permission is about: the call it guards, else one of its own (the
/// permission's id).
pub fn tool_call(request: &ProviderPermissionRequest) -> ToolCallUpdate {
    let id = guarded_call(request).unwrap_or_else(|| request.id.clone());
    let title = request
        .title
        .clone()
        .or_else(|| request.description.clone())
        .unwrap_or_else(|| request.name.clone());
    let kind = match request.kind {
        PermissionKind::Tool => match &request.detail {
            Some(detail) => crate::tool_calls::kind_of(detail),
            None => ToolKind::Other,
        },
        PermissionKind::Plan | PermissionKind::Mode => ToolKind::SwitchMode,
        PermissionKind::Question | PermissionKind::Other => ToolKind::Other,
    };
    let fields = ToolCallUpdateFields::new()
        .title(title)
        .kind(kind)
        .raw_input(request.input.clone().map(Value::Object));
    ToolCallUpdate::new(id, fields)
}

/// The core's response for the client's outcome (`None` when the client's answer is an unknown
/// option: the permission is then denied too, saying so).
pub fn response(
    request: &ProviderPermissionRequest,
    outcome: &RequestPermissionOutcome,
) -> ProviderPermissionResponse {
    let option = match outcome {
        RequestPermissionOutcome::Selected(s) => s.option_id.0.to_string(),
        _ => return ProviderPermissionResponse::deny("cancelled by the ACP client"),
    };
    if let Some(i) = option.strip_prefix(ANSWER_PREFIX) {
        if let (Some(q), Ok(i)) = (single_question(request), i.parse::<usize>()) {
            if let Some(label) = q.labels.get(i) {
                let input = json!({"answers": {q.question: label}});
                return ProviderPermissionResponse::Allow {
                    selected_action_id: None,
                    updated_input: input.as_object().cloned(),
                    updated_permissions: None,
                };
            }
        }
    }
    if let Some(action) = request
        .actions
        .as_ref()
        .and_then(|a| a.iter().find(|a| a.id == option))
    {
        return match action.behavior {
            PermissionBehavior::Allow => ProviderPermissionResponse::Allow {
                selected_action_id: Some(action.id.clone()),
                updated_input: None,
                updated_permissions: None,
            },
            PermissionBehavior::Deny => ProviderPermissionResponse::Deny {
                selected_action_id: Some(action.id.clone()),
                message: None,
                interrupt: None,
            },
        };
    }
    match option.as_str() {
        ALLOW => ProviderPermissionResponse::Allow {
            selected_action_id: None,
            updated_input: None,
            updated_permissions: None,
        },
        ALLOW_ALWAYS => ProviderPermissionResponse::Allow {
            selected_action_id: None,
            updated_input: None,
            updated_permissions: request
                .suggestions
                .clone()
                .map(|s| s.into_iter().map(Value::Object).collect()),
        },
        REJECT => ProviderPermissionResponse::deny("rejected in the ACP client"),
        other => ProviderPermissionResponse::deny(format!(
            "the ACP client chose an option that was not offered: `{other}`"
        )),
    }
}

struct Question {
    question: String,
    labels: Vec<String>,
}

/// A question permission asking exactly one multiple-choice question.
fn single_question(request: &ProviderPermissionRequest) -> Option<Question> {
    if request.kind != PermissionKind::Question {
        return None;
    }
    let questions = request.input.as_ref()?.get("questions")?.as_array()?;
    let [one] = questions.as_slice() else {
        return None;
    };
    let question = one.get("question")?.as_str()?.to_string();
    let labels: Vec<String> = one
        .get("options")?
        .as_array()?
        .iter()
        .filter_map(|o| o.get("label").and_then(Value::as_str).map(str::to_string))
        .collect();
    (!labels.is_empty()).then_some(Question { question, labels })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_protocol::ProviderPermissionAction;
    use agent_client_protocol_schema::v1::SelectedPermissionOutcome;
    use pretty_assertions::assert_eq;

    fn request(kind: PermissionKind) -> ProviderPermissionRequest {
        ProviderPermissionRequest {
            id: "p1".into(),
            name: "shell".into(),
            kind,
            title: Some("Run `ls`?".into()),
            description: None,
            input: None,
            detail: None,
            suggestions: None,
            actions: None,
            metadata: None,
        }
    }

    fn selected(id: &str) -> RequestPermissionOutcome {
        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_string()))
    }

    #[test]
    fn actions_map_both_ways() {
        let mut r = request(PermissionKind::Tool);
        r.actions = Some(vec![
            ProviderPermissionAction {
                id: "accept_for_session".into(),
                label: "Allow for this session".into(),
                behavior: PermissionBehavior::Allow,
                variant: None,
                intent: None,
            },
            ProviderPermissionAction {
                id: "decline".into(),
                label: "Decline".into(),
                behavior: PermissionBehavior::Deny,
                variant: None,
                intent: None,
            },
        ]);
        let kinds: Vec<_> = options(&r).into_iter().map(|o| o.kind).collect();
        assert_eq!(
            kinds,
            vec![
                PermissionOptionKind::AllowAlways,
                PermissionOptionKind::RejectOnce
            ]
        );
        assert_eq!(
            response(&r, &selected("decline")).selected_action_id(),
            Some("decline")
        );
        assert!(response(&r, &selected("accept_for_session")).is_allow());
    }

    #[test]
    fn cancelled_and_unknown_options_deny() {
        let r = request(PermissionKind::Tool);
        assert!(!response(&r, &RequestPermissionOutcome::Cancelled).is_allow());
        assert!(!response(&r, &selected("nope")).is_allow());
        assert!(response(&r, &selected("allow")).is_allow());
        assert!(!response(&r, &selected("reject")).is_allow());
    }

    #[test]
    fn a_single_question_offers_its_answers() {
        let mut r = request(PermissionKind::Question);
        r.input = json!({"questions": [{"question": "Which?", "options": [
            {"label": "Red"}, {"label": "Blue"}]}]})
        .as_object()
        .cloned();
        let names: Vec<_> = options(&r).into_iter().map(|o| o.name).collect();
        assert_eq!(names, vec!["Red", "Blue", "Skip"]);
        match response(&r, &selected("answer:1")) {
            ProviderPermissionResponse::Allow { updated_input, .. } => {
                assert_eq!(
                    Value::Object(updated_input.unwrap()),
                    json!({"answers": {"Which?": "Blue"}})
                )
            }
            other => panic!("not an answer: {other:?}"),
        }
    }
}
