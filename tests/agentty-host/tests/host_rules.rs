//! The emulator's own rules, with small stand-in plugins (shell scripts): where Agentty is
//! lenient (an unknown field in a tree is ignored, stray stdout is logged) and where it is strict
//! (an unknown node type refuses the tree), what `initialize` says, and what a line over 16 MB
//! does (Agentty stops reading that plugin's stdout for good; the plugin runs on).

use agentty_host::install::install_folder;
use agentty_host::{AgenttyHost, Consent, HostOptions};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// Installs a plugin whose `main` is `script` (sh) and starts it under the emulated host.
fn start(root: &Path, script: &str) -> AgenttyHost {
    let src = root.join("src");
    std::fs::create_dir_all(&src).expect("folder");
    let manifest = json!({"id": "stand-in", "name": "Stand-in", "version": "0.1.0",
        "main": "main.sh", "runtime": "executable", "apiVersion": 1});
    std::fs::write(src.join("agentty-plugin.json"), manifest.to_string()).expect("manifest");
    std::fs::write(src.join("main.sh"), format!("#!/bin/sh\n{script}\n")).expect("main");
    std::fs::set_permissions(src.join("main.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let plugin_dir = install_folder(&root.join("plugins"), &src).expect("installed");
    let mut env = std::collections::BTreeMap::new();
    env.insert("PATH".to_string(), "/usr/bin:/bin".to_string());
    AgenttyHost::start(HostOptions {
        plugin_dir,
        data_dir: root.join("plugin-data/stand-in"),
        env,
        context: json!({"workspace": null, "pane": null, "language": "en"}),
        session_get: None,
        consent: Consent::Refuse,
    })
    .expect("no permission: started without asking")
}

#[test]
fn initialize_carries_the_hosts_own_api_version() {
    let root = tempfile::tempdir().expect("root");
    // Echoes what it was sent to stderr (its log) and answers.
    let host = start(
        root.path(),
        r#"read line; echo "$line" >&2
echo '{"jsonrpc":"2.0","id":1,"result":{}}'
echo '{"jsonrpc":"2.0","id":1,"method":"ui/setPanel","params":{"tree":{"type":"text","text":"hi"}}}'
cat >/dev/null"#,
    );
    host.initialize();
    // Its stderr is read apart from its stdout: the answer may come in before the log line.
    let sent = host.wait_for("the echoed initialize", WAIT, |s| s.logs.first().cloned());
    let init: serde_json::Value = serde_json::from_str(&sent).expect("initialize");
    assert_eq!(
        init["params"]["apiVersion"], 4,
        "the host's, not the manifest's 1"
    );
    assert_eq!(host.consent_asked, None, "no permission, no question");
    host.close_stdin();
    host.wait_for("exit", WAIT, |s| s.exited);
}

#[test]
fn an_unknown_field_is_ignored_and_an_unknown_node_type_refused() {
    let root = tempfile::tempdir().expect("root");
    let host = start(
        root.path(),
        r#"echo '{"jsonrpc":"2.0","id":1,"method":"ui/setPanel","params":{"tree":{"type":"column","children":[{"type":"text","text":"ok","colour":"red"}]}}}'
echo 'hello from console.log'
echo '{"jsonrpc":"2.0","id":2,"method":"ui/setPanel","params":{"tree":{"type":"frame","children":[]}}}'
cat >/dev/null"#,
    );
    host.wait_for("both trees", WAIT, |s| {
        (s.sent("ui/setPanel").len() == 2).then_some(())
    });
    let (panel, violations, notes, logs) = host.with(|s| {
        (
            s.panel.clone(),
            s.violations.clone(),
            s.notes.clone(),
            s.logs.clone(),
        )
    });
    assert_eq!(
        panel.expect("the first tree is drawn")["children"][0]["text"],
        "ok"
    );
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert!(
        violations[0].contains("unknown node type `frame`"),
        "{violations:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("unknown field `colour` (ignored)")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("hello from console.log")),
        "{notes:?}"
    );
    assert!(
        logs.contains(&"stdout: hello from console.log".to_string()),
        "{logs:?}"
    );
    host.close_stdin();
    host.wait_for("exit", WAIT, |s| s.exited);
}

#[test]
fn a_line_over_16_mb_ends_the_reading_of_stdout_for_good() {
    let root = tempfile::tempdir().expect("root");
    // A line of 17 MB, then a message the host never reads; the plugin goes on running.
    let host = start(
        root.path(),
        r#"trap "" PIPE
head -c 17000000 /dev/zero | tr '\0' x; echo
echo '{"jsonrpc":"2.0","method":"ui/showPanel","params":{}}'
cat >/dev/null"#,
    );
    host.wait_for("stdout closed", Duration::from_secs(30), |s| {
        s.stdout_closed.then_some(())
    });
    let (shown, exited, logs) = host.with(|s| (s.shown, s.exited, s.logs.clone()));
    assert!(!shown, "the message after the long line is never read");
    assert_eq!(exited, None, "the plugin runs on");
    assert!(
        logs.iter()
            .any(|l| l == "agentty: plugin sent a message larger than 16 MB"),
        "{logs:?}"
    );
    host.close_stdin();
    host.wait_for("exit", WAIT, |s| s.exited);
}
