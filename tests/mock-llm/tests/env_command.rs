//! `mock-llm env CLI --root DIR --port N`: the binary prints the same environment the library
//! recipe builds, after creating the CLI's directories and config files.

use mock_llm::{hermetic, Cli};
use pretty_assertions::assert_eq;
use std::collections::BTreeMap;
use std::process::Command;

fn env_command(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mock-llm"))
        .arg("env")
        .args(args)
        .output()
        .expect("mock-llm runs")
}

#[test]
fn env_prints_the_hermetic_environment_of_a_cli_as_json() {
    for cli in [Cli::Claude, Cli::Codex] {
        let printed = tempfile::tempdir().expect("tempdir");
        let root = printed.path().display().to_string();
        let out = env_command(&[cli.bin_name(), "--root", &root, "--port", "4321"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let env: BTreeMap<String, String> =
            serde_json::from_slice(&out.stdout).expect("one JSON object of variables");

        let expected = hermetic::build(cli, 4321, printed.path()).expect("recipe");
        assert_eq!(env, expected.env);
        assert!(printed.path().join("work").is_dir(), "working directory");
        assert!(expected.config_dir.is_dir(), "config dir created");
    }
}

#[test]
fn env_refuses_unknown_clis_and_missing_arguments() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    for args in [
        vec!["nope", "--root", &root, "--port", "1"],
        vec!["claude", "--port", "1"],
        vec!["claude", "--root", &root],
        vec!["claude", "--root", &root, "--port", "x"],
    ] {
        let out = env_command(&args);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(out.stdout.is_empty(), "{args:?} printed something");
    }
}
