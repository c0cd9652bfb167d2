//! Unit tests of the Codex provider's entry options.

use super::*;

fn provider(options: &str) -> CodexProvider {
    let entry =
        format!(r#"{{"id":"codex-bridge","label":"Codex","agent":"codex","options":{options}}}"#);
    CodexProvider::from_entry(
        &serde_json::from_str(&entry).expect("entry"),
        &agent_bridge_core::spares::Spares::from_env(),
    )
}

#[test]
fn sessions_share_app_servers_unless_the_entry_says_otherwise() {
    assert!(
        provider("{}").processes.shared().is_some(),
        "shared by default"
    );
    let own = provider(r#"{"processPerSession":true}"#);
    assert!(own.processes.shared().is_none());
    assert!(
        own.processes.prestarted().is_some(),
        "an app-server per session: prestarted spares"
    );
    assert!(
        provider("{}").processes.prestarted().is_none(),
        "shared: the idle process is the spare"
    );
    assert!(provider(r#"{"processPerSession":false}"#)
        .processes
        .shared()
        .is_some());
    assert!(
        provider(r#"{"processPerSession":"yes"}"#)
            .processes
            .shared()
            .is_some(),
        "a value that is no boolean is ignored"
    );
}
