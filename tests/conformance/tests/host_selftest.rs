//! The host checks itself against a scripted fake bridge (`sh -c`), so a green conformance run
//! cannot come from checks that never fire.

use agent_bridge_conformance::{input, BridgeHost, HostOptions, HOST_TIMEOUT};
use std::time::Duration;

async fn fake(script: &str) -> BridgeHost {
    let options = HostOptions {
        bin: Some("/bin/sh".into()),
        args: vec!["-c".into(), script.into()],
        request_timeout: Duration::from_millis(500),
        ..HostOptions::default()
    };
    BridgeHost::spawn_with(options).await.expect("spawn sh")
}

const EVENT: &str =
    r#"{"jsonrpc":"2.0","method":"provider/event","params":{"connectionId":"c1","event":"#;

#[tokio::test]
async fn misbehaviour_is_caught() {
    let script = format!(
        r#"read l; echo '{{"jsonrpc":"2.0","id":1,"result":{{}}}}'
echo 'garbage on stdout'
read l; echo '{{"jsonrpc":"2.0","id":2,"result":{{"connectionId":"c1","version":1,"capabilities":[]}}}}'
read l; echo '{{"jsonrpc":"2.0","id":3,"result":null}}'
echo '{EVENT}{{"type":"catalog","requestId":"r1","catalog":{{"models":[],"modes":[]}}}}}}}}'
echo '{EVENT}{{"type":"request.completed","requestId":"r1"}}}}}}'
echo '{EVENT}{{"type":"session.turn","sessionId":"x","turnId":"t","state":"failed","error":null}}}}}}'
echo '{EVENT}{{"type":"session.turn","sessionId":"x","turnId":"t","state":"exploded"}}}}}}'
sleep 5"#
    );
    let host = fake(&script).await;
    host.initialize().await.expect("fake initialize");
    let (conn, _) = host
        .connect("demo", &["prompt.message"], None)
        .await
        .expect("fake connect");
    host.send(&conn, input::catalog("r1"))
        .await
        .expect("fake admission");
    host.wait_event(
        |e| e.turn_state() == Some("exploded"),
        Duration::from_secs(2),
    )
    .await
    .expect("the last scripted event");
    let violations = host.violations().join("\n");
    for needle in [
        "not JSON",
        "second answer for request `r1`",
        "optional field `event.error` is null",
        "session `x` that was never opened",
        "schema:",
    ] {
        assert!(
            violations.contains(needle),
            "`{needle}` not reported in:\n{violations}"
        );
    }
    let panicked =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| host.assert_invariants()));
    assert!(
        panicked.is_err(),
        "assert_invariants must fail on violations"
    );
}

#[tokio::test]
async fn silence_is_a_timeout_and_exit_ends_waits() {
    let host = fake("read l; sleep 1").await;
    let err = host.initialize().await.expect_err("no answer");
    assert_eq!(err.code, HOST_TIMEOUT, "{err:?}");
    let waited = host.wait_event(|_| true, Duration::from_secs(5)).await;
    assert!(waited.is_err(), "a wait ends when the bridge closes stdout");
    host.wait_exit(Duration::from_secs(2))
        .await
        .expect("the fake exits");
}
