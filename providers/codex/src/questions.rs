//! The agent's own questions: Codex's `request_user_input` tool reaches the client as the
//! server request `item/tool/requestUserInput`; it becomes a Paseo permission of kind
//! `question`, shaped as Paseo's built-in providers shape theirs:
//!
//! - `input.questions`: `[{id, header, question, options: [{label, description}], isOther,
//!   isSecret}]` (Codex's questions, `options` always a list);
//! - the answer: `allow` with `updatedInput.answers`, an object keyed by a question's `header`
//!   (its `id` and its text are accepted too) whose values are the answer as a string or a list
//!   of strings; a question left unanswered gets its first option (Codex's guidance makes the
//!   first option the recommended one), or no answer when it has no options;
//! - `deny` (a dismissal) answers Codex with no answers, as Codex itself does when a client
//!   fails the request; `deny` with `interrupt` also stops the turn.
//!
//! Codex offers the tool in its default collaboration mode only with two switches on
//! ([`enable_config`]); a session opens with them, `deniedTools: ["request_user_input"]`
//! turns them off again (see `tool_denial`).

use crate::wire::notify::{UserInputQuestion, UserInputRequest};
use agent_bridge_protocol::{
    JsonMap, PermissionKind, PlainTextIcon, ProviderPermissionRequest, ProviderPermissionResponse,
    ToolCallDetail,
};
use serde_json::{json, Map, Value};

/// The Codex tool behind the questions (also the permission's `name`).
pub const TOOL: &str = "request_user_input";

/// `thread/start` config that offers `request_user_input` outside Plan mode.
pub fn enable_config() -> Map<String, Value> {
    let on = json!({
        "tools": {"experimental_request_user_input": {"enabled": true}},
        "features": {"default_mode_request_user_input": true},
    });
    match on {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn object(v: Value) -> JsonMap {
    match v {
        Value::Object(m) => m,
        _ => JsonMap::new(),
    }
}

/// The questions as Paseo shows them (`input.questions`).
fn paseo_questions(questions: &[UserInputQuestion]) -> Value {
    Value::Array(
        questions
            .iter()
            .map(|q| {
                json!({
                    "id": q.id,
                    "header": q.header,
                    "question": q.question,
                    "options": q.options.clone().unwrap_or_default(),
                    "isOther": q.is_other,
                    "isSecret": q.is_secret,
                })
            })
            .collect(),
    )
}

/// The questions as one text (the permission's detail).
pub fn text(questions: &[UserInputQuestion]) -> String {
    questions
        .iter()
        .map(|q| {
            let mut lines = vec![if q.header.is_empty() {
                q.question.clone()
            } else {
                format!("{}: {}", q.header, q.question)
            }];
            let options = q.options.as_deref().unwrap_or_default();
            if !options.is_empty() {
                let labels: Vec<&str> = options.iter().map(|o| o.label.as_str()).collect();
                lines.push(format!("Options: {}", labels.join(", ")));
            }
            lines.join("\n")
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The Paseo permission for Codex's questions.
pub fn request(p: &UserInputRequest, id: String) -> ProviderPermissionRequest {
    let title = match p.questions.as_slice() {
        [only] if !only.header.is_empty() => only.header.clone(),
        _ => "Question".to_string(),
    };
    ProviderPermissionRequest {
        id,
        name: TOOL.into(),
        kind: PermissionKind::Question,
        title: Some(title),
        description: None,
        input: Some(object(
            json!({ "questions": paseo_questions(&p.questions) }),
        )),
        detail: Some(ToolCallDetail::PlainText {
            label: Some("Question".into()),
            text: Some(text(&p.questions)),
            icon: Some(PlainTextIcon::Brain),
        }),
        suggestions: None,
        actions: None,
        metadata: Some(object(json!({
            "itemId": p.item_id,
            "turnId": p.turn_id,
            "threadId": p.thread_id,
        }))),
    }
}

/// The values of one answer: a string, a list of strings, or `{answers: [...]}`.
fn values(v: &Value) -> Vec<String> {
    let list = |a: &Vec<Value>| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    match v {
        Value::String(s) if !s.trim().is_empty() => vec![s.trim().to_string()],
        Value::Array(a) => list(a),
        Value::Object(o) => o.get("answers").map(values).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Codex's `ToolRequestUserInputResponse` for the host's answer.
pub fn response(questions: &[UserInputQuestion], answer: &ProviderPermissionResponse) -> Value {
    let ProviderPermissionResponse::Allow { updated_input, .. } = answer else {
        return cancel();
    };
    let given = updated_input
        .as_ref()
        .and_then(|i| i.get("answers"))
        .and_then(Value::as_object);
    let mut answers = Map::new();
    for q in questions {
        let found = given.and_then(|g| {
            [&q.header, &q.id, &q.question]
                .into_iter()
                .filter(|k| !k.is_empty())
                .find_map(|k| g.get(k.as_str()))
        });
        let mut picked = found.map(values).unwrap_or_default();
        if picked.is_empty() {
            let first = q.options.as_deref().and_then(|o| o.first());
            picked.extend(first.map(|o| o.label.clone()));
        }
        if !picked.is_empty() {
            answers.insert(q.id.clone(), json!({ "answers": picked }));
        }
    }
    json!({ "answers": answers })
}

/// The answer of a dismissed or cancelled question: no answers.
pub fn cancel() -> Value {
    json!({ "answers": {} })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::notify::ServerRequest;
    use pretty_assertions::assert_eq;

    fn asked() -> UserInputRequest {
        let params = json!({
            "threadId": "th", "turnId": "tu", "itemId": "call_1", "isBlocking": true,
            "questions": [
                {"id": "color", "header": "Color", "question": "Which color?",
                 "options": [{"label": "Red (Recommended)", "description": "warm"},
                             {"label": "Blue", "description": "cold"}],
                 "isOther": true},
                {"id": "name", "header": "Name", "question": "What name?", "options": null}
            ]
        });
        match ServerRequest::parse("item/tool/requestUserInput", params) {
            ServerRequest::UserInput(p) => p,
            other => panic!("not read as a question: {other:?}"),
        }
    }

    #[test]
    fn codex_questions_become_a_question_permission() {
        insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("question_permission", request(&asked(), "q-1".into())); });
    }

    #[test]
    fn answers_go_back_by_question_id() {
        let p = asked();
        let allow = |answers: Value| ProviderPermissionResponse::Allow {
            selected_action_id: None,
            updated_input: Some(object(json!({ "answers": answers }))),
            updated_permissions: None,
        };
        // Keyed by header (Paseo's form), by id, by the question's text; strings or lists.
        assert_eq!(
            response(
                &p.questions,
                &allow(json!({"Color": "Blue", "name": ["Ada"]}))
            ),
            json!({"answers": {"color": {"answers": ["Blue"]}, "name": {"answers": ["Ada"]}}})
        );
        assert_eq!(
            response(
                &p.questions,
                &allow(json!({"Which color?": {"answers": ["Green"]}}))
            ),
            json!({"answers": {"color": {"answers": ["Green"]}}}),
            "a free-form answer; the question without options stays unanswered"
        );
        // Allowed without answers: the first (recommended) option.
        let bare = ProviderPermissionResponse::Allow {
            selected_action_id: None,
            updated_input: None,
            updated_permissions: None,
        };
        assert_eq!(
            response(&p.questions, &bare),
            json!({"answers": {"color": {"answers": ["Red (Recommended)"]}}})
        );
        // A dismissal answers nothing.
        assert_eq!(
            response(&p.questions, &ProviderPermissionResponse::deny("no")),
            json!({"answers": {}})
        );
    }
}
