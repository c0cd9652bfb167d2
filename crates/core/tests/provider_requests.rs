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
