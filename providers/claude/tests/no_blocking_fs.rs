//! The provider's async modules make no blocking filesystem call on the runtime: `std::fs`,
//! path probes (`is_dir`, `exists`, ...) and this crate's synchronous readers (transcripts,
//! the session list, the MCP config file) appear only inside a `spawn_blocking` closure.
//! A source scan: a blocking call does not fail, it stalls every session on the thread.

use std::path::Path;

/// The modules whose functions run on the async runtime.
const ASYNC_MODULES: &[&str] = &[
    "provider.rs",
    "session.rs",
    "session/configure.rs",
    "session/restart.rs",
    "session/rewind.rs",
    "warm.rs",
    "translate.rs",
    "runtime.rs",
    "saved.rs",
    "control.rs",
    "permissions.rs",
];

/// Calls that block on the filesystem.
const BLOCKING: &[&str] = &[
    "std::fs::",
    "fs::read",
    "File::open",
    "File::create",
    ".is_dir()",
    ".is_file()",
    ".exists()",
    "canonicalize(",
    "transcript::find_transcript(",
    "transcript::read_history(",
    "list::list_sessions(",
    "McpConfigFile::write(",
];

/// `text` without its `spawn_blocking( ... )` calls and its `#[cfg(test)]` tail.
fn outside_blocking_closures(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("spawn_blocking(") {
        out.push_str(&rest[..at]);
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, c) in rest[at..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = at + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// `code` calls `call` (not a longer name ending in it: `McpConfigFile::create`).
fn names(code: &str, call: &str) -> bool {
    code.match_indices(call).any(|(at, _)| {
        call.starts_with('.')
            || !code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn async_modules_call_no_blocking_filesystem_function() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for module in ASYNC_MODULES {
        let text = std::fs::read_to_string(src.join(module)).expect("module source");
        let outside = outside_blocking_closures(&text);
        for line in outside.lines() {
            let code = line.split("//").next().unwrap_or("");
            // `tokio::fs` answers metadata asynchronously; probing what it returned is fine.
            if code.contains("tokio::fs::") {
                continue;
            }
            for call in BLOCKING {
                if names(code, call) {
                    found.push(format!("{module}: `{call}` in {:?}", line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "blocking calls on the runtime:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_through_spawn_blocking_only() {
    let text = "a(); tokio::task::spawn_blocking(move || { std::fs::read(p) }).await; b.is_dir()";
    let outside = outside_blocking_closures(text);
    assert!(!outside.contains("std::fs::"));
    assert!(outside.contains(".is_dir()"));
    assert!(names("File::create(p)", "File::create"));
    assert!(!names("McpConfigFile::create(j)", "File::create"));
}
