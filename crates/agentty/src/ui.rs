//! The panel's UI tree: the node types of API 1 of Agentty's protocol page (the panel uses
//! nothing newer) and the measures Agentty applies to a tree (elements counted, nesting depth).

use serde::Serialize;

/// One node of a panel tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Node {
    Column {
        children: Vec<Node>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gap: Option<Gap>,
    },
    Row {
        children: Vec<Node>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gap: Option<Gap>,
        #[serde(skip_serializing_if = "is_false")]
        wrap: bool,
    },
    Section {
        title: String,
        children: Vec<Node>,
    },
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        style: Option<TextStyle>,
    },
    Button {
        id: String,
        label: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        icon: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        variant: Option<Variant>,
        #[serde(skip_serializing_if = "is_false")]
        disabled: bool,
    },
    Input {
        id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        rows: Option<u32>,
    },
    List {
        id: String,
        items: Vec<ListItem>,
        #[serde(skip_serializing_if = "Option::is_none")]
        empty: Option<String>,
    },
    Choice {
        id: String,
        options: Vec<ChoiceOption>,
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<String>,
    },
    Badge {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        tone: Option<Tone>,
    },
    Spinner {
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    Divider {},
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Gap {
    None,
    Small,
    Medium,
    Large,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TextStyle {
    Body,
    Title,
    Muted,
    Small,
    Code,
    Error,
    Success,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    Primary,
    Secondary,
    Ghost,
    Danger,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    Neutral,
    Info,
    Success,
    Warning,
    Error,
}

/// One row of a `list`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ListItem {
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subtitle: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tone: Option<Tone>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<ItemAction>,
}

/// A button on a list row (`action` events carry its id).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemAction {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tooltip: Option<String>,
}

impl ItemAction {
    pub fn new(id: impl Into<String>, label: impl Into<String>) -> Self {
        ItemAction {
            id: id.into(),
            label: Some(label.into()),
            icon: None,
            tooltip: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChoiceOption {
    pub value: String,
    pub label: String,
}

impl Node {
    pub fn column(children: Vec<Node>) -> Node {
        Node::Column {
            children,
            gap: Some(Gap::Small),
        }
    }

    pub fn row(children: Vec<Node>) -> Node {
        Node::Row {
            children,
            gap: Some(Gap::Small),
            wrap: true,
        }
    }

    pub fn section(title: impl Into<String>, children: Vec<Node>) -> Node {
        Node::Section {
            title: title.into(),
            children,
        }
    }

    pub fn text(text: impl Into<String>, style: TextStyle) -> Node {
        Node::Text {
            text: text.into(),
            style: Some(style),
        }
    }

    pub fn button(id: &str, label: impl Into<String>, variant: Variant, disabled: bool) -> Node {
        Node::Button {
            id: id.into(),
            label: label.into(),
            icon: None,
            variant: Some(variant),
            disabled,
        }
    }

    /// The elements Agentty counts for this node: itself, and for a list every row and row
    /// button, for a choice every option (`Node::check` in Agentty's `ui.rs`).
    pub fn weight(&self) -> usize {
        1 + match self {
            Node::Column { children, .. }
            | Node::Row { children, .. }
            | Node::Section { children, .. } => children.iter().map(Node::weight).sum(),
            Node::List { items, .. } => items.iter().map(|i| 1 + i.actions.len()).sum(),
            Node::Choice { options, .. } => options.len(),
            Node::Text { .. }
            | Node::Button { .. }
            | Node::Input { .. }
            | Node::Badge { .. }
            | Node::Spinner { .. }
            | Node::Divider {} => 0,
        }
    }

    /// Nesting depth: 0 for a leaf, one more per level of children (Agentty refuses a node
    /// at depth 13 and below, counting the root as 0).
    pub fn depth(&self) -> usize {
        match self {
            Node::Column { children, .. }
            | Node::Row { children, .. }
            | Node::Section { children, .. } => {
                children.iter().map(Node::depth).max().map_or(0, |d| d + 1)
            }
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn serializes_as_the_protocol_page_writes_nodes() {
        let tree = Node::column(vec![
            Node::button("go", "Go", Variant::Primary, false),
            Node::Divider {},
            Node::List {
                id: "l".into(),
                items: vec![ListItem {
                    id: "a".into(),
                    title: "A".into(),
                    tone: Some(Tone::Success),
                    actions: vec![ItemAction::new("allow", "Allow")],
                    ..Default::default()
                }],
                empty: None,
            },
        ]);
        assert_eq!(
            serde_json::to_value(&tree).expect("json"),
            json!({"type": "column", "gap": "small", "children": [
                {"type": "button", "id": "go", "label": "Go", "variant": "primary"},
                {"type": "divider"},
                {"type": "list", "id": "l", "items": [{"id": "a", "title": "A", "tone": "success",
                    "actions": [{"id": "allow", "label": "Allow"}]}]}
            ]})
        );
        assert_eq!(tree.weight(), 1 + 1 + 1 + (1 + 1 + 1));
        assert_eq!(tree.depth(), 1);
    }
}
