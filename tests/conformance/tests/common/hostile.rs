//! Helpers of the hostile-input tests: a bridge with a bystander session that must keep
//! working, raw lines and the errors they cause.

use super::*;

/// The session every hostile test opens first and runs a turn on after each hostile input.
pub const BYSTANDER: &str = "bystander";
/// The resident memory the bridge must stay under, whatever it is fed.
pub const RSS_BOUND: u64 = 200 * 1024 * 1024;

/// A demo bridge with the [`BYSTANDER`] session open.
pub async fn with_bystander() -> Demo {
    with_bystander_and(HostOptions::default()).await
}

pub async fn with_bystander_and(options: HostOptions) -> Demo {
    let d = demo_with(options).await;
    d.open(BYSTANDER, json!({})).await;
    d
}

/// The bystander still completes a turn (`after` names the hostile input, for the message).
pub async fn bystander_completes_a_turn(d: &Demo, after: &str) {
    let run = d
        .host
        .run_turn(&d.conn, BYSTANDER, "say hi", T)
        .await
        .unwrap_or_else(|e| panic!("after {after}, the bystander's turn failed: {e:#}"));
    assert_eq!(run.state(), "completed", "after {after}: {}", run.end);
}

fn null_id_error(m: &Value) -> bool {
    m.get("id").is_some_and(Value::is_null) && m.get("error").is_some()
}

/// Writes `bytes` and a newline; returns the `id: null` error it causes.
pub async fn null_id_error_for(host: &BridgeHost, bytes: &[u8]) -> Value {
    let before = host.count_messages(null_id_error);
    let mut line = bytes.to_vec();
    line.push(b'\n');
    host.send_raw_bytes(&line).await.expect("write");
    host.wait_messages(null_id_error, before + 1, T)
        .await
        .unwrap_or_else(|e| panic!("no `id: null` error: {e:#}"));
    host.messages()
        .into_iter()
        .filter(null_id_error)
        .nth(before)
        .expect("the error")
}

/// Writes a request whose `id` and `params` are raw JSON text; returns its answer (the
/// message whose `id` equals `id_text` parsed).
pub async fn raw_answer(
    host: &BridgeHost,
    id_text: &str,
    method: &str,
    params_text: &str,
) -> Value {
    let id: Value = serde_json::from_str(id_text).expect("the id is JSON");
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":{id_text},"method":{},"params":{params_text}}}"#,
        Value::from(method)
    );
    host.send_raw(&line).await.expect("write");
    host.wait_message(
        |m| m.get("id") == Some(&id) && (m.get("result").is_some() || m.get("error").is_some()),
        T,
    )
    .await
    .unwrap_or_else(|e| panic!("no answer with id {id_text}: {e:#}"))
}

/// How many messages carry exactly this `id`.
pub fn answers_with_id(host: &BridgeHost, id: &Value) -> usize {
    host.count_messages(|m| m.get("id") == Some(id))
}
