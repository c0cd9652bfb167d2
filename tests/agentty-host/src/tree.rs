//! Checks a panel tree the way Agentty reads it — node types and fields of the protocol page
//! (API 1 and 2), strictly (an unknown field or value is an error: Agentty would ignore or
//! refuse it, and either way it is a mistake) — and measures it as Agentty does: every node,
//! list row, row button and choice option is one element (at most 2,000), the root is at depth
//! 0 and nothing may sit deeper than 12.

use serde_json::{Map, Value};
use std::collections::HashSet;

pub const MAX_ELEMENTS: usize = 2_000;
pub const MAX_DEPTH: usize = 12;
/// Lines a text area may be tall.
pub const MAX_ROWS: u64 = 24;

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

struct Check {
    elements: usize,
    depth: usize,
    ids: HashSet<String>,
}

type R = Result<(), String>;

fn fields(o: &Map<String, Value>, path: &str, allowed: &[&str]) -> R {
    for key in o.keys() {
        if key != "type" && !allowed.contains(&key.as_str()) {
            return Err(format!("{path}: unknown field `{key}`"));
        }
    }
    Ok(())
}

fn string(o: &Map<String, Value>, path: &str, key: &str, required: bool) -> R {
    match o.get(key) {
        None if required => Err(format!("{path}: `{key}` is missing")),
        None => Ok(()),
        Some(Value::String(_)) => Ok(()),
        Some(other) => Err(format!("{path}: `{key}` must be a string, not {other}")),
    }
}

fn one_of(o: &Map<String, Value>, path: &str, key: &str, values: &[&str]) -> R {
    match o.get(key) {
        None => Ok(()),
        Some(Value::String(s)) if values.contains(&s.as_str()) => Ok(()),
        Some(other) => Err(format!("{path}: `{key}` is {other}, not one of {values:?}")),
    }
}

fn boolean(o: &Map<String, Value>, path: &str, key: &str) -> R {
    match o.get(key) {
        None | Some(Value::Bool(_)) => Ok(()),
        Some(other) => Err(format!("{path}: `{key}` must be a boolean, not {other}")),
    }
}

fn icon(o: &Map<String, Value>, path: &str) -> R {
    string(o, path, "icon", false)?;
    match o.get("icon").and_then(Value::as_str) {
        Some(name) if !is_icon(name) => Err(format!("{path}: `{name}` is not an Agentty icon")),
        _ => Ok(()),
    }
}

const TONES: &[&str] = &["neutral", "info", "success", "warning", "error"];

impl Check {
    fn id(&mut self, o: &Map<String, Value>, path: &str) -> R {
        string(o, path, "id", true)?;
        let id = o.get("id").and_then(Value::as_str).unwrap_or_default();
        if id.is_empty() {
            return Err(format!("{path}: empty id"));
        }
        if !self.ids.insert(id.to_string()) {
            return Err(format!("{path}: element id `{id}` is used twice"));
        }
        Ok(())
    }

    fn count(&mut self, n: usize) -> R {
        self.elements += n;
        if self.elements > MAX_ELEMENTS {
            return Err(format!("more than {MAX_ELEMENTS} elements"));
        }
        Ok(())
    }

    fn children(&mut self, o: &Map<String, Value>, path: &str, depth: usize) -> R {
        let Some(Value::Array(children)) = o.get("children") else {
            return Err(format!("{path}: `children` must be an array"));
        };
        for (i, c) in children.iter().enumerate() {
            self.node(c, &format!("{path}.children[{i}]"), depth + 1)?;
        }
        Ok(())
    }

    fn node(&mut self, v: &Value, path: &str, depth: usize) -> R {
        self.count(1)?;
        self.depth = self.depth.max(depth);
        if depth > MAX_DEPTH {
            return Err(format!("{path}: nested deeper than {MAX_DEPTH} levels"));
        }
        let Some(o) = v.as_object() else {
            return Err(format!("{path}: a node must be an object"));
        };
        let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
        let path = &format!("{path}({kind})");
        match kind {
            "column" | "row" => {
                fields(o, path, &["children", "gap", "wrap"])?;
                one_of(o, path, "gap", &["none", "small", "medium", "large"])?;
                if kind == "column" && o.contains_key("wrap") {
                    return Err(format!("{path}: a column has no `wrap`"));
                }
                boolean(o, path, "wrap")?;
                self.children(o, path, depth)
            }
            "section" => {
                fields(o, path, &["title", "children"])?;
                string(o, path, "title", true)?;
                self.children(o, path, depth)
            }
            "text" => {
                fields(o, path, &["text", "style"])?;
                string(o, path, "text", true)?;
                let styles = [
                    "body", "title", "muted", "small", "code", "error", "success",
                ];
                one_of(o, path, "style", &styles)
            }
            "button" => {
                fields(o, path, &["id", "label", "icon", "variant", "disabled"])?;
                self.id(o, path)?;
                string(o, path, "label", true)?;
                icon(o, path)?;
                one_of(
                    o,
                    path,
                    "variant",
                    &["primary", "secondary", "ghost", "danger"],
                )?;
                boolean(o, path, "disabled")
            }
            "input" => {
                fields(o, path, &["id", "placeholder", "value", "rows"])?;
                self.id(o, path)?;
                string(o, path, "placeholder", false)?;
                string(o, path, "value", false)?;
                match o.get("rows") {
                    None => Ok(()),
                    Some(r) if r.as_u64().is_some_and(|r| r <= MAX_ROWS) => Ok(()),
                    Some(r) => Err(format!("{path}: `rows` {r} is not 0..={MAX_ROWS}")),
                }
            }
            "list" => {
                fields(o, path, &["id", "items", "empty"])?;
                self.id(o, path)?;
                string(o, path, "empty", false)?;
                let Some(Value::Array(items)) = o.get("items") else {
                    return Err(format!("{path}: `items` must be an array"));
                };
                let mut seen = HashSet::new();
                for (i, item) in items.iter().enumerate() {
                    self.item(item, &format!("{path}.items[{i}]"), &mut seen)?;
                }
                Ok(())
            }
            "choice" => {
                fields(o, path, &["id", "options", "value"])?;
                self.id(o, path)?;
                string(o, path, "value", false)?;
                let Some(Value::Array(options)) = o.get("options") else {
                    return Err(format!("{path}: `options` must be an array"));
                };
                self.count(options.len())?;
                for (i, opt) in options.iter().enumerate() {
                    let p = format!("{path}.options[{i}]");
                    let opt = opt.as_object().ok_or(format!("{p}: not an object"))?;
                    fields(opt, &p, &["value", "label"])?;
                    string(opt, &p, "value", true)?;
                    string(opt, &p, "label", true)?;
                }
                Ok(())
            }
            "toggle" => {
                fields(o, path, &["id", "label", "value"])?;
                self.id(o, path)?;
                string(o, path, "label", true)?;
                boolean(o, path, "value")
            }
            "badge" => {
                fields(o, path, &["text", "tone"])?;
                string(o, path, "text", true)?;
                one_of(o, path, "tone", TONES)
            }
            "spinner" => {
                fields(o, path, &["text"])?;
                string(o, path, "text", false)
            }
            "divider" => fields(o, path, &[]),
            other => Err(format!("{path}: unknown node type `{other}`")),
        }
    }

    fn item(&mut self, v: &Value, path: &str, seen: &mut HashSet<String>) -> R {
        self.count(1)?;
        let o = v.as_object().ok_or(format!("{path}: not an object"))?;
        let allowed = [
            "id", "title", "subtitle", "detail", "icon", "tone", "actions",
        ];
        fields(o, path, &allowed)?;
        string(o, path, "id", true)?;
        string(o, path, "title", true)?;
        string(o, path, "subtitle", false)?;
        string(o, path, "detail", false)?;
        icon(o, path)?;
        one_of(o, path, "tone", TONES)?;
        let id = o.get("id").and_then(Value::as_str).unwrap_or_default();
        if !seen.insert(id.to_string()) {
            return Err(format!("{path}: row id `{id}` is used twice in the list"));
        }
        let actions = match o.get("actions") {
            None => return Ok(()),
            Some(Value::Array(a)) => a,
            Some(other) => return Err(format!("{path}: `actions` must be an array, not {other}")),
        };
        self.count(actions.len())?;
        let mut ids = HashSet::new();
        for (i, a) in actions.iter().enumerate() {
            let p = format!("{path}.actions[{i}]");
            let a = a.as_object().ok_or(format!("{p}: not an object"))?;
            fields(a, &p, &["id", "label", "icon", "tooltip"])?;
            string(a, &p, "id", true)?;
            string(a, &p, "label", false)?;
            string(a, &p, "tooltip", false)?;
            icon(a, &p)?;
            let id = a.get("id").and_then(Value::as_str).unwrap_or_default();
            if !ids.insert(id) {
                return Err(format!("{p}: action `{id}` twice on one row"));
            }
        }
        Ok(())
    }
}

/// Checks `tree`; its measure, or why Agentty would refuse it (or draw it wrong).
pub fn check(tree: &Value) -> Result<Measure, String> {
    let mut c = Check {
        elements: 0,
        depth: 0,
        ids: HashSet::new(),
    };
    c.node(tree, "tree", 0)?;
    Ok(Measure {
        elements: c.elements,
        depth: c.depth,
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

/// Every input of the tree: (id, value).
pub fn inputs(tree: &Value, out: &mut Vec<(String, Option<String>)>) {
    if tree.get("type").and_then(Value::as_str) == Some("input") {
        let id = tree.get("id").and_then(Value::as_str).unwrap_or_default();
        let value = tree
            .get("value")
            .and_then(Value::as_str)
            .map(str::to_string);
        out.push((id.to_string(), value));
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
    use serde_json::json;

    #[test]
    fn counts_like_agentty_and_refuses_what_it_would() {
        let tree = json!({"type": "column", "children": [
            {"type": "list", "id": "l", "items": [
                {"id": "a", "title": "A", "actions": [{"id": "allow"}, {"id": "deny"}]}]},
            {"type": "choice", "id": "c", "options": [{"value": "x", "label": "X"}]}
        ]});
        assert_eq!(
            check(&tree),
            Ok(Measure {
                elements: 1 + 1 + 3 + 1 + 1,
                depth: 1
            })
        );
        let bad = [
            json!({"type": "column", "children": [], "colour": "red"}),
            json!({"type": "button", "id": "b", "label": "B", "variant": "loud"}),
            json!({"type": "frame", "children": []}),
            json!({"type": "row", "children": [{"type": "button", "id": "b", "label": "1"},
                {"type": "button", "id": "b", "label": "2"}]}),
            json!({"type": "input", "id": "p", "rows": 30}),
            json!({"type": "list", "id": "l", "items": [{"id": "a", "title": "A", "icon": "robot"}]}),
        ];
        for t in bad {
            assert!(check(&t).is_err(), "{t}");
        }
        let mut deep = json!({"type": "text", "text": "x"});
        for _ in 0..13 {
            deep = json!({"type": "column", "children": [deep]});
        }
        assert!(check(&deep).is_err(), "13 levels");
        let wide = json!({"type": "list", "id": "l", "items":
            (0..2_000).map(|i| json!({"id": i.to_string(), "title": "x"})).collect::<Vec<_>>()});
        assert!(check(&wide).is_err(), "2,001 elements");
    }
}
