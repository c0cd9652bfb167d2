//! Availability and start-up failures against stand-in `codex` executables (shell scripts), for
//! the branches the real, working CLI cannot show: an old version, a broken sandbox, a CLI that
//! does not run, and an app-server that dies at start.

use agent_bridge_codex::CodexProvider;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::{OpenRequest, Provider, ProviderContext, SessionSink};
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
        r#"case "$1" in
  --version) echo "codex-cli 0.171.0" ;;
  sandbox) echo "bwrap: No permissions to create new namespace" >&2; exit 1 ;;
esac"#,
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
        r#"case "$1" in --version) echo "codex-cli 0.172.1" ;; sandbox) exit 0 ;; esac"#,
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
    assert_eq!(err.code.as_deref(), Some("runtime_exited"), "{err:?}");
    assert!(err
        .diagnostic
        .unwrap_or_default()
        .contains("unknown field `modle`"));
}
