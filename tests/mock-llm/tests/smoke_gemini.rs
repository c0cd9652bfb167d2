//! Gemini CLI (pinned) directly against the mock: `gemini -p ... -o stream-json --skip-trust`.
//! Every turn is preceded by the "auto" model router's `generateContent` call with a JSON
//! schema; the mock answers it from the schema.

mod common;

use common::{assert_only_families, assert_tool_round_trip, report, run_cli, TOOL_PROMPT};
use mock_llm::{hermetic, require_cli, Family, MockLlm};

/// The assistant text: the concatenated `message` deltas.
fn assistant_text(run: &common::CliRun) -> String {
    run.of_type("message")
        .iter()
        .filter(|e| e["role"] == "assistant")
        .filter_map(|e| e["content"].as_str())
        .collect()
}

fn assert_gemini_requests(mock: &MockLlm) {
    let calls = assert_only_families(mock, &[Family::Gemini]);
    assert!(calls
        .iter()
        .any(|r| r.path.contains(":streamGenerateContent?alt=sse")));
    for r in &calls {
        assert!(r.path.starts_with("/v1beta/models/"), "{}", r.path);
        assert_eq!(r.header("x-goog-api-key"), Some("sk-test"));
        if r.path.contains(":generateContent") {
            assert_eq!(r.reply, "json", "helper calls get schema answers");
        }
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn gemini_text_turn() {
    let Some(cli) = require_cli("gemini") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::gemini(&mock, root.path()).unwrap();
    let run = run_cli(
        &env,
        &cli,
        &["-p", "say hi", "-o", "stream-json", "--skip-trust"],
    )
    .await;
    run.assert_success("gemini -p");
    assert!(assistant_text(&run).contains("hi!"), "{}", run.stdout);
    assert_eq!(
        run.of_type("result").last().map(|r| r["status"].clone()),
        Some("success".into())
    );
    assert_gemini_requests(&mock);
    report("gemini", &cli, "say-hi", &run);
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test]
async fn gemini_shell_tool_turn() {
    let Some(cli) = require_cli("gemini") else {
        return;
    };
    let mock = MockLlm::start().await.unwrap();
    let root = tempfile::tempdir().unwrap();
    let env = hermetic::gemini(&mock, root.path()).unwrap();
    let args = [
        "-p",
        TOOL_PROMPT,
        "-o",
        "stream-json",
        "--skip-trust",
        "--yolo",
    ];
    let run = run_cli(&env, &cli, &args).await;
    run.assert_success("gemini -p (tool)");
    assert!(
        run.of_type("tool_use")
            .iter()
            .any(|e| e["tool_name"] == "run_shell_command"),
        "no run_shell_command tool_use:\n{}",
        run.stdout
    );
    let text = assistant_text(&run);
    assert!(text.contains("Done. The command printed: hello"), "{text}");
    assert_gemini_requests(&mock);
    assert_tool_round_trip(&mock, "run_shell_command");
    report("gemini", &cli, "shell-tool", &run);
}
