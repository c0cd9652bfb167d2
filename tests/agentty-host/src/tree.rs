//! Checks a panel tree the way Agentty's host reads it (`Node::from_value` in
//! `crates/agentty-bridge/src/plugins/ui.rs`): the node types and fields of [`crate::nodes`]
//! (what the host refuses, the tree is refused for: an unknown type, a missing or mistyped field,
//! an enum value it does not know), then its limits: every node, list row, row button, choice
//! option (and the other API 4 lists) is one element, at most 2,000; the root is at depth 0 and
//! nothing may sit deeper than 12. What the host accepts but draws otherwise than written is a
//! [`Checked::notes`] entry, not a refusal: an unknown field (ignored), an unknown icon (a generic
//! one), `rows` over 24 (24), a string over 20,000 characters (cut), an id used twice, a node or
//! field newer than the manifest's `apiVersion`.

use crate::nodes::{node_type, Field, Kind};
use serde_json::{Map, Value};
use std::collections::HashSet;

pub const MAX_ELEMENTS: usize = 2_000;
pub const MAX_DEPTH: usize = 12;
/// Lines a text area may be tall (more is drawn as this many).
pub const MAX_ROWS: u64 = 24;
/// Characters of a string drawn; the rest is cut (`MAX_TEXT`).
pub const MAX_TEXT: usize = 20_000;
/// Suggestions of an input kept (`MAX_COMPLETIONS`).
const MAX_COMPLETIONS: usize = 500;

/// Agentty's icon names (the manifest page's list); anything else draws a puzzle piece.
pub const ICONS: &str = "app-window arrow-down arrow-left arrow-right arrow-up arrow-up-right \
at-sign bell bell-dot blocks book-open bookmark bot brain bug calendar chart-column check \
chevron-down chevron-right chevron-up circle-check circle-dot circle-pause circle-x clipboard \
clipboard-paste clock cloud code columns-2 command container copy database download ellipsis \
external-link eye file-input file-plus file-text folder folder-open folder-plus git-branch \
git-commit-horizontal git-pull-request globe grip-vertical hammer hash history house image info \
key-round layout-panel-left lightbulb link list list-tree loader-circle mail maximize-2 \
message-circle-question message-square minimize-2 minus network notebook notebook-pen package \
panel-left-close panel-left-open pencil picture-in-picture-2 play plug plus power puzzle \
refresh-cw rocket rotate-cw rows-2 save scroll-text search send settings shield-alert sparkles \
square square-plus square-terminal star sticky-note tag terminal trash-2 undo-2 unlink upload \
users wand-sparkles workflow wrench x zap git-fork file lock graduation-cap x-twitter";

pub fn is_icon(name: &str) -> bool {
    ICONS.split_whitespace().any(|i| i == name)
}

/// What a valid tree measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Measure {
    pub elements: usize,
    pub depth: usize,
}

/// A tree the host accepts: its measure and what it would draw otherwise than written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Checked {
    pub measure: Measure,
    pub notes: Vec<String>,
}

struct Check {
    api: u32,
    elements: usize,
    depth: usize,
    ids: HashSet<String>,
    notes: Vec<String>,
}

type R = Result<(), String>;

fn what(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Check {
    fn count(&mut self, n: usize) -> R {
        self.elements += n;
        if self.elements > MAX_ELEMENTS {
            return Err(format!("UI tree has more than {MAX_ELEMENTS} elements"));
        }
        Ok(())
    }

    fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The fields of object `o` against `shape`: refused as serde would, noted as drawn.
    fn object(&mut self, o: &Map<String, Value>, path: &str, shape: &[Field], depth: usize) -> R {
        for key in o.keys() {
            if key != "type" && !shape.iter().any(|f| f.name == key) {
                self.note(format!("{path}: unknown field `{key}` (ignored)"));
            }
        }
        for f in shape {
            let Some(v) = o.get(f.name) else {
                if f.required {
                    return Err(format!("{path}: missing field `{}`", f.name));
                }
                continue;
            };
            if f.since > self.api {
                self.note(format!(
                    "{path}: `{}` is API {} (the manifest declares {})",
                    f.name, f.since, self.api
                ));
            }
            self.value(v, &format!("{path}.{}", f.name), f, depth)?;
        }
        Ok(())
    }

    fn value(&mut self, v: &Value, path: &str, f: &Field, depth: usize) -> R {
        let wrong =
            |expected: &str| Err(format!("{path}: {} where {expected} is expected", what(v)));
        match f.kind {
            Kind::Str | Kind::Nullable => match v {
                Value::String(s) => {
                    if s.chars().count() > MAX_TEXT {
                        self.note(format!("{path}: over {MAX_TEXT} characters (cut)"));
                    }
                    if f.name == "icon" && !is_icon(s) {
                        self.note(format!(
                            "{path}: `{s}` is not an Agentty icon (a generic one is drawn)"
                        ));
                    }
                    Ok(())
                }
                Value::Null if matches!(f.kind, Kind::Nullable) => Ok(()),
                _ => wrong("a string"),
            },
            Kind::Bool if v.is_boolean() => Ok(()),
            Kind::Bool => wrong("a boolean"),
            Kind::Uint(max) => match v.as_u64() {
                Some(n) if n <= max => {
                    if f.name == "rows" && n > MAX_ROWS {
                        self.note(format!("{path}: {n} rows (drawn as {MAX_ROWS})"));
                    }
                    Ok(())
                }
                _ => wrong("an unsigned integer"),
            },
            Kind::Num if v.is_number() => Ok(()),
            Kind::Num => wrong("a number"),
            Kind::Enum(values) => match v.as_str() {
                Some(s) if values.contains(&s) => Ok(()),
                Some(s) => Err(format!(
                    "{path}: unknown variant `{s}`, expected one of {values:?}"
                )),
                None => wrong("a string"),
            },
            Kind::Strings => match v.as_array() {
                Some(a) if a.iter().all(Value::is_string) => Ok(()),
                _ => wrong("an array of strings"),
            },
            Kind::Children => {
                let Some(children) = v.as_array() else {
                    return wrong("an array");
                };
                for (i, c) in children.iter().enumerate() {
                    self.node(c, &format!("{path}[{i}]"), depth + 1)?;
                }
                Ok(())
            }
            Kind::Objects(shape) => {
                let Some(items) = v.as_array() else {
                    return wrong("an array");
                };
                let mut seen = HashSet::new();
                for (i, item) in items.iter().enumerate() {
                    let p = format!("{path}[{i}]");
                    let Some(o) = item.as_object() else {
                        return Err(format!("{p}: {} where an object is expected", what(item)));
                    };
                    self.object(o, &p, shape, depth)?;
                    if let Some(id) = o.get("id").and_then(Value::as_str) {
                        if !seen.insert(id.to_string()) {
                            self.note(format!("{p}: id `{id}` is used twice in `{}`", f.name));
                        }
                    }
                }
                Ok(())
            }
        }
    }

    fn node(&mut self, v: &Value, path: &str, depth: usize) -> R {
        let Some(o) = v.as_object() else {
            return Err(format!("{path}: {} where a node is expected", what(v)));
        };
        let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
        let Some(t) = node_type(kind) else {
            return Err(format!("{path}: unknown node type `{kind}`"));
        };
        let path = &format!("{path}({kind})");
        if t.since > self.api {
            self.note(format!(
                "{path}: `{kind}` is API {} (the manifest declares {})",
                t.since, self.api
            ));
        }
        self.object(o, path, t.fields, depth)?;
        self.count(1)?;
        self.depth = self.depth.max(depth);
        if depth > MAX_DEPTH {
            return Err(format!("{path}: nested deeper than {MAX_DEPTH} levels"));
        }
        if let Some(id) = o.get("id").and_then(Value::as_str) {
            if !self.ids.insert(id.to_string()) {
                self.note(format!("{path}: element id `{id}` is used twice"));
            }
        }
        let len = |key: &str| o.get(key).and_then(Value::as_array).map_or(0, Vec::len);
        match kind {
            "list" => {
                let rows = o
                    .get("items")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten();
                let actions: usize = rows
                    .map(|r| {
                        r.get("actions")
                            .and_then(Value::as_array)
                            .map_or(0, Vec::len)
                    })
                    .sum();
                self.count(len("items") + actions)
            }
            "input" => self.count(len("completions").min(MAX_COMPLETIONS)),
            "button" => self.count(len("menu")),
            "choice" | "select" => self.count(len("options")),
            "flow" => self.count(len("steps") + len("insertMenu")),
            "tabs" => self.count(len("tabs") + len("addMenu")),
            "keyValue" => self.count(len("items")),
            "table" => {
                let columns = len("columns");
                let rows = o
                    .get("rows")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten();
                let cells: usize = rows
                    .map(|r| {
                        1 + r
                            .get("cells")
                            .and_then(Value::as_array)
                            .map_or(0, Vec::len)
                            .min(columns)
                    })
                    .sum();
                self.count(columns + cells)
            }
            _ => Ok(()),
        }
    }
}

/// Checks `tree` as the host of API `api` would for a plugin declaring `api`: what it measures and
/// what it draws otherwise than written, or why the host refuses it (`-32602`).
pub fn check(tree: &Value, api: u32) -> Result<Checked, String> {
    let mut c = Check {
        api,
        elements: 0,
        depth: 0,
        ids: HashSet::new(),
        notes: Vec::new(),
    };
    c.node(tree, "tree", 0)?;
    Ok(Checked {
        measure: Measure {
            elements: c.elements,
            depth: c.depth,
        },
        notes: c.notes,
    })
}

/// The node with element id `id`, searching depth first.
pub fn find<'a>(tree: &'a Value, id: &str) -> Option<&'a Value> {
    if tree.get("id").and_then(Value::as_str) == Some(id) && tree.get("type").is_some() {
        return Some(tree);
    }
    tree.get("children")?
        .as_array()?
        .iter()
        .find_map(|c| find(c, id))
}

/// Every input of the tree: (id, value, rows as drawn).
pub fn inputs(tree: &Value, out: &mut Vec<(String, Option<String>, u64)>) {
    if tree.get("type").and_then(Value::as_str) == Some("input") {
        let id = tree.get("id").and_then(Value::as_str).unwrap_or_default();
        let value = tree
            .get("value")
            .and_then(Value::as_str)
            .map(str::to_string);
        let rows = tree.get("rows").and_then(Value::as_u64).unwrap_or(0);
        out.push((id.to_string(), value, rows.min(MAX_ROWS)));
    }
    for c in tree
        .get("children")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        inputs(c, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn counts_like_agentty_and_refuses_what_it_would() {
        let tree = json!({"type": "column", "children": [
            {"type": "list", "id": "l", "items": [
                {"id": "a", "title": "A", "actions": [{"id": "allow"}, {"id": "deny"}]}]},
            {"type": "choice", "id": "c", "options": [{"value": "x", "label": "X"}]}
        ]});
        let checked = check(&tree, 1).expect("valid");
        assert_eq!(
            checked.measure,
            Measure {
                elements: 1 + 1 + 3 + 1 + 1,
                depth: 1
            }
        );
        assert!(checked.notes.is_empty(), "{:?}", checked.notes);
        // Refused by the host's serde reading: the whole tree is invalid (-32602).
        let refused = [
            json!({"type": "button", "id": "b", "label": "B", "variant": "loud"}),
            json!({"type": "frame", "children": []}),
            json!({"type": "section", "children": []}),
            json!({"type": "input", "id": "p", "rows": -1}),
            json!({"type": "input", "id": "p", "value": null}),
            json!({"type": "list", "id": "l", "items": [{"id": "a"}]}),
            json!({"type": "toggle", "id": "t", "label": "T", "value": "yes"}),
        ];
        for t in refused {
            assert!(check(&t, 4).is_err(), "{t}");
        }
        let mut deep = json!({"type": "text", "text": "x"});
        for _ in 0..13 {
            deep = json!({"type": "column", "children": [deep]});
        }
        assert!(check(&deep, 1).is_err(), "13 levels");
        let wide = json!({"type": "list", "id": "l", "items":
            (0..2_000).map(|i| json!({"id": i.to_string(), "title": "x"})).collect::<Vec<_>>()});
        assert!(check(&wide, 1).is_err(), "2,001 elements");
    }

    #[test]
    fn what_the_host_ignores_or_draws_otherwise_is_accepted_and_noted() {
        let accepted = [
            (
                json!({"type": "column", "children": [], "colour": "red"}),
                "unknown field `colour`",
            ),
            (
                json!({"type": "column", "wrap": true}),
                "unknown field `wrap`",
            ),
            (
                json!({"type": "row", "children": [{"type": "button", "id": "b", "label": "1"},
                {"type": "button", "id": "b", "label": "2"}]}),
                "element id `b` is used twice",
            ),
            (
                json!({"type": "input", "id": "p", "rows": 30}),
                "30 rows (drawn as 24)",
            ),
            (
                json!({"type": "list", "id": "l", "items": [{"id": "a", "title": "A", "icon": "robot"}]}),
                "`robot` is not an Agentty icon",
            ),
            (
                json!({"type": "card", "children": []}),
                "`card` is API 4 (the manifest declares 1)",
            ),
            (
                json!({"type": "input", "id": "p", "mono": true}),
                "`mono` is API 4",
            ),
        ];
        for (tree, note) in accepted {
            let checked = check(&tree, 1).unwrap_or_else(|e| panic!("{tree}: {e}"));
            assert!(
                checked.notes.iter().any(|n| n.contains(note)),
                "{tree}: {:?}",
                checked.notes
            );
        }
        // API 4 nodes count their lists like the host does.
        let table = json!({"type": "table", "id": "t", "columns": [{"label": "A"}, {"label": "B"}],
            "rows": [{"id": "r", "cells": ["1", "2", "3"]}]});
        let checked = check(&table, 4).expect("valid");
        assert_eq!(checked.measure.elements, 1 + 2 + (1 + 2));
        assert!(checked.notes.is_empty(), "{:?}", checked.notes);
    }
}
