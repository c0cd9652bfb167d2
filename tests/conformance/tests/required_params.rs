//! Params docs/wire.md makes required are required: `initialize` needs `host: { name,
//! version }`, `provider/availability` and `provider/catalogCacheKey` need `options`. A request
//! without them is invalid params (-32602) naming the missing field, and changes nothing.

mod common;
use common::*;

#[tokio::test]
async fn initialize_without_host_is_invalid_params_and_leaves_the_bridge_uninitialized() {
    let host = BridgeHost::spawn().await.expect("spawn");
    for (params, field) in [
        (json!({"apiVersion": 1}), "host"),
        (
            json!({"apiVersion": 1, "host": {"name": "paseo"}}),
            "version",
        ),
        (json!({"apiVersion": 1, "host": {"version": "1"}}), "name"),
    ] {
        let err = refusal(host.request("initialize", params.clone()).await);
        assert_eq!(err.code, -32602, "{params}: {err:?}");
        assert!(
            err.message.contains(&format!("missing field `{field}`")),
            "{params}: the error names `{field}`: {err:?}"
        );
    }
    // Nothing was initialized by the refused requests.
    assert_code(
        host.connect(DEMO, &DEMO_CAPS, None).await,
        -32002,
        "connect after refused initializes",
    );
    host.initialize().await.expect("a complete initialize");
    host.connect(DEMO, &DEMO_CAPS, None)
        .await
        .expect("connect after initialize");
    host.assert_invariants();
}

#[tokio::test]
async fn availability_and_cache_key_without_options_are_invalid_params() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    for method in ["provider/availability", "provider/catalogCacheKey"] {
        let err = refusal(host.request(method, json!({"providerId": DEMO})).await);
        assert_eq!(err.code, -32602, "{method}: {err:?}");
        assert!(
            err.message.contains("missing field `options`"),
            "{method}: the error names `options`: {err:?}"
        );
        host.request(method, json!({"providerId": DEMO, "options": {}}))
            .await
            .unwrap_or_else(|e| panic!("{method} with empty options: {e:?}"));
    }
    host.assert_invariants();
}
