//! The serialization rules: liberal inputs (a field the bridge does not know is ignored), events
//! without nulls as Paseo's schema enforces, the tool-call error rule, and the newest fields.

use agent_bridge_protocol::*;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn input(v: Value) -> Result<ProviderInput, serde_json::Error> {
    serde_json::from_value(v)
}

#[test]
fn inputs_ignore_unknown_keys_at_every_level() {
    let catalog = input(json!({"type": "catalog", "requestId": "r"})).unwrap();
    assert_eq!(
        input(json!({"type": "catalog", "requestId": "r", "futureField": 1})).unwrap(),
        catalog
    );
    let open = json!({"type": "session.open", "requestId": "r", "sessionId": "s", "history": "skip",
        "config": {"cwd": "/", "env": {}, "mcpServers": {}, "settings": {}, "persist": false}});
    let mut newer = open.clone();
    newer["config"]["futureConfigField"] = json!(true);
    assert_eq!(input(newer).unwrap(), input(open).unwrap());
    let prompt = json!({"type": "session.prompt", "sessionId": "s", "prompt": {"clientMessageId": "m", "delivery": "auto",
        "input": {"type": "message", "content": [{"type": "text", "text": "hi"}]}}});
    let mut newer = prompt.clone();
    newer["prompt"]["input"]["content"][0]["extra"] = json!(1);
    newer["prompt"]["futurePromptField"] = json!("x");
    assert_eq!(input(newer).unwrap(), input(prompt).unwrap());
    // A known field of the wrong type and an unknown input type are still refused.
    assert!(input(json!({"type": "catalog", "requestId": 5})).is_err());
    assert!(input(json!({"type": "session.nope", "requestId": "r"})).is_err());
}

#[test]
fn text_attachment_is_told_from_text_by_mime_type() {
    let p: ProviderPrompt =
        serde_json::from_value(json!({"clientMessageId": "m", "delivery": "steer",
        "input": {"type": "message", "content": [
            {"type": "text", "text": "a"},
            {"type": "text", "mimeType": "text/plain", "title": "notes", "text": "b"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"}]}}))
        .unwrap();
    assert_eq!(p.input.to_text(), "a\n\nnotes\nb\n\n[image: image/png]");
    assert!(p.input.has_image());
}

#[test]
fn configure_distinguishes_absent_from_null() {
    let ProviderInput::SessionConfigure { changes, .. } = input(json!({"type": "session.configure", "requestId": "r",
        "sessionId": "s", "changes": {"model": null, "providerOptions": {"fast": null, "style": "x"}}}))
    .unwrap() else { panic!("not configure") };
    assert_eq!(changes.model, Some(None));
    assert_eq!(changes.mode, None);
    assert_eq!(
        changes.provider_options.unwrap().get("fast"),
        Some(&Value::Null)
    );
}

#[test]
fn required_capabilities_follow_paseo() {
    let steer = input(
        json!({"type": "session.prompt", "sessionId": "s", "prompt": {"clientMessageId": "m",
        "delivery": "steer", "input": {"type": "command", "name": "x", "arguments": ""}}}),
    )
    .unwrap();
    assert_eq!(
        steer.required_capabilities(),
        vec![Capability::PromptCommand, Capability::PromptSteer]
    );
    let can_stop =
        input(json!({"type": "session.can_stop_runtime", "requestId": "r", "sessionId": "s"}))
            .unwrap();
    assert_eq!(
        can_stop.required_capabilities(),
        vec![Capability::SessionCanStopRuntime]
    );
}

#[test]
fn events_omit_absent_fields_and_tool_errors_follow_status() {
    let mut call = ToolCall::running(
        "c",
        "shell",
        ToolCallDetail::Shell {
            command: "ls".into(),
            cwd: None,
            output: None,
            exit_code: None,
        },
    );
    let ev = ProviderEvent::TimelineItem {
        session_id: "s".into(),
        item: TimelineItem::new("c", ItemBody::ToolCall(call.clone())),
        timestamp: None,
    };
    assert_eq!(
        serde_json::to_value(&ev).unwrap(),
        json!({"type": "timeline.item", "sessionId": "s", "item": {"id": "c", "type": "tool_call", "callId": "c",
            "name": "shell", "detail": {"type": "shell", "command": "ls"}, "status": "running", "error": null}})
    );
    call.status = ToolStatus::Failed;
    call.normalize();
    assert_eq!(call.error, json!("failed"));
    call.fail(json!({"message": "boom"}));
    assert_eq!(call.error, json!({"message": "boom"}));
    call.complete();
    assert_eq!(call.error, Value::Null);
    let exit = ToolCallDetail::Shell {
        command: "x".into(),
        cwd: None,
        output: None,
        exit_code: Some(None),
    };
    assert_eq!(
        serde_json::to_value(exit).unwrap(),
        json!({"type": "shell", "command": "x", "exitCode": null})
    );
}

#[test]
fn newest_fields_serialize_as_the_guide_shows() {
    let state = ProviderConfigState {
        model: Some("m".into()),
        controls: vec![ProviderControl::Select {
            key: "approval".into(),
            label: "Approvals".into(),
            icon: Some("Shield".into()),
            default_value: "ask".into(),
            choices: vec![ControlChoice {
                value: "ask".into(),
                label: "Ask".into(),
            }],
        }],
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&state).unwrap(),
        json!({"model": "m", "models": [], "modes": [], "thinkingOptions": [], "providerOptions": {},
            "settings": [],
            "controls": [{"type": "select", "key": "approval", "label": "Approvals", "icon": "Shield",
                "defaultValue": "ask", "choices": [{"value": "ask", "label": "Ask"}]}]})
    );
    let ev = ProviderEvent::SessionCanStopRuntime {
        request_id: "r".into(),
        session_id: "s".into(),
        can_stop: true,
    };
    assert_eq!(
        serde_json::to_value(ev).unwrap(),
        json!({"type": "session.can_stop_runtime", "requestId": "r", "sessionId": "s", "canStop": true})
    );
    let connect: wire::ConnectRequest =
        serde_json::from_value(json!({"versions": [1], "capabilities": [],
        "launch": {"command": "/bin/claude", "args": ["--x"], "env": {"A": "1"}}}))
        .unwrap();
    assert_eq!(connect.launch.unwrap().args, vec!["--x".to_string()]);
}

#[test]
fn events_round_trip_through_serde() {
    let ev = ProviderEvent::SessionPromptResult {
        session_id: "s".into(),
        client_message_id: "m".into(),
        result: PromptResult::Failed {
            error: ProviderError::new("no"),
        },
    };
    let v = serde_json::to_value(&ev).unwrap();
    assert_eq!(
        v,
        json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "m", "result": {"type": "failed", "error": {"message": "no"}}})
    );
    assert_eq!(serde_json::from_value::<ProviderEvent>(v).unwrap(), ev);
}

/// The checked-in schema is what the code produces; regenerate with
/// `cargo run -p agent-bridge -- schema > crates/protocol/schema/wire.schema.json`.
#[test]
fn checked_in_schema_matches_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/wire.schema.json");
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("schema file"))
        .expect("schema json");
    assert_eq!(
        on_disk,
        schema::wire_schema(),
        "the wire changed: regenerate schema/wire.schema.json and review the diff"
    );
}

#[test]
fn prompt_previews_fit_paseo_in_utf16_code_units() {
    let units = |s: &str| s.encode_utf16().count();
    // Paseo's `.max(160)` is JavaScript length: an emoji counts twice.
    let emoji = prompt_preview(&"\u{1F389}".repeat(100));
    assert!(units(&emoji) <= PROMPT_PREVIEW_MAX, "{}", units(&emoji));
    assert!(emoji.ends_with('…'));
    let ascii = prompt_preview(&"x".repeat(300));
    assert_eq!(units(&ascii), PROMPT_PREVIEW_MAX);
    assert!(ascii.ends_with('…'));
    // Short text is kept whole, on one line.
    assert_eq!(prompt_preview("say\n  hi \u{1F389}"), "say hi \u{1F389}");
    assert_eq!(prompt_preview(&"é".repeat(160)), "é".repeat(160));
}

/// docs/wire.md makes `host` (name and version) and `options` required: a request without them
/// is a schema violation, and the error names the missing field.
#[test]
fn required_method_params_are_required() {
    fn missing<T: serde::de::DeserializeOwned + std::fmt::Debug>(v: Value) -> String {
        serde_json::from_value::<T>(v)
            .expect_err("accepted without a required field")
            .to_string()
    }
    let host = json!({"name": "paseo", "version": "0.9.2"});
    let init: wire::InitializeParams =
        serde_json::from_value(json!({"apiVersion": 1, "host": host})).unwrap();
    assert_eq!(
        init,
        wire::InitializeParams {
            api_version: 1,
            host: wire::HostInfo {
                name: "paseo".into(),
                version: "0.9.2".into()
            },
            plugin: None,
        }
    );
    assert_eq!(
        missing::<wire::InitializeParams>(json!({"apiVersion": 1})),
        "missing field `host`"
    );
    assert_eq!(
        missing::<wire::InitializeParams>(json!({"apiVersion": 1, "host": {"name": "paseo"}})),
        "missing field `version`"
    );
    let avail: wire::AvailabilityParams =
        serde_json::from_value(json!({"providerId": "demo", "options": {}})).unwrap();
    assert_eq!(avail.options, ProviderCatalogOptions::default());
    assert_eq!(
        missing::<wire::AvailabilityParams>(json!({"providerId": "demo", "timeoutMs": 5})),
        "missing field `options`"
    );
    let key: wire::CatalogCacheKeyParams =
        serde_json::from_value(json!({"providerId": "demo", "options": {}})).unwrap();
    assert_eq!(key.options, ProviderCatalogOptions::default());
    assert_eq!(
        missing::<wire::CatalogCacheKeyParams>(json!({"providerId": "demo"})),
        "missing field `options`"
    );
}

#[test]
fn request_ids_keep_any_json_number_and_error_messages_are_bounded() {
    use jsonrpc::{Incoming, Outgoing, RpcError, RpcErrorCode, MAX_ERROR_MESSAGE};
    for text in [
        "9223372036854775808",
        "18446744073709551615",
        "-3",
        "0.5",
        "\"s\"",
    ] {
        let id: Value = serde_json::from_str(text).unwrap();
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "m"});
        let Ok(Incoming::Request { id: parsed, .. }) = Incoming::from_value(msg) else {
            panic!("id {text} refused");
        };
        let answer = serde_json::to_value(Outgoing::result(parsed, Value::Null)).unwrap();
        assert_eq!(answer["id"], id, "id {text} echoed");
    }
    for id in [json!(true), json!(null), json!([1]), json!({})] {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "m"});
        let (echo, err) = Incoming::from_value(msg).expect_err("refused");
        assert_eq!((echo, err.code), (None, -32600), "id {id}");
    }
    let long = RpcError::new(
        RpcErrorCode::InvalidParams,
        "é".repeat(MAX_ERROR_MESSAGE * 3),
    );
    assert_eq!(long.message.chars().count(), MAX_ERROR_MESSAGE + 1);
    assert!(long.message.ends_with('…'));
    let short = RpcError::new(RpcErrorCode::InvalidParams, "unknown session `s`");
    assert_eq!(short.message, "unknown session `s`");
}

#[test]
fn a_numeric_id_beyond_u64_is_echoed_as_the_same_number() {
    // Found by fuzzing: without exact float parsing, an integer id past u64 became an f64 that
    // did not survive being echoed and read back.
    for raw in [
        "88888888888888889888888888888888888888888888819",
        "1e400",
        "-0.1",
        "123456789.987654321e-10",
        "18446744073709551616",
    ] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"x"}}"#);
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue; // out of range for a JSON number here: refused as a parse error
        };
        let id: jsonrpc::RequestId = serde_json::from_value(v["id"].clone()).expect("an id");
        let echoed = serde_json::to_string(&id).expect("serializes");
        let back: Value = serde_json::from_str(&echoed).expect("parses");
        assert_eq!(back, v["id"], "{raw} echoed as {echoed}");
    }
}

/// `docs/wire.md` lists every provider error code with the meaning the code gives it.
#[test]
fn the_wire_doc_lists_every_error_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/wire.md");
    let doc = std::fs::read_to_string(path).expect("docs/wire.md");
    for (code, meaning) in agent_bridge_protocol::ErrorCode::KNOWN {
        let row = format!("| `{code}` | {} |", meaning.trim());
        assert!(doc.contains(&row), "docs/wire.md lacks the row {row}");
    }
}
