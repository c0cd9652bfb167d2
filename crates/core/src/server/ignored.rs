//! Unknown fields in what the host sends are ignored; each is logged once (at `debug`), by its
//! path with array indices dropped (`input.prompt.input.content[].note`), so a field a newer
//! Paseo sends with every prompt is one log line, not one per prompt.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// How many distinct field names are remembered; past it (a host inventing names), one last
/// line says so and the rest are not logged.
const REMEMBERED: usize = 256;

static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();

/// Logs each of `paths` (fields of a `method` request the bridge ignored) unless its name was
/// logged before.
pub(super) fn note(method: &str, paths: &[String]) {
    if paths.is_empty() {
        return;
    }
    let seen = SEEN.get_or_init(Default::default);
    let mut seen = match seen.lock() {
        Ok(seen) => seen,
        Err(poisoned) => poisoned.into_inner(),
    };
    for path in paths {
        let name = field_name(path);
        if seen.contains(&name) || seen.len() > REMEMBERED {
            continue;
        }
        if seen.len() == REMEMBERED {
            tracing::debug!("more unknown fields than {REMEMBERED} names; no longer logging them");
            seen.insert(String::new());
            continue;
        }
        tracing::debug!(method, field = %name, "ignored a field the bridge does not know");
        seen.insert(name);
    }
}

/// `path` without its array indices, at most 200 characters.
fn field_name(path: &str) -> String {
    let mut name = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                name.push('[');
            }
            ']' => {
                in_index = false;
                name.push(']');
            }
            _ if in_index => {}
            _ => name.push(c),
        }
    }
    agent_bridge_protocol::jsonrpc::clip(&name, 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_name_drops_array_indices() {
        assert_eq!(
            field_name("input.prompt.input.content[12].note"),
            "input.prompt.input.content[].note"
        );
        assert_eq!(field_name("input.futureField"), "input.futureField");
        assert!(field_name(&"k".repeat(5000)).len() <= 204);
    }
}
