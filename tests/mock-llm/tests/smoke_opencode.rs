//! OpenCode (pinned) directly against the mock: `opencode run --format json`.
//! Expected besides the chat calls (a tool-less title call, then the main loop): the
//! background install of `@opencode-ai/plugin`, redirected to the mock's `/npm/` (404).
//! No proxy-refused request is expected.

mod common;

use common::{assert_only_families, assert_tool_round_trip, report, run_cli, TOOL_PROMPT};
use mock_llm::{hermetic, require_cli, Family, MockLlm};

fn texts(run: &common::CliRun) -> String {
    run.of_type("text")
        .iter()
        .filter_map(|e| e["part"]["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_opencode_requests(mock: &MockLlm) {
    let calls = assert_only_families(mock, &[Family::OpenaiChat, Family::NpmRegistry]);
    for r in &calls {
        assert_eq!(r.path, "/v1/chat/completions");
    }
    assert!(
        calls
            .iter()
            .any(|r| r.tool_names().iter().any(|t| t == "bash")),
        "bash not declared"
    );
    for r in mock.requests_of(Family::NpmRegistry) {
        assert!(r.path.starts_with("/npm/"), "{}", r.path);
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn opencode_text_turn() {
    let Some(cli) = require_cli("opencode") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::opencode(&mock, root.path()).unwrap();
    let run = run_cli(&env, &cli, &["run", "--format", "json", "say hi"]).await;
    run.assert_success("opencode run");
    assert!(texts(&run).contains("hi!"), "{}", run.stdout);
    assert_opencode_requests(&mock);
    report("opencode", &cli, "say-hi", &run);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn opencode_shell_tool_turn() {
    let Some(cli) = require_cli("opencode") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::opencode(&mock, root.path()).unwrap();
    let run = run_cli(&env, &cli, &["run", "--format", "json", TOOL_PROMPT]).await;
    run.assert_success("opencode run (tool)");
    let ran = run.of_type("tool_use").iter().any(|e| {
        e["part"]["tool"] == "bash"
            && e["part"]["state"]["output"]
                .as_str()
                .is_some_and(|o| o.contains("hello"))
    });
    assert!(ran, "no bash tool_use with output hello:\n{}", run.stdout);
    let text = texts(&run);
    assert!(text.contains("Done. The command printed: hello"), "{text}");
    assert_opencode_requests(&mock);
    assert_tool_round_trip(&mock, "bash");
    report("opencode", &cli, "shell-tool", &run);
}
