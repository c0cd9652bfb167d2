//! The wire names the provider relies on, pinned in `schema/methods.json` (derived from
//! `codex app-server generate-json-schema` of codex-cli 0.171.0):
//! - without a CLI: the crate's constants and serde spellings agree with the file;
//! - with the pinned CLI: every name in the file still exists in the installed CLI's schema.

use agent_bridge_codex::catalog::MODES;
use agent_bridge_codex::options;
use agent_bridge_codex::wire::items::{ItemStatus, ThreadItem};
use agent_bridge_codex::wire::notify::method;
use agent_bridge_codex::wire::thread::TurnStatus;
use agent_bridge_protocol::ProviderControl;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

fn pinned() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/methods.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("methods.json")).expect("JSON")
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_crate_uses_only_pinned_names() {
    let p = pinned();
    let client = strings(&p["clientMethods"]);
    for m in method::CLIENT_METHODS {
        assert!(client.contains(*m), "client method {m} not pinned");
    }
    let server = strings(&p["serverRequests"]);
    for m in method::SERVER_REQUESTS {
        assert!(server.contains(*m), "server request {m} not pinned");
    }
    let notes = strings(&p["notifications"]);
    for m in method::NOTIFICATIONS {
        assert!(notes.contains(*m), "notification {m} not pinned");
    }
    let approvals = strings(&p["enums"]["AskForApproval"]);
    let sandboxes = strings(&p["enums"]["SandboxMode"]);
    for m in MODES {
        assert!(approvals.contains(m.approval), "{}", m.approval);
        assert!(sandboxes.contains(m.sandbox), "{}", m.sandbox);
    }
    let decisions = strings(&p["enums"]["CommandExecutionApprovalDecision"]);
    for d in ["accept", "acceptForSession", "decline", "cancel"] {
        assert!(decisions.contains(d), "{d}");
    }
    // A sub-agent in one of these states has ended (its child session closes).
    let states = strings(&p["enums"]["CollabAgentStatus"]);
    for st in ["shutdown", "notFound"] {
        assert!(states.contains(st), "{st}");
    }
    // MCP elicitations are answered with these actions.
    let actions = strings(&p["enums"]["McpServerElicitationAction"]);
    for a in ["accept", "decline", "cancel"] {
        assert!(actions.contains(a), "{a}");
    }
    // The controls offer only values Codex takes.
    for control in options::controls(&options::Controls::default()) {
        let (key, values): (&str, Vec<String>) = match &control {
            ProviderControl::Select { key, choices, .. } => {
                (key, choices.iter().map(|c| c.value.clone()).collect())
            }
            ProviderControl::Toggle { .. } => continue,
        };
        let pinned = match key {
            options::WEB_SEARCH => strings(&p["enums"]["WebSearchMode"]),
            options::REASONING_SUMMARY => strings(&p["enums"]["ReasoningSummary"]),
            other => panic!("unchecked select control {other}"),
        };
        for v in values {
            assert!(pinned.contains(&v), "{key}: {v}");
        }
    }
}

#[test]
fn every_pinned_status_reads_as_a_known_variant() {
    let p = pinned();
    for key in [
        "CommandExecutionStatus",
        "PatchApplyStatus",
        "McpToolCallStatus",
        "CollabAgentToolCallStatus",
    ] {
        for s in strings(&p["enums"][key]) {
            let st: ItemStatus = serde_json::from_value(json!(s)).expect("status");
            assert_ne!(st, ItemStatus::Unknown, "{key}: {s}");
        }
    }
    for s in strings(&p["enums"]["TurnStatus"]) {
        let st: TurnStatus = serde_json::from_value(json!(s)).expect("turn status");
        assert_ne!(st, TurnStatus::Unknown, "{s}");
    }
    // Item types the bridge renders read as their own variant; the rest fall to `Other`.
    let rendered = [
        "userMessage",
        "agentMessage",
        "plan",
        "reasoning",
        "commandExecution",
        "fileChange",
        "mcpToolCall",
        "dynamicToolCall",
        "collabAgentToolCall",
        "webSearch",
        "imageView",
        "enteredReviewMode",
        "exitedReviewMode",
        "contextCompaction",
    ];
    let types = strings(&p["threadItemTypes"]);
    for t in types {
        let item: ThreadItem = serde_json::from_value(json!({"type": t, "id": "x"})).expect("item");
        assert_eq!(
            item != ThreadItem::Other,
            rendered.contains(&t.as_str()),
            "{t}"
        );
    }
}

fn enum_values(def: &Value) -> BTreeSet<String> {
    let mut out = strings(&def["enum"]);
    for key in ["oneOf", "anyOf"] {
        for alt in def[key].as_array().into_iter().flatten() {
            out.extend(strings(&alt["enum"]));
            if let Some(t) = alt.pointer("/properties/type/enum") {
                out.extend(strings(t));
            }
        }
    }
    out
}

fn methods_of(dir: &Path, file: &str) -> BTreeSet<String> {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(file)).expect(file)).expect("JSON");
    v["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|alt| strings(&alt["properties"]["method"]["enum"]))
        .collect()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[test]
fn the_installed_cli_still_speaks_every_pinned_name() {
    let Some(codex) = mock_llm::require_cli("codex") else {
        return;
    };
    let out_dir = tempfile::tempdir().expect("tempdir");
    let home = tempfile::tempdir().expect("home");
    std::fs::create_dir_all(home.path().join(".codex")).expect("CODEX_HOME");
    let status = std::process::Command::new(&codex)
        .args(["app-server", "generate-json-schema", "--out"])
        .arg(out_dir.path())
        .env("HOME", home.path())
        .env("CODEX_HOME", home.path().join(".codex"))
        .stdin(std::process::Stdio::null())
        .status()
        .expect("codex runs");
    assert!(status.success(), "generate-json-schema failed");
    let dir = out_dir.path();
    let p = pinned();
    for (key, file) in [
        ("clientMethods", "ClientRequest.json"),
        ("serverRequests", "ServerRequest.json"),
        ("notifications", "ServerNotification.json"),
    ] {
        let have = methods_of(dir, file);
        let missing: Vec<_> = strings(&p[key]).difference(&have).cloned().collect();
        assert!(
            missing.is_empty(),
            "{key} gone from the installed codex: {missing:?}"
        );
    }
    let v2: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("codex_app_server_protocol.v2.schemas.json"))
            .expect("v2 bundle"),
    )
    .expect("JSON");
    let defs = &v2["definitions"];
    let items = enum_values(&defs["ThreadItem"]);
    let missing: Vec<_> = strings(&p["threadItemTypes"])
        .difference(&items)
        .cloned()
        .collect();
    assert!(missing.is_empty(), "item types gone: {missing:?}");
    for (key, def) in [
        ("AskForApproval", "AskForApproval"),
        ("SandboxMode", "SandboxMode"),
        ("SandboxPolicy.type", "SandboxPolicy"),
        ("TurnStatus", "TurnStatus"),
        ("CommandExecutionStatus", "CommandExecutionStatus"),
        ("PatchApplyStatus", "PatchApplyStatus"),
        ("McpToolCallStatus", "McpToolCallStatus"),
        ("CollabAgentToolCallStatus", "CollabAgentToolCallStatus"),
        ("CollabAgentStatus", "CollabAgentStatus"),
        ("TurnPlanStepStatus", "TurnPlanStepStatus"),
        ("ReasoningSummary", "ReasoningSummary"),
        ("WebSearchMode", "WebSearchMode"),
    ] {
        let have = enum_values(&defs[def]);
        let missing: Vec<_> = strings(&p["enums"][key])
            .difference(&have)
            .cloned()
            .collect();
        assert!(
            missing.is_empty(),
            "{key} values gone: {missing:?} (have {have:?})"
        );
    }
    // The elicitation answer's actions live in the server request's own schema file.
    let elicit: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("McpServerElicitationRequestResponse.json"))
            .expect("elicitation response"),
    )
    .expect("JSON");
    let have = enum_values(&elicit["definitions"]["McpServerElicitationAction"]);
    let missing: Vec<_> = strings(&p["enums"]["McpServerElicitationAction"])
        .difference(&have)
        .cloned()
        .collect();
    assert!(missing.is_empty(), "elicitation actions gone: {missing:?}");
    let decisions: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("CommandExecutionRequestApprovalResponse.json"))
            .expect("decision"),
    )
    .expect("JSON");
    let have = enum_values(&decisions["definitions"]["CommandExecutionApprovalDecision"]);
    let missing: Vec<_> = strings(&p["enums"]["CommandExecutionApprovalDecision"])
        .difference(&have)
        .cloned()
        .collect();
    assert!(missing.is_empty(), "decisions gone: {missing:?}");
}
