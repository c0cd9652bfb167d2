//! Replays every input of each fuzz target's checked-in corpus (`fuzz/corpus/<target>/`) and
//! regressions (`fuzz/regressions/<target>/`, inputs that once failed), and for the normalizers
//! the providers' recorded CLI transcripts whole, through the same harness libFuzzer runs. A
//! panic in the harness (a failed property) fails the test, naming the input.

use agent_bridge_fuzz_harness::{check, target, TARGETS};
use agent_bridge_protocol::jsonrpc::RpcError;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The files of `dir` (none when it does not exist), sorted.
fn files(dir: &Path, ext: Option<&str>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)))
        .collect();
    out.sort();
    out
}

/// Runs target `name` over its corpus, its regressions and `extra` inputs.
fn replay(name: &str, extra: &[PathBuf]) {
    let run = target(name).expect("a known target");
    let corpus = files(&root().join("fuzz/corpus").join(name), None);
    assert!(
        !corpus.is_empty(),
        "fuzz/corpus/{name} is empty: run scripts/fuzz.sh"
    );
    let mut inputs = corpus;
    inputs.extend(files(&root().join("fuzz/regressions").join(name), None));
    inputs.extend(extra.iter().cloned());
    let mut failed = Vec::new();
    for path in &inputs {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let before = check::events_checked();
        if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
            failed.push(path.display().to_string());
        }
        if extra.contains(path) {
            assert!(
                check::events_checked() > before,
                "{name}: the transcript {} produced no event",
                path.display()
            );
        }
    }
    assert!(
        failed.is_empty(),
        "{name}: {} of {} inputs failed: {failed:#?}",
        failed.len(),
        inputs.len()
    );
}

fn fixtures(provider: &str) -> Vec<PathBuf> {
    let dir = root()
        .join("providers")
        .join(provider)
        .join("tests/fixtures");
    let found = files(&dir, Some("jsonl"));
    assert!(!found.is_empty(), "no fixtures in {}", dir.display());
    found
}

#[test]
fn fuzz_corpus_codec() {
    replay("codec", &[]);
}

#[test]
fn fuzz_corpus_wire() {
    replay("wire", &[]);
}

#[test]
fn fuzz_corpus_claude() {
    replay("claude", &fixtures("claude"));
}

#[test]
fn fuzz_corpus_codex() {
    replay("codex", &fixtures("codex"));
}

#[test]
fn fuzz_corpus_acp() {
    replay("acp", &fixtures("acp"));
}

#[test]
fn every_target_has_a_corpus_test() {
    let tests = include_str!("corpus.rs");
    for (name, _) in TARGETS {
        assert!(
            tests.contains(&format!("fn fuzz_corpus_{name}()")),
            "{name}"
        );
    }
}

/// The replay can fail: a property that does not hold panics.
#[test]
#[should_panic(expected = "is not one of")]
fn a_failed_property_panics() {
    let err = RpcError {
        code: 1,
        message: "not a contract code".into(),
        data: None,
    };
    check::rpc_error(None, &err, &check::CONTRACT_CODES);
}

/// The hand-written wire seeds (`fuzz/seeds/wire.jsonl`) stay valid as the protocol changes:
/// every request of a bridge method in it parses.
#[test]
fn wire_seeds_parse() {
    use agent_bridge_core::codec::Line;
    use agent_bridge_core::host_input::{parse_line, parse_request, HostLine, REQUEST_METHODS};
    use agent_bridge_protocol::jsonrpc::Incoming;
    let seeds = std::fs::read_to_string(root().join("fuzz/seeds/wire.jsonl")).expect("seeds");
    let mut requests = 0;
    for line in seeds.lines() {
        if let HostLine::Message(Incoming::Request { method, params, .. }) =
            parse_line(Line::Text(line.to_string()))
        {
            if method == "initialize" || REQUEST_METHODS.contains(&method.as_str()) {
                requests += 1;
                if let Err(e) = parse_request(&method, params) {
                    panic!("seed refused ({}): {line}", e.message);
                }
            }
        }
    }
    assert!(requests >= 19, "only {requests} seed requests");
}
