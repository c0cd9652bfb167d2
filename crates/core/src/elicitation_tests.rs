use super::*;
use pretty_assertions::assert_eq;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "color": {"type": "string", "title": "Color", "description": "Which color?",
                      "enum": ["r", "b"], "enumNames": ["Red", "Blue"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "tags": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]}},
            "count": {"type": "integer", "title": "How many", "default": 2},
            "ratio": {"type": "number"},
            "ok": {"type": "boolean", "title": "Agree"},
            "name": {"type": "string", "description": "Your name"}
        },
        "required": ["color", "size"]
    })
}

fn allow(answers: Value) -> ProviderPermissionResponse {
    ProviderPermissionResponse::Allow {
        selected_action_id: None,
        updated_input: match json!({ "answers": answers }) {
            Value::Object(m) => Some(m),
            _ => None,
        },
        updated_permissions: None,
    }
}

fn deny(interrupt: bool) -> ProviderPermissionResponse {
    ProviderPermissionResponse::Deny {
        selected_action_id: None,
        message: None,
        interrupt: Some(interrupt),
    }
}

#[test]
fn a_form_becomes_one_question_per_property() {
    let e = Elicitation::form("srv", "Tell me more", &schema());
    let p = e.permission("p-1".into());
    assert_eq!(p.kind, PermissionKind::Question);
    assert_eq!(p.name, NAME);
    assert_eq!(p.title.as_deref(), Some("Tell me more"));
    let input = Value::Object(p.input.unwrap_or_default());
    let q = |key: &str| {
        input["questions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|q| q["id"] == key)
            .cloned()
            .unwrap_or(Value::Null)
    };
    let labels = |q: Value| -> Vec<String> {
        q["options"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| o["label"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(q("color")["header"], "Color");
    assert_eq!(q("color")["question"], "Which color?");
    assert_eq!(labels(q("color")), ["Red", "Blue"]);
    assert_eq!(labels(q("size")), ["Small", "Large"]);
    assert_eq!(labels(q("tags")), ["X", "Y"]);
    assert_eq!(q("tags")["multiSelect"], true);
    assert_eq!(labels(q("ok")), ["Yes", "No"]);
    assert_eq!(q("name")["isOther"], true);
    assert_eq!(q("name")["question"], "Your name");
    assert_eq!(q("ratio")["question"], "Tell me more");
    assert_eq!(input["server"], "srv");
}

#[test]
fn answers_are_typed_by_the_schema() {
    let e = Elicitation::form("srv", "m", &schema());
    let got = e.result(&allow(json!({
        "Color": "Blue",
        "size": ["l"],
        "tags": ["X", "y", "nope"],
        "How many": "7",
        "ratio": 0.5,
        "Agree": "Yes",
        "Your name": {"answers": ["Ada"]}
    })));
    assert_eq!(
        got,
        json!({"action": "accept", "content": {
            "color": "b", "size": "l", "tags": ["x", "y"], "count": 7, "ratio": 0.5,
            "ok": true, "name": "Ada"
        }})
    );
}

#[test]
fn unanswered_fields_take_their_default_or_a_required_first_option() {
    let e = Elicitation::form("srv", "m", &schema());
    let got = e.result(&allow(json!({"ratio": "not a number", "ok": "maybe"})));
    assert_eq!(
        got,
        json!({"action": "accept", "content": {"color": "r", "size": "s", "count": 2}})
    );
}

#[test]
fn deny_declines_and_an_interrupt_cancels() {
    let e = Elicitation::form("srv", "m", &schema());
    assert_eq!(e.result(&deny(false)), json!({"action": "decline"}));
    assert_eq!(e.result(&deny(true)), json!({"action": "cancel"}));
    assert_eq!(cancelled(), json!({"action": "cancel"}));
}

#[test]
fn a_url_elicitation_is_accepted_without_content() {
    let e = Elicitation::url("srv", "Sign in", "https://example.test/login", Some("e-1"));
    let p = e.permission("p-2".into());
    let meta = Value::Object(p.metadata.unwrap_or_default());
    assert_eq!(meta["url"], "https://example.test/login");
    assert_eq!(meta["elicitationId"], "e-1");
    let input = Value::Object(p.input.unwrap_or_default());
    let question = input["questions"][0]["question"].as_str().unwrap_or("");
    assert!(
        question.contains("https://example.test/login"),
        "{question}"
    );
    assert_eq!(e.result(&allow(json!({}))), json!({"action": "accept"}));
}

#[test]
fn a_schema_without_properties_asks_only_to_accept() {
    let e = Elicitation::form(
        "srv",
        "Proceed?",
        &json!({"type": "object", "properties": {}}),
    );
    let p = e.permission("p-3".into());
    let input = Value::Object(p.input.unwrap_or_default());
    assert_eq!(input["questions"], json!([]));
    assert_eq!(
        e.result(&allow(json!({}))),
        json!({"action": "accept", "content": {}})
    );
    // Garbage schemas degrade the same way.
    let e = Elicitation::form("srv", "x", &json!("nonsense"));
    assert_eq!(e.form, Form::Fields(Vec::new()));
}
