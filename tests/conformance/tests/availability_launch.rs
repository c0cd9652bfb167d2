//! `provider/availability` with a `launch`: the probe runs the launched program, as the
//! connection that launch opens would, not the provider's default.

mod common;
use common::*;

/// `provider/availability` probes the launch it is given (the one a connect would use), not the
/// provider's default.
#[tokio::test]
async fn availability_probes_the_given_launch() {
    let host = BridgeHost::spawn().await.expect("spawn");
    host.initialize().await.expect("initialize");
    let probe = |command: &str| {
        json!({"providerId": "claude-bridge", "options": {},
            "launch": {"command": command, "args": [], "env": {"PATH": "/usr/bin:/bin"}}})
    };
    let missing = host
        .request(
            "provider/availability",
            probe("/nonexistent/agent-bridge-test/claude"),
        )
        .await
        .expect("availability");
    assert_eq!(missing["status"], "missing", "{missing}");
    assert!(
        missing["diagnostic"]
            .as_str()
            .is_some_and(|d| d.contains("/nonexistent/agent-bridge-test/claude")),
        "the diagnostic names the launched program: {missing}"
    );
    let found = host
        .request("provider/availability", probe("/bin/true"))
        .await
        .expect("availability");
    assert_ne!(found["status"], "missing", "{found}");
    host.assert_invariants();
}
