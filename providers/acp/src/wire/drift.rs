//! The drift test: the method names and `session/update` kinds the bridge uses, against the
//! JSON schema the crate generates for its own types (its `schemars` feature, on for tests
//! only; the crate ships no `schema.json`). A crate bump that renames a method or adds an
//! update kind fails here with what to do, instead of an agent's line being ignored quietly.

use super::acp::{AgentNotification, AgentRequest, ClientNotification, ClientRequest};
use super::{method, update};
use pretty_assertions::assert_eq;
use serde_json::Value;
use std::collections::BTreeSet;

/// The methods the bridge calls, serves or reads, as the pinned agents spell them (the
/// recorded transcripts in `tests/fixtures`).
const SPOKEN: &[(&str, &str)] = &[
    (method::INITIALIZE, "initialize"),
    (method::SESSION_NEW, "session/new"),
    (method::SESSION_LOAD, "session/load"),
    (method::SESSION_RESUME, "session/resume"),
    (method::SESSION_LIST, "session/list"),
    (method::SESSION_CLOSE, "session/close"),
    (method::SESSION_PROMPT, "session/prompt"),
    (method::SESSION_CANCEL, "session/cancel"),
    (method::SESSION_SET_MODE, "session/set_mode"),
    (
        method::SESSION_SET_CONFIG_OPTION,
        "session/set_config_option",
    ),
    (method::SESSION_UPDATE, "session/update"),
    (method::REQUEST_PERMISSION, "session/request_permission"),
    (method::FS_READ, "fs/read_text_file"),
    (method::FS_WRITE, "fs/write_text_file"),
];

/// The schema of both directions' requests and notifications.
fn schema() -> Value {
    serde_json::json!([
        schemars::schema_for!(ClientRequest),
        schemars::schema_for!(ClientNotification),
        schemars::schema_for!(AgentRequest),
        schemars::schema_for!(AgentNotification),
    ])
}

/// Every string under `key` (a `const` or an `enum` when `key` names a property).
fn collect(v: &Value, key: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                if k == key {
                    match child {
                        Value::String(s) => {
                            out.insert(s.clone());
                        }
                        Value::Object(p) => {
                            if let Some(s) = p.get("const").and_then(Value::as_str) {
                                out.insert(s.to_string());
                            }
                            for s in p
                                .get("enum")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                            {
                                out.extend(s.as_str().map(str::to_string));
                            }
                        }
                        _ => {}
                    }
                }
                collect(child, key, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect(i, key, out)),
        _ => {}
    }
}

#[test]
fn the_methods_we_use_are_the_schemas() {
    let mut methods = BTreeSet::new();
    collect(&schema(), "x-method", &mut methods);
    assert!(
        methods.len() > 15,
        "the schema names its methods: {methods:?}"
    );
    for (ours, spoken) in SPOKEN {
        assert_eq!(
            ours, spoken,
            "the crate renamed `{spoken}`: agents still speak the old name"
        );
        assert!(
            methods.contains(*spoken),
            "`{spoken}` is not in the crate's schema any more: {methods:?}"
        );
    }
    assert!(
        !methods.contains(method::SESSION_SET_MODEL),
        "the schema has `{}` now: take its name and types from the crate",
        method::SESSION_SET_MODEL
    );
}

#[test]
fn the_update_kinds_we_map_are_the_schemas() {
    let mut kinds = BTreeSet::new();
    collect(&schema(), "sessionUpdate", &mut kinds);
    let mapped: BTreeSet<String> = update::MAPPED.iter().map(|k| k.to_string()).collect();
    let missing: Vec<&String> = mapped.difference(&kinds).collect();
    assert!(
        missing.is_empty(),
        "the bridge maps update kinds the crate's schema no longer has: {missing:?}"
    );
    let left: BTreeSet<String> = update::LEFT_OUT.iter().map(|k| k.to_string()).collect();
    let unplaced: Vec<&String> = kinds
        .iter()
        .filter(|k| !mapped.contains(*k) && !left.contains(*k))
        .collect();
    assert!(
        unplaced.is_empty(),
        "the crate's schema has new session/update kinds {unplaced:?}: map them in \
         `normalize` (and `update::MAPPED`) or list them in `update::LEFT_OUT`"
    );
    let stale: Vec<&String> = left.difference(&kinds).collect();
    assert!(
        stale.is_empty(),
        "`update::LEFT_OUT` names kinds the schema no longer has: {stale:?}"
    );
}
