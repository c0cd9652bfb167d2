//! The node types of a panel tree and their fields, as Agentty's host reads them
//! (`crates/agentty-bridge/src/plugins/ui.rs`, `Node`, checked at 0483136): a serde enum tagged by
//! `type`, without `deny_unknown_fields`. So an unknown `type`, a missing required field, a value
//! of the wrong JSON type or an enum value it does not know makes the whole tree invalid; an
//! unknown field is ignored. `since` is the API version a node or field came with (`(API 4)` in
//! the host's comments; `flow` and `popover` are the `uiFeatures` "added since the first API
//! version", with no number given, so 2 is the lowest they can be).

/// What a field holds, as serde would read it.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// `String`: a string, never null.
    Str,
    /// `Option<String>`: a string or null.
    Nullable,
    Bool,
    /// An unsigned integer up to this.
    Uint(u64),
    /// `f64`.
    Num,
    /// One of these strings (a serde enum of unit variants).
    Enum(&'static [&'static str]),
    /// `Vec<String>`.
    Strings,
    /// `Vec<Node>`.
    Children,
    /// `Vec` of objects of this shape.
    Objects(&'static [Field]),
}

/// One field: its JSON name, kind, whether serde requires it, and the API version it came with.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub since: u32,
}

const fn req(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: true,
        since: 1,
    }
}

const fn opt(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: false,
        since: 1,
    }
}

const fn v4(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: false,
        since: 4,
    }
}

pub const GAPS: &[&str] = &["none", "small", "medium", "large"];
pub const STYLES: &[&str] = &[
    "body", "title", "muted", "small", "code", "error", "success",
];
pub const VARIANTS: &[&str] = &["primary", "secondary", "ghost", "danger"];
pub const TONES: &[&str] = &["neutral", "info", "success", "warning", "error"];
const ALIGNS: &[&str] = &["start", "center", "end"];
const FLOW_STATES: &[&str] = &["off", "on", "active", "done", "error"];

const TONE: Kind = Kind::Enum(TONES);
const S: Kind = Kind::Str;
const N: Kind = Kind::Nullable;
const B: Kind = Kind::Bool;

const OPTION: &[Field] = &[req("value", S), req("label", S)];
const COMPLETION: &[Field] = &[req("label", S), opt("insert", N), opt("detail", N)];
const ACTION: &[Field] = &[
    req("id", S),
    opt("label", N),
    opt("icon", N),
    opt("tooltip", N),
];
const ITEM: &[Field] = &[
    req("id", S),
    req("title", S),
    opt("subtitle", N),
    opt("detail", N),
    opt("icon", N),
    opt("tone", TONE),
    opt("actions", Kind::Objects(ACTION)),
    opt("depth", Kind::Uint(u8::MAX as u64)),
    opt("tag", N),
    opt("tagTone", TONE),
    v4("selected", B),
];
const STEP: &[Field] = &[
    req("id", S),
    req("title", S),
    opt("subtitle", N),
    opt("icon", N),
    opt("state", Kind::Enum(FLOW_STATES)),
    opt("selected", B),
    opt("side", B),
];
const TAB: &[Field] = &[
    req("id", S),
    req("label", S),
    opt("icon", N),
    opt("badge", N),
    opt("closable", B),
];
const COLUMN: &[Field] = &[
    req("label", S),
    opt("align", Kind::Enum(ALIGNS)),
    opt("grow", Kind::Uint(u32::MAX as u64)),
];
const TABLE_ROW: &[Field] = &[req("id", S), opt("cells", Kind::Strings), opt("tone", TONE)];
const KEY_VALUE: &[Field] = &[
    req("label", S),
    req("value", S),
    opt("tone", TONE),
    opt("mono", B),
];

/// A node type: its `type`, the API version it came with, and its fields.
pub struct NodeType {
    pub name: &'static str,
    pub since: u32,
    pub fields: &'static [Field],
}

pub const NODE_TYPES: &[NodeType] = &[
    NodeType {
        name: "column",
        since: 1,
        fields: &[
            opt("children", Kind::Children),
            opt("gap", Kind::Enum(GAPS)),
        ],
    },
    NodeType {
        name: "row",
        since: 1,
        fields: &[
            opt("children", Kind::Children),
            opt("gap", Kind::Enum(GAPS)),
            opt("wrap", B),
        ],
    },
    NodeType {
        name: "section",
        since: 1,
        fields: &[req("title", S), opt("children", Kind::Children)],
    },
    NodeType {
        name: "text",
        since: 1,
        fields: &[req("text", S), opt("style", Kind::Enum(STYLES))],
    },
    NodeType {
        name: "button",
        since: 1,
        fields: &[
            req("id", S),
            req("label", S),
            opt("icon", N),
            opt("variant", Kind::Enum(VARIANTS)),
            opt("disabled", B),
            v4("menu", Kind::Objects(OPTION)),
        ],
    },
    NodeType {
        name: "input",
        since: 1,
        fields: &[
            req("id", S),
            opt("placeholder", S),
            opt("value", S),
            opt("rows", Kind::Uint(u64::MAX)),
            v4("mono", B),
            v4("completions", Kind::Objects(COMPLETION)),
            v4("language", N),
        ],
    },
    NodeType {
        name: "list",
        since: 1,
        fields: &[
            req("id", S),
            opt("items", Kind::Objects(ITEM)),
            opt("empty", N),
        ],
    },
    NodeType {
        name: "choice",
        since: 1,
        fields: &[
            req("id", S),
            opt("options", Kind::Objects(OPTION)),
            opt("value", S),
        ],
    },
    NodeType {
        name: "toggle",
        since: 1,
        fields: &[req("id", S), req("label", S), opt("value", B)],
    },
    NodeType {
        name: "badge",
        since: 1,
        fields: &[req("text", S), opt("tone", TONE)],
    },
    NodeType {
        name: "spinner",
        since: 1,
        fields: &[opt("text", S)],
    },
    NodeType {
        name: "divider",
        since: 1,
        fields: &[],
    },
    NodeType {
        name: "flow",
        since: 2,
        fields: &[
            req("id", S),
            opt("steps", Kind::Objects(STEP)),
            v4("reorderable", B),
            v4("insertMenu", Kind::Objects(OPTION)),
        ],
    },
    NodeType {
        name: "popover",
        since: 2,
        fields: &[
            req("id", S),
            req("title", S),
            opt("children", Kind::Children),
        ],
    },
    NodeType {
        name: "card",
        since: 4,
        fields: &[
            opt("title", N),
            opt("subtitle", N),
            opt("icon", N),
            opt("tone", TONE),
            opt("children", Kind::Children),
            opt("id", N),
            opt("closable", B),
        ],
    },
    NodeType {
        name: "grid",
        since: 4,
        fields: &[
            opt("children", Kind::Children),
            opt("columns", Kind::Uint(u64::MAX)),
            opt("gap", Kind::Enum(GAPS)),
            opt("widths", Kind::Strings),
            opt("id", N),
            opt("align", Kind::Enum(ALIGNS)),
            opt("resizable", B),
            opt("fill", B),
        ],
    },
    NodeType {
        name: "tabs",
        since: 4,
        fields: &[
            req("id", S),
            opt("tabs", Kind::Objects(TAB)),
            opt("value", S),
            opt("children", Kind::Children),
            opt("fill", B),
            opt("addMenu", Kind::Objects(OPTION)),
        ],
    },
    NodeType {
        name: "table",
        since: 4,
        fields: &[
            req("id", S),
            opt("columns", Kind::Objects(COLUMN)),
            opt("rows", Kind::Objects(TABLE_ROW)),
            opt("empty", N),
            opt("selected", N),
        ],
    },
    NodeType {
        name: "keyValue",
        since: 4,
        fields: &[opt("items", Kind::Objects(KEY_VALUE))],
    },
    NodeType {
        name: "stat",
        since: 4,
        fields: &[
            req("label", S),
            req("value", S),
            opt("detail", N),
            opt("icon", N),
            opt("tone", TONE),
        ],
    },
    NodeType {
        name: "progress",
        since: 4,
        fields: &[
            opt("value", Kind::Num),
            opt("label", N),
            opt("detail", N),
            opt("tone", TONE),
        ],
    },
    NodeType {
        name: "callout",
        since: 4,
        fields: &[
            req("text", S),
            opt("title", N),
            opt("icon", N),
            opt("tone", TONE),
        ],
    },
    NodeType {
        name: "select",
        since: 4,
        fields: &[
            req("id", S),
            opt("options", Kind::Objects(OPTION)),
            opt("value", S),
            opt("placeholder", N),
            opt("disabled", B),
        ],
    },
    NodeType {
        name: "checkbox",
        since: 4,
        fields: &[
            req("id", S),
            req("label", S),
            opt("value", B),
            opt("description", N),
            opt("disabled", B),
        ],
    },
    NodeType {
        name: "code",
        since: 4,
        fields: &[req("text", S), opt("language", N), opt("title", N)],
    },
];

pub fn node_type(name: &str) -> Option<&'static NodeType> {
    NODE_TYPES.iter().find(|t| t.name == name)
}
