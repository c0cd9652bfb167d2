//! Provider-level requests (catalog, session list, catalog cache key) are answered in bounded
//! time even when the provider hangs.

mod support;

use pretty_assertions::assert_eq;
use serde_json::json;
use support::{Behaviour, Host};

fn hanging() -> Behaviour {
    Behaviour {
        hang_provider_requests: true,
        ..Default::default()
    }
}

#[tokio::test(start_paused = true)]
async fn a_hung_catalog_fails_with_timeout() {
    let mut host = Host::start(hanging()).await;
    let r = host
        .send(json!({"type": "catalog", "requestId": "cat1"}))
        .await;
    assert_eq!(r["result"], serde_json::Value::Null);
    let events = host.until("request.failed").await;
    let failed = events.last().unwrap();
    assert_eq!(failed["requestId"], "cat1");
    assert_eq!(failed["error"]["code"], "timeout");
}

#[tokio::test(start_paused = true)]
async fn a_hung_session_list_fails_with_timeout() {
    let mut host = Host::start(hanging()).await;
    let r = host
        .send(json!({"type": "sessions", "requestId": "ls1"}))
        .await;
    assert_eq!(r["result"], serde_json::Value::Null);
    let events = host.until("request.failed").await;
    let failed = events.last().unwrap();
    assert_eq!(failed["requestId"], "ls1");
    assert_eq!(failed["error"]["code"], "timeout");
}

/// As slow as an ACP agent's start may be (`initialize` is allowed 50 s: Kilo took over 30 s on
/// a loaded 2-core machine), which a catalog and a session list both wait for.
fn agent_start() -> Behaviour {
    Behaviour {
        slow_provider_requests: Some(std::time::Duration::from_secs(45)),
        ..Default::default()
    }
}

#[tokio::test(start_paused = true)]
async fn a_catalog_as_slow_as_an_agent_start_is_answered() {
    let mut host = Host::start(agent_start()).await;
    host.send(json!({"type": "catalog", "requestId": "cat2"}))
        .await;
    let answer = answer_to(&mut host, "cat2").await;
    assert_eq!(answer["type"], "catalog", "{answer}");
}

#[tokio::test(start_paused = true)]
async fn a_session_list_as_slow_as_an_agent_start_is_answered() {
    let mut host = Host::start(agent_start()).await;
    host.send(json!({"type": "sessions", "requestId": "ls2"}))
        .await;
    let answer = answer_to(&mut host, "ls2").await;
    assert_eq!(answer["type"], "sessions", "{answer}");
    assert_eq!(answer["sessions"], json!([]));
}

/// The event answering `request_id` (its result or `request.failed`).
async fn answer_to(host: &mut Host, request_id: &str) -> serde_json::Value {
    loop {
        let event = host.event().await;
        if event["requestId"] == request_id {
            return event;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_hung_cache_key_answers_no_caching() {
    let mut host = Host::start(hanging()).await;
    let r = host
        .request(
            "provider/catalogCacheKey",
            json!({"providerId": "fake", "options": {}}),
        )
        .await;
    assert_eq!(r["result"], json!({"key": null}), "{r}");
}
