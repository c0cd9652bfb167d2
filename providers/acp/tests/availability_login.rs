//! Availability of the ACP agents that need a login, against the real pinned CLIs and without
//! a model turn: with an empty HOME (no key, no login method chosen) each is unrunnable,
//! naming what to do and the agent's own `authMethods`; with the test rig's setup each is
//! available (Gemini and Qwen from the profile's evidence, codex-acp from a `session/new`
//! probe against the rig's `model_provider`). The proxy trap is on in every run.

use agent_bridge_acp::profile;
use agent_bridge_acp::AcpProvider;
use agent_bridge_core::login;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{Provider, ProviderContext};
use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability, ProviderCatalogOptions};
use mock_llm::{HermeticEnv, MockLlm};
use std::collections::BTreeMap;
use std::path::Path;

/// The availability, asked again while the login check could not tell yet (a slow agent's
/// probe goes on in the background and is remembered; it gives up after 40 s).
async fn availability(
    provider: &AcpProvider,
    cli: &Path,
    env: &BTreeMap<String, String>,
) -> ProviderAvailability {
    let ctx = ProviderContext {
        launch: LaunchOverride {
            command: Some(cli.display().to_string()),
            env: Some(env.clone()),
            ..LaunchOverride::default()
        },
        ..Default::default()
    };
    let options = ProviderCatalogOptions::default();
    let mut a = provider.availability(&ctx, &options).await;
    for _ in 0..8 {
        if !login::is_unchecked(&a) {
            break;
        }
        a = provider.availability(&ctx, &options).await;
    }
    a
}

fn proxy_trap(env: &mut BTreeMap<String, String>, mock: &MockLlm) {
    for k in ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"] {
        env.insert(k.into(), mock.proxy_url());
        env.insert(k.to_ascii_lowercase(), mock.proxy_url());
    }
}

/// The settings file of the rig without its chosen login method (telemetry and updates stay
/// off).
fn forget_login_method(rig: &HermeticEnv) {
    let path = rig.config_dir.join("settings.json");
    let text = std::fs::read_to_string(&path).expect("settings.json");
    let mut settings: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    if let Some(security) = settings.get_mut("security").and_then(|s| s.as_object_mut()) {
        security.remove("auth");
    }
    std::fs::write(&path, settings.to_string()).expect("write settings.json");
}

fn provider(name: &str) -> AcpProvider {
    AcpProvider::new(profile::builtin(name).expect("a built-in profile"))
}

fn assert_logged_out(a: &ProviderAvailability, label: &str, method: &str) {
    assert_eq!(a.status, AvailabilityStatus::Unrunnable, "{a:?}");
    let d = a.diagnostic.as_deref().unwrap_or_default();
    assert!(d.starts_with(&format!("{label} is not logged in: ")), "{d}");
    assert!(
        d.contains(method),
        "the agent's login methods are named: {d}"
    );
}

fn report(cli: &str, path: &Path) {
    let version = mock_llm::cli_version(path)
        .or_else(|| mock_llm::package_version(path))
        .unwrap_or_else(|| "unknown".into());
    mock_llm::report_ok(cli, &version, "availability-login");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_without_a_login_is_unrunnable() {
    let Some(cli) = mock_llm::require_cli("gemini") else {
        return;
    };
    let mock = MockLlm::start().await.expect("mock");
    let root = tempfile::tempdir().expect("root");
    let rig = mock_llm::hermetic::gemini(&mock, root.path()).expect("hermetic env");
    let a = availability(&provider("gemini"), &cli, &rig.env).await;
    assert_eq!(
        (a.status, a.diagnostic),
        (AvailabilityStatus::Available, None)
    );

    forget_login_method(&rig);
    let mut env = rig.env.clone();
    env.remove("GEMINI_API_KEY");
    env.remove("GOOGLE_GEMINI_BASE_URL");
    let a = availability(&provider("gemini"), &cli, &env).await;
    assert_logged_out(&a, "Gemini CLI", "Log in with Google");
    assert!(mock.model_requests().is_empty(), "no model turn");
    report("gemini", &cli);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qwen_without_a_login_is_unrunnable() {
    let Some(cli) = mock_llm::require_cli("qwen") else {
        return;
    };
    let mock = MockLlm::start().await.expect("mock");
    let root = tempfile::tempdir().expect("root");
    let rig = mock_llm::hermetic::qwen(&mock, root.path()).expect("hermetic env");
    let a = availability(&provider("qwen"), &cli, &rig.env).await;
    assert_eq!(
        (a.status, a.diagnostic),
        (AvailabilityStatus::Available, None)
    );

    forget_login_method(&rig);
    let mut env = rig.env.clone();
    for k in ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"] {
        env.remove(k);
    }
    // Qwen ignores NO_PROXY, so the rig gives it no proxy; here it needs no model, so the
    // trap catches anything it would send.
    proxy_trap(&mut env, &mock);
    let a = availability(&provider("qwen"), &cli, &env).await;
    assert_logged_out(&a, "Qwen Code", "Use OpenAI API key");
    assert!(mock.model_requests().is_empty(), "no model turn");
    report("qwen", &cli);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_acp_without_a_login_is_unrunnable() {
    let Some(cli) = mock_llm::require_cli("codex-acp") else {
        return;
    };
    let mock = MockLlm::start().await.expect("mock");
    let root = tempfile::tempdir().expect("root");
    let rig = mock_llm::hermetic::codex_acp(&mock, root.path()).expect("hermetic env");
    // No auth.json: the probe's session/new decides (the rig's provider needs no login).
    let a = availability(&provider("codex-acp"), &cli, &rig.env).await;
    assert_eq!(
        (a.status, a.diagnostic),
        (AvailabilityStatus::Available, None)
    );

    let empty = root.path().join("empty-codex-home");
    std::fs::create_dir_all(&empty).expect("empty CODEX_HOME");
    std::fs::write(
        empty.join("config.toml"),
        "check_for_update_on_startup = false\n[features]\nplugins = false\n[analytics]\nenabled = false\n",
    )
    .expect("config.toml");
    let mut env = rig.env.clone();
    env.insert("CODEX_HOME".into(), empty.display().to_string());
    let a = availability(&provider("codex-acp"), &cli, &env).await;
    assert_logged_out(&a, "codex-acp", "Login with ChatGPT");
    assert!(mock.model_requests().is_empty(), "no model turn");
    report("codex-acp", &cli);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_agent_acp_without_a_claude_login_is_unrunnable() {
    let Some(cli) = mock_llm::require_cli("claude-agent-acp") else {
        return;
    };
    let Some(claude) = mock_llm::require_cli("claude") else {
        return;
    };
    let mock = MockLlm::start().await.expect("mock");
    let root = tempfile::tempdir().expect("root");
    let rig = mock_llm::hermetic::claude_agent_acp(&mock, root.path()).expect("hermetic env");
    // The rig's key is the evidence.
    let a = availability(&provider("claude-acp"), &cli, &rig.env).await;
    assert_eq!(
        (a.status, a.diagnostic),
        (AvailabilityStatus::Available, None)
    );

    // No key, an empty HOME: Claude Code's own `claude auth status` says not logged in.
    let home = root.path().join("empty-home");
    std::fs::create_dir_all(&home).expect("empty HOME");
    let mut env: BTreeMap<String, String> = rig
        .env
        .iter()
        .filter(|(k, _)| !k.starts_with("ANTHROPIC_") && !k.starts_with("CLAUDE_"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    env.insert("HOME".into(), home.display().to_string());
    env.insert(
        "CLAUDE_CODE_EXECUTABLE".into(),
        claude.display().to_string(),
    );
    proxy_trap(&mut env, &mock);
    let a = availability(&provider("claude-acp"), &cli, &env).await;
    assert_eq!(a.status, AvailabilityStatus::Unrunnable, "{a:?}");
    let d = a.diagnostic.as_deref().unwrap_or_default();
    assert!(
        d.starts_with("claude-agent-acp is not logged in: run `claude /login`"),
        "{d}"
    );
    assert!(mock.model_requests().is_empty(), "no model turn");
    report("claude-agent-acp", &cli);
}
