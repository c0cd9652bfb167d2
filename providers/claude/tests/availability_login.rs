//! Availability against the real pinned `claude` (its own `claude auth status`), without a
//! model turn: with an empty HOME and no key it is unrunnable and says what to do; with the
//! test rig's setup (ANTHROPIC_API_KEY + ANTHROPIC_BASE_URL at the mock) it is available.
//! Both runs keep the rig's proxy trap and base URL, so nothing leaves loopback.

use agent_bridge_claude::ClaudeProvider;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{Provider, ProviderContext};
use agent_bridge_protocol::{AvailabilityStatus, ProviderCatalogOptions};
use mock_llm::MockLlm;
use pretty_assertions::assert_eq;
use std::collections::BTreeMap;
use std::path::Path;

fn ctx(cli: &Path, env: BTreeMap<String, String>) -> ProviderContext {
    ProviderContext {
        launch: LaunchOverride {
            command: Some(cli.display().to_string()),
            env: Some(env),
            ..LaunchOverride::default()
        },
        ..Default::default()
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_logged_in_is_unrunnable_and_the_rig_setup_is_available() {
    let Some(claude) = mock_llm::require_cli("claude") else {
        return;
    };
    let mock = MockLlm::start().await.expect("mock");
    let root = tempfile::tempdir().expect("root");
    let rig = mock_llm::hermetic::claude(&mock, root.path()).expect("hermetic env");
    let options = ProviderCatalogOptions::default();

    // An empty HOME (and config dir) and no key: what a fresh install looks like.
    let mut logged_out = rig.env.clone();
    logged_out.remove("ANTHROPIC_API_KEY");
    let a = ClaudeProvider::new()
        .availability(&ctx(&claude, logged_out), &options)
        .await;
    assert_eq!(
        (a.status, a.diagnostic.as_deref()),
        (
            AvailabilityStatus::Unrunnable,
            Some("Claude Code is not logged in: run `claude /login` or set ANTHROPIC_API_KEY")
        )
    );

    let a = ClaudeProvider::new()
        .availability(&ctx(&claude, rig.env.clone()), &options)
        .await;
    assert_eq!(
        (a.status, a.diagnostic),
        (AvailabilityStatus::Available, None),
        "the rig's ANTHROPIC_API_KEY setup is logged in"
    );

    // An ANTHROPIC_AUTH_TOKEN (a gateway's bearer token) counts as a login too.
    let mut token = rig.env.clone();
    token.remove("ANTHROPIC_API_KEY");
    token.insert("ANTHROPIC_AUTH_TOKEN".into(), "sk-test".into());
    let a = ClaudeProvider::new()
        .availability(&ctx(&claude, token), &options)
        .await;
    assert_eq!(a.status, AvailabilityStatus::Available, "{a:?}");

    assert!(
        mock.model_requests().is_empty(),
        "availability started no model turn: {:?}",
        mock.model_requests()
    );
    assert!(
        mock.proxy_refused().is_empty(),
        "{:?}",
        mock.proxy_refused()
    );
    mock_llm::report_ok(
        "claude",
        &mock_llm::cli_version(&claude).unwrap_or_else(|| "unknown".into()),
        "availability-login",
    );
}
