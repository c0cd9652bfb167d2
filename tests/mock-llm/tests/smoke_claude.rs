//! Claude Code (pinned) directly against the mock: `claude -p --output-format stream-json`.

mod common;

use common::{assert_only_families, assert_tool_round_trip, report, run_cli, TOOL_PROMPT};
use mock_llm::{hermetic, require_cli, Family, MockLlm};

const ARGS: &[&str] = &["--output-format", "stream-json", "--verbose"];

fn result_text(run: &common::CliRun) -> String {
    let result = run.of_type("result");
    let last = result
        .last()
        .unwrap_or_else(|| panic!("no result event:\n{}", run.stdout));
    assert_eq!(last["subtype"], "success", "{last}");
    last["result"].as_str().unwrap_or_default().to_string()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn claude_text_turn() {
    let Some(cli) = require_cli("claude") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::claude(&mock, root.path()).unwrap();
    let run = run_cli(&env, &cli, &[&["-p", "say hi"], ARGS].concat()).await;
    run.assert_success("claude -p");
    assert!(result_text(&run).contains("hi!"), "{}", run.stdout);
    let calls = assert_only_families(&mock, &[Family::Anthropic]);
    assert!(!calls.is_empty());
    for r in &calls {
        assert_eq!(r.path, "/v1/messages?beta=true");
        assert_eq!(r.header("x-api-key"), Some("sk-test"));
        assert_eq!(r.body["stream"], true);
    }
    report("claude", &cli, "say-hi", &run);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn claude_shell_tool_turn() {
    let Some(cli) = require_cli("claude") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::claude(&mock, root.path()).unwrap();
    let args = [
        &["-p", TOOL_PROMPT],
        ARGS,
        &["--dangerously-skip-permissions"],
    ]
    .concat();
    let run = run_cli(&env, &cli, &args).await;
    run.assert_success("claude -p (tool)");
    let text = result_text(&run);
    assert!(text.contains("Done. The command printed: hello"), "{text}");
    let used_bash = run.of_type("assistant").iter().any(|e| {
        e["message"]["content"].as_array().is_some_and(|c| {
            c.iter()
                .any(|b| b["type"] == "tool_use" && b["name"] == "Bash")
        })
    });
    assert!(
        used_bash,
        "no Bash tool_use in the CLI output:\n{}",
        run.stdout
    );
    assert_only_families(&mock, &[Family::Anthropic]);
    assert_tool_round_trip(&mock, "Bash");
    report("claude", &cli, "shell-tool", &run);
}
