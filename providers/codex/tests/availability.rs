//! Availability and start-up failures against stand-in `codex` executables (shell scripts), for
//! the branches the real, working CLI cannot show: an old version, a broken sandbox, a CLI that
//! does not run, a login state, and an app-server that dies at start.

use agent_bridge_codex::CodexProvider;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{OpenRequest, Provider, ProviderContext, SessionSink};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    AvailabilityStatus, HistoryMode, ProviderCatalogOptions, ProviderSessionConfig,
};
use pretty_assertions::assert_eq;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Serializes the tests of this file: a script written while the other test forks a child can
/// fail to exec with "Text file busy" (the child briefly inherits the write descriptor).
static SCRIPTS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// A stand-in `codex app-server` that answers `initialize` and `account/read` with `account`
/// (the JSON of an `account/read` result), as the shell case of `app-server`.
fn app_server(account: &str) -> String {
    format!(
        r#"app-server)
    while IFS= read -r line; do
      id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
      case "$line" in
        *'"account/read"'*) printf '{{"id":%s,"result":%s}}\n' "$id" '{account}' ;;
        *'"initialize"'*) printf '{{"id":%s,"result":{{}}}}\n' "$id" ;;
      esac
    done ;;"#
    )
}

const LOGGED_IN: &str =
    r#"{"account":{"type":"chatgpt","email":null,"planType":"plus"},"requiresOpenaiAuth":true}"#;
const LOGGED_OUT: &str = r#"{"account":null,"requiresOpenaiAuth":true}"#;
const CUSTOM_PROVIDER: &str = r#"{"account":null,"requiresOpenaiAuth":false}"#;

fn ctx(program: &Path) -> ProviderContext {
    ProviderContext {
        launch: LaunchOverride {
            command: Some(program.display().to_string()),
            args: Vec::new(),
            env: None,
            ..LaunchOverride::default()
        },
        ..Default::default()
    }
}

#[tokio::test]
async fn versions_and_sandbox_problems_are_reported() {
    let _serial = SCRIPTS.lock().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let provider = CodexProvider::new();
    let options = ProviderCatalogOptions::default();

    let old = script(
        dir.path(),
        "old",
        r#"[ "$1" = "--version" ] && echo "codex-cli 0.99.0""#,
    );
    let a = provider.availability(&ctx(&old), &options).await;
    assert_eq!(a.status, AvailabilityStatus::Incompatible, "{a:?}");
    assert!(a.diagnostic.unwrap_or_default().contains("0.99.0"));

    let broken = script(dir.path(), "broken", "echo 'segfault' >&2; exit 139");
    let a = provider.availability(&ctx(&broken), &options).await;
    assert_eq!(a.status, AvailabilityStatus::Unrunnable, "{a:?}");

    let no_sandbox = script(
        dir.path(),
        "nosandbox",
        &format!(
            r#"case "$1" in
  --version) echo "codex-cli 0.171.0" ;;
  sandbox) echo "bwrap: No permissions to create new namespace" >&2; exit 1 ;;
  {}
esac"#,
            app_server(LOGGED_IN)
        ),
    );
    let a = provider.availability(&ctx(&no_sandbox), &options).await;
    assert_eq!(a.status, AvailabilityStatus::Available, "{a:?}");
    let d = a.diagnostic.unwrap_or_default();
    assert!(
        d.contains("No permissions to create new namespace") && d.contains("ask"),
        "{d}"
    );

    let fine = script(
        dir.path(),
        "fine",
        &format!(
            r#"case "$1" in --version) echo "codex-cli 0.172.1" ;; sandbox) exit 0 ;; {} esac"#,
            app_server(LOGGED_IN)
        ),
    );
    let a = provider.availability(&ctx(&fine), &options).await;
    assert_eq!(
        (a.status, a.diagnostic),
        (AvailabilityStatus::Available, None)
    );

    let missing = ctx(&dir.path().join("not-there"));
    let a = provider.availability(&missing, &options).await;
    assert_eq!(a.status, AvailabilityStatus::Missing, "{a:?}");
}

#[tokio::test]
async fn the_login_state_comes_from_account_read() {
    let _serial = SCRIPTS.lock().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let options = ProviderCatalogOptions::default();
    let codex = |name: &str, account: &str| {
        script(
            dir.path(),
            name,
            &format!(
                r#"case "$1" in --version) echo "codex-cli 0.171.0" ;; sandbox) exit 0 ;; {} esac"#,
                app_server(account)
            ),
        )
    };
    let out = codex("out", LOGGED_OUT);
    let a = CodexProvider::new()
        .availability(&ctx(&out), &options)
        .await;
    assert_eq!(a.status, AvailabilityStatus::Unrunnable, "{a:?}");
    let d = a.diagnostic.unwrap_or_default();
    assert!(
        d.starts_with("Codex is not logged in: run `codex login`"),
        "{d}"
    );

    let custom = codex("custom", CUSTOM_PROVIDER);
    let a = CodexProvider::new()
        .availability(&ctx(&custom), &options)
        .await;
    assert_eq!(
        (a.status, a.diagnostic),
        (AvailabilityStatus::Available, None),
        "a provider that needs no OpenAI login is available"
    );

    // An app-server that does not start makes the provider unrunnable, with its words.
    let broken = script(
        dir.path(),
        "broken-config",
        r#"case "$1" in
  --version) echo "codex-cli 0.171.0" ;;
  sandbox) exit 0 ;;
  app-server) echo 'error: config.toml: unknown field `modle`' >&2; exit 2 ;;
esac"#,
    );
    let a = CodexProvider::new()
        .availability(&ctx(&broken), &options)
        .await;
    assert_eq!(a.status, AvailabilityStatus::Unrunnable, "{a:?}");
    assert!(
        a.diagnostic
            .unwrap_or_default()
            .contains("unknown field `modle`"),
        "the CLI's words are kept"
    );
}

#[tokio::test]
async fn the_login_check_runs_once_until_the_login_changes() {
    let _serial = SCRIPTS.lock().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("codex-home");
    std::fs::create_dir_all(&home).expect("home");
    let log = dir.path().join("app-servers.log");
    // Logged in once `$CODEX_HOME/auth.json` exists; every app-server start is logged.
    let body = format!(
        r#"case "$1" in
  --version) echo "codex-cli 0.171.0" ;;
  sandbox) exit 0 ;;
  app-server) echo start >> '{log}'
    if [ -e "$CODEX_HOME/auth.json" ]; then account='{LOGGED_IN}'; else account='{LOGGED_OUT}'; fi
    while IFS= read -r line; do
      id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
      case "$line" in
        *'"account/read"'*) printf '{{"id":%s,"result":%s}}\n' "$id" "$account" ;;
        *'"initialize"'*) printf '{{"id":%s,"result":{{}}}}\n' "$id" ;;
      esac
    done ;;
esac"#,
        log = log.display()
    );
    let codex = script(dir.path(), "codex", &body);
    let mut context = ctx(&codex);
    context.launch.env = Some(std::collections::BTreeMap::from([
        ("CODEX_HOME".to_string(), home.display().to_string()),
        ("PATH".to_string(), "/usr/bin:/bin".to_string()),
    ]));
    let starts = || {
        std::fs::read_to_string(&log)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    let provider = CodexProvider::new();
    let options = ProviderCatalogOptions::default();
    let a = provider.availability(&context, &options).await;
    assert_eq!(a.status, AvailabilityStatus::Unrunnable, "{a:?}");
    let a = provider.availability(&context, &options).await;
    assert_eq!(a.status, AvailabilityStatus::Unrunnable, "{a:?}");
    assert_eq!(starts(), 1, "the second check is answered from the cache");
    std::fs::write(home.join("auth.json"), "{}").expect("log in");
    let a = provider.availability(&context, &options).await;
    assert_eq!(a.status, AvailabilityStatus::Available, "{a:?}");
    assert_eq!(starts(), 2, "a login (auth.json written) is checked again");
}

#[tokio::test]
async fn an_app_server_that_dies_at_start_fails_the_open_with_its_stderr() {
    let _serial = SCRIPTS.lock().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let dies = script(
        dir.path(),
        "dies",
        "echo 'error: config.toml: unknown field `modle`' >&2; exit 2",
    );
    let (sink, _events) = SessionSink::channel();
    let request = OpenRequest {
        session_id: "s1".into(),
        config: ProviderSessionConfig {
            cwd: dir.path().display().to_string(),
            ..Default::default()
        },
        scope: Default::default(),
        persistence: None,
        history: HistoryMode::Skip,
    };
    let err = match CodexProvider::new().open(&ctx(&dies), request, sink).await {
        Ok(_) => panic!("the open must fail"),
        Err(e) => e,
    };
    assert_eq!(err.code, Some(ErrorCode::RuntimeExited), "{err:?}");
    assert!(err
        .diagnostic
        .unwrap_or_default()
        .contains("unknown field `modle`"));
}
