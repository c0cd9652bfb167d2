//! Codex (pinned) directly against the mock: `codex exec --json --skip-git-repo-check`.

mod common;

use common::{assert_only_families, assert_tool_round_trip, report, run_cli, TOOL_PROMPT};
use mock_llm::{hermetic, require_cli, Family, MockLlm};

/// The text of the last `agent_message` item.
fn agent_text(run: &common::CliRun) -> String {
    run.of_type("item.completed")
        .iter()
        .filter(|e| e["item"]["type"] == "agent_message")
        .filter_map(|e| e["item"]["text"].as_str())
        .next_back()
        .unwrap_or_else(|| panic!("no agent_message:\n{}", run.stdout))
        .to_string()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn codex_text_turn() {
    let Some(cli) = require_cli("codex") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::codex(&mock, root.path()).unwrap();
    let run = run_cli(
        &env,
        &cli,
        &["exec", "--json", "--skip-git-repo-check", "say hi"],
    )
    .await;
    run.assert_success("codex exec");
    assert!(agent_text(&run).contains("hi!"), "{}", run.stdout);
    assert!(!run.of_type("turn.completed").is_empty());
    let calls = assert_only_families(&mock, &[Family::OpenaiResponses]);
    assert!(!calls.is_empty());
    for r in &calls {
        assert_eq!(r.path, "/v1/responses");
        assert_eq!(r.header("authorization"), Some("Bearer sk-test"));
    }
    report("codex", &cli, "say-hi", &run);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn codex_shell_tool_turn() {
    let Some(cli) = require_cli("codex") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::codex(&mock, root.path()).unwrap();
    let run = run_cli(
        &env,
        &cli,
        &["exec", "--json", "--skip-git-repo-check", TOOL_PROMPT],
    )
    .await;
    run.assert_success("codex exec (tool)");
    let ran = run.of_type("item.completed").iter().any(|e| {
        e["item"]["type"] == "command_execution"
            && e["item"]["aggregated_output"]
                .as_str()
                .is_some_and(|o| o.contains("hello"))
    });
    assert!(
        ran,
        "no command_execution with output hello:\n{}",
        run.stdout
    );
    let text = agent_text(&run);
    assert!(text.contains("Done. The command printed: hello"), "{text}");
    assert_only_families(&mock, &[Family::OpenaiResponses]);
    assert_tool_round_trip(&mock, "exec_command");
    report("codex", &cli, "shell-tool", &run);
}
