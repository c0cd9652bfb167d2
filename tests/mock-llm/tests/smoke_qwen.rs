//! Qwen Code (pinned) directly against the mock: `qwen -p ... --output-format stream-json`.
//! Runs WITHOUT proxy variables (qwen ignores NO_PROXY and would tunnel 127.0.0.1 through
//! the proxy trap), so the proxy-refused check is vacuous here.

mod common;

use common::{assert_only_families, assert_tool_round_trip, report, run_cli, TOOL_PROMPT};
use mock_llm::{hermetic, require_cli, Family, MockLlm};

fn result_text(run: &common::CliRun) -> String {
    let result = run.of_type("result");
    let last = result
        .last()
        .unwrap_or_else(|| panic!("no result event:\n{}", run.stdout));
    assert_eq!(last["subtype"], "success", "{last}");
    last["result"].as_str().unwrap_or_default().to_string()
}

fn assert_qwen_requests(mock: &MockLlm) {
    let calls = assert_only_families(mock, &[Family::OpenaiChat]);
    assert!(!calls.is_empty());
    for r in &calls {
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some("Bearer sk-test"));
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn qwen_text_turn() {
    let Some(cli) = require_cli("qwen") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::qwen(&mock, root.path()).unwrap();
    assert!(
        !env.env.contains_key("HTTPS_PROXY"),
        "qwen must run without proxy vars"
    );
    let run = run_cli(
        &env,
        &cli,
        &["-p", "say hi", "--output-format", "stream-json"],
    )
    .await;
    run.assert_success("qwen -p");
    assert!(result_text(&run).contains("hi!"), "{}", run.stdout);
    assert_qwen_requests(&mock);
    report("qwen", &cli, "say-hi", &run);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn qwen_shell_tool_turn() {
    let Some(cli) = require_cli("qwen") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::qwen(&mock, root.path()).unwrap();
    let args = [
        "-p",
        TOOL_PROMPT,
        "--output-format",
        "stream-json",
        "--yolo",
    ];
    let run = run_cli(&env, &cli, &args).await;
    run.assert_success("qwen -p (tool)");
    let text = result_text(&run);
    assert!(text.contains("Done. The command printed: hello"), "{text}");
    assert_qwen_requests(&mock);
    assert_tool_round_trip(&mock, "run_shell_command");
    report("qwen", &cli, "shell-tool", &run);
}
