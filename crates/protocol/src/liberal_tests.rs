use super::*;
use crate::wire::SendParams;
use crate::ProviderInput;
use pretty_assertions::assert_eq;
use serde_json::json;

fn send(input: Value) -> Result<Parsed<SendParams>, ParseError> {
    parse::<SendParams>(json!({"connectionId": "c1", "input": input}))
}

fn open(config: Value) -> Value {
    json!({"type": "session.open", "requestId": "r", "sessionId": "s", "config": config,
        "history": "skip"})
}

#[test]
fn unknown_fields_are_ignored_and_reported_by_path() {
    let parsed = send(json!({
        "type": "session.open", "requestId": "r", "sessionId": "s", "history": "skip",
        "futureTopLevel": 1,
        "config": {"cwd": "/w", "futureConfigField": {"x": 1},
            "mcpServers": {"m": {"type": "stdio", "command": "c", "futureMcp": true}}},
    }))
    .expect("parses");
    assert_eq!(
        parsed.ignored,
        vec![
            "input.config.futureConfigField",
            "input.config.mcpServers.m.futureMcp",
            "input.futureTopLevel"
        ]
    );
    let ProviderInput::SessionOpen { config, .. } = parsed.value.input else {
        panic!("an open")
    };
    assert_eq!(config.cwd, "/w");
}

#[test]
fn opaque_maps_are_not_reported() {
    let parsed = send(open(json!({"cwd": "/w", "env": {"ANY": "x"},
        "providerOptions": {"anything": {"deep": 1}}, "settings": {"k": true}})))
    .expect("parses");
    assert_eq!(parsed.ignored, Vec::<String>::new());
}

#[test]
fn a_known_field_of_the_wrong_type_is_named() {
    let err = send(open(json!({"cwd": 5}))).expect_err("refused");
    assert_eq!(err.path, "input.config.cwd");
    assert_eq!(err.message, "invalid type: integer `5`, expected a string");
    let err = send(
        json!({"type": "session.prompt", "sessionId": "s", "prompt": {
        "clientMessageId": "m", "delivery": "auto",
        "input": {"type": "message", "content": [{"type": "text", "text": "a"},
            {"type": "image", "data": 7, "mimeType": "image/png"}]}}}),
    )
    .expect_err("refused");
    assert_eq!(err.path, "input.prompt.input.content[1].data");
}

#[test]
fn a_missing_field_and_an_unknown_variant_are_named() {
    let err = send(
        json!({"type": "session.open", "requestId": "r", "sessionId": "s",
        "config": {"cwd": "/w"}}),
    )
    .expect_err("refused");
    assert_eq!(err.path, "input");
    assert_eq!(err.message, "missing field `history`");
    let err = send(json!({"type": "session.teleport", "requestId": "r"})).expect_err("refused");
    assert_eq!(err.path, "input.type");
    assert!(
        err.message
            .starts_with("unknown variant string \"session.teleport\""),
        "{err}"
    );
    assert!(err.message.contains("`session.open`"), "{err}");
}

#[test]
fn an_attachment_keeps_its_fields_and_a_plain_text_part_its_own() {
    let parsed = send(
        json!({"type": "session.prompt", "sessionId": "s", "prompt": {
        "clientMessageId": "m", "delivery": "auto",
        "input": {"type": "message", "content": [
            {"type": "text", "mimeType": "text/plain", "title": "notes.md", "text": "a"},
            {"type": "text", "text": "b", "futurePartField": 1}]}}}),
    )
    .expect("parses");
    assert_eq!(
        parsed.ignored,
        vec!["input.prompt.input.content[1].futurePartField"]
    );
    let ProviderInput::SessionPrompt { prompt, .. } = parsed.value.input else {
        panic!("a prompt")
    };
    assert_eq!(prompt.input.to_text(), "notes.md\na\n\nb");
}

#[test]
fn integers_out_of_range_name_the_field() {
    let err = send(json!({"type": "sessions", "requestId": "r", "limit": 0})).expect_err("0");
    assert_eq!(err.path, "input.limit");
    let err = send(json!({"type": "sessions", "requestId": "r", "limit": 1.5})).expect_err("1.5");
    assert_eq!(err.path, "input.limit");
}

#[test]
fn params_of_the_wrong_type_are_named_as_a_whole() {
    let err = parse::<SendParams>(json!("no object")).expect_err("refused");
    assert_eq!(err.path, "");
    assert_eq!(
        err.message,
        "invalid type: string \"no object\", expected a map"
    );
}

/// serde takes a struct written as a sequence and `null` for an absent field; the wire does not.
#[test]
fn what_serde_alone_would_take_is_refused_by_the_schema() {
    use crate::wire::{AvailabilityParams, CatalogCacheKeyParams, CloseParams, InitializeParams};
    let err = parse::<CatalogCacheKeyParams>(json!({"providerId": "p", "options": []}))
        .expect_err("a sequence for options");
    assert_eq!(err.path, "options");
    assert_eq!(err.message, "invalid type: sequence, expected a map");
    let err =
        parse::<CatalogCacheKeyParams>(json!({"providerId": "p", "options": {"scope": null}}))
            .expect_err("null scope");
    assert_eq!(err.path, "options.scope");
    assert_eq!(err.message, "invalid type: null, expected a string");
    let err =
        parse::<AvailabilityParams>(json!({"providerId": "p", "options": {}, "timeoutMs": null}))
            .expect_err("null timeoutMs");
    assert_eq!(err.path, "timeoutMs");
    let err = parse::<InitializeParams>(json!({"apiVersion": 1, "host": ["t", "0"]}))
        .expect_err("a sequence for host");
    assert_eq!(err.path, "host");
    let err = parse::<CloseParams>(json!(["c1"])).expect_err("positional params");
    assert_eq!(err.path, "");
    // What the wire allows still parses, unknown fields ignored.
    let parsed = parse::<CatalogCacheKeyParams>(
        json!({"providerId": "p", "options": {"scope": "workspace", "cwd": "/w", "later": 1}}),
    )
    .expect("parses");
    assert_eq!(parsed.ignored, vec!["options.later"]);
}
