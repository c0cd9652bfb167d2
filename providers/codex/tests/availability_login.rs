//! Availability against the real pinned `codex` (its app-server's `account/read`), without a
//! model turn: with an empty CODEX_HOME (the default OpenAI provider, no login) it is
//! unrunnable and says what to do, even with OPENAI_API_KEY set (0.171's app-server does not
//! read it); with the test rig's setup (a `model_provider` at the mock whose key is an
//! `env_key`) it is available. The proxy trap stays on, so nothing leaves loopback.

use agent_bridge_codex::CodexProvider;
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
    let Some(codex) = mock_llm::require_cli("codex") else {
        return;
    };
    let mock = MockLlm::start().await.expect("mock");
    let root = tempfile::tempdir().expect("root");
    let rig = mock_llm::hermetic::codex(&mock, root.path()).expect("hermetic env");
    let options = ProviderCatalogOptions::default();

    // A fresh CODEX_HOME: no auth.json, the default provider. Its config only keeps the
    // plugin sync and update check off (they would try the network).
    let empty = root.path().join("empty-codex-home");
    std::fs::create_dir_all(&empty).expect("empty CODEX_HOME");
    std::fs::write(
        empty.join("config.toml"),
        "check_for_update_on_startup = false\n[features]\nplugins = false\n[analytics]\nenabled = false\n",
    )
    .expect("config.toml");
    let mut logged_out = rig.env.clone();
    logged_out.insert("CODEX_HOME".into(), empty.display().to_string());
    logged_out.insert("OPENAI_API_KEY".into(), "sk-test".into());
    let a = CodexProvider::new()
        .availability(&ctx(&codex, logged_out), &options)
        .await;
    assert_eq!(a.status, AvailabilityStatus::Unrunnable, "{a:?}");
    let d = a.diagnostic.unwrap_or_default();
    assert!(
        d.starts_with("Codex is not logged in: run `codex login`"),
        "{d}"
    );

    let a = CodexProvider::new()
        .availability(&ctx(&codex, rig.env.clone()), &options)
        .await;
    assert_eq!(a.status, AvailabilityStatus::Available, "{a:?}");
    if let Some(d) = a.diagnostic.as_deref() {
        assert!(
            d.contains("sandbox"),
            "only a sandbox note is expected: {d}"
        );
    }

    assert!(
        mock.model_requests().is_empty(),
        "availability started no model turn: {:?}",
        mock.model_requests()
    );
    mock_llm::report_ok(
        "codex",
        &mock_llm::cli_version(&codex).unwrap_or_else(|| "unknown".into()),
        "availability-login",
    );
}
