//! A plain-text rendering of a panel tree, for the docs and for snapshot tests: what the panel
//! shows, one line per element, element ids after `#`.

use crate::ui::{ListItem, Node, Tone};

/// The tree as indented text.
pub fn render(tree: &Node) -> String {
    let mut out = String::new();
    node(tree, 0, &mut out);
    out
}

fn line(out: &mut String, indent: usize, text: &str) {
    for _ in 0..indent {
        out.push_str("  ");
    }
    out.push_str(text.trim_end());
    out.push('\n');
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn tone(t: Option<Tone>) -> &'static str {
    match t {
        Some(Tone::Info) => "ℹ ",
        Some(Tone::Success) => "✓ ",
        Some(Tone::Warning) => "! ",
        Some(Tone::Error) => "✗ ",
        Some(Tone::Neutral) | None => "",
    }
}

/// A leaf as one piece of a line; `None` for containers.
fn leaf(n: &Node) -> Option<String> {
    Some(match n {
        Node::Text { text, .. } => one_line(text),
        Node::Button {
            id,
            label,
            disabled,
            ..
        } => {
            let off = if *disabled { " (disabled)" } else { "" };
            format!("[{label}]#{id}{off}")
        }
        Node::Input {
            id,
            placeholder,
            value,
            rows,
        } => {
            let shown = value
                .as_deref()
                .filter(|v| !v.is_empty())
                .or(placeholder.as_deref())
                .unwrap_or("");
            let rows = rows.map(|r| format!(", {r} rows")).unwrap_or_default();
            format!("┃{}┃#{id}{rows}", one_line(shown))
        }
        Node::Choice { id, options, value } => {
            let picked = |v: &str| value.as_deref() == Some(v);
            let parts: Vec<String> = options
                .iter()
                .map(|o| format!("{} {}", if picked(&o.value) { "◉" } else { "○" }, o.label))
                .collect();
            format!("{}  #{id}", parts.join("  "))
        }
        Node::Badge { text, tone: t } => format!("‹{}{text}›", tone(*t)),
        Node::Spinner { text } => format!("⟳ {}", text.as_deref().unwrap_or("")),
        Node::Divider {} => "──────────".into(),
        Node::Column { .. } | Node::Row { .. } | Node::Section { .. } | Node::List { .. } => {
            return None
        }
    })
}

fn item(i: &ListItem) -> String {
    let mut s = format!("• {}{}", tone(i.tone), one_line(&i.title));
    if let Some(sub) = &i.subtitle {
        s.push_str(&format!(" — {}", one_line(sub)));
    }
    if let Some(detail) = &i.detail {
        s.push_str(&format!(" · {}", one_line(detail)));
    }
    for a in &i.actions {
        s.push_str(&format!(" [{}]", a.label.as_deref().unwrap_or(&a.id)));
        if a.label.as_deref() != Some(a.id.as_str()) {
            s.push_str(&format!("#{}", a.id));
        }
    }
    s
}

fn node(n: &Node, indent: usize, out: &mut String) {
    match n {
        Node::Column { children, .. } => {
            for c in children {
                node(c, indent, out);
            }
        }
        Node::Row { children, .. } => {
            let leaves: Option<Vec<String>> = children.iter().map(leaf).collect();
            match leaves {
                Some(parts) => line(out, indent, &parts.join("  ")),
                None => children.iter().for_each(|c| node(c, indent, out)),
            }
        }
        Node::Section { title, children } => {
            line(out, indent, &format!("▾ {title}"));
            for c in children {
                node(c, indent + 1, out);
            }
        }
        Node::List { id, items, empty } => {
            line(out, indent, &format!("#{id}"));
            if items.is_empty() {
                line(
                    out,
                    indent + 1,
                    &format!("({})", empty.as_deref().unwrap_or("empty")),
                );
            }
            for i in items {
                line(out, indent + 1, &item(i));
            }
        }
        leafy => {
            if let Some(text) = leaf(leafy) {
                line(out, indent, &text);
            }
        }
    }
}
