//! The panel tree of the app's state. Element ids are fixed (other programs drive the panel by
//! them): `agent`, `mode`, `model`, `prompt` (its `submit`), `send`, `interrupt`, `new`,
//! `second_opinion`, `timeline` (row actions `allow`, `deny`, `allow_always`, a question's
//! `option-N` / `typed`, `send_to_pane`) and `sessions` (its `select`).

use crate::app::{App, Availability};
use crate::limits::{cut, CHOICE_OPTIONS, NODE_BUDGET, SESSIONS_SHOWN, TIMELINE_WINDOW};
use crate::rows::RowKind;
use crate::session::{PanelSession, RowBody};
use crate::ui::{ChoiceOption, ListItem, Node, TextStyle, Tone, Variant};
use std::collections::BTreeMap;

impl App {
    /// The tree to send now. Clears `dirty`, except when the prompt is being cleared (that
    /// takes a second tree, see `prompt`).
    pub fn render(&mut self) -> Node {
        let echo = self.clear_prompt.take();
        self.dirty = echo.is_some();
        let mut window = TIMELINE_WINDOW;
        loop {
            let tree = self.tree(window, echo.clone());
            if tree.weight() <= NODE_BUDGET || window <= 8 {
                return tree;
            }
            window /= 2;
        }
    }

    fn tree(&self, window: usize, echo: Option<String>) -> Node {
        let mut top = vec![self.header()];
        if let Some(status) = &self.status {
            let style = if status.error {
                TextStyle::Error
            } else {
                TextStyle::Muted
            };
            top.push(Node::text(cut(&status.text, 400), style));
        }
        top.push(Node::section("Agent", self.agent_controls()));
        let session = self.current();
        let title = match session {
            Some(s) if !s.title.is_empty() => format!("{} · {}", cut(&s.title, 60), s.label),
            Some(s) => format!("New session · {}", s.label),
            None => "Session".into(),
        };
        let mut body = vec![Node::List {
            id: "timeline".into(),
            items: session
                .map(|s| self.timeline(s, window))
                .unwrap_or_default(),
            empty: Some("Type a prompt below and press Send".into()),
        }];
        if let Some(s) = session.filter(|s| s.is_running()) {
            body.push(Node::Spinner {
                text: Some(format!("{} is working…", s.label)),
            });
        }
        top.push(Node::section(title, body));
        top.push(self.prompt_input(echo));
        top.push(self.buttons());
        top.push(Node::section(
            "Sessions in this workspace",
            vec![Node::List {
                id: "sessions".into(),
                items: self.session_rows(),
                empty: Some("No earlier sessions here".into()),
            }],
        ));
        Node::column(top)
    }

    fn header(&self) -> Node {
        let mut parts = Vec::new();
        let running = self.running();
        if running > 0 {
            parts.push(Node::Badge {
                text: format!("{running} running"),
                tone: Some(Tone::Info),
            });
        }
        let place = match (&self.context.workspace_name, &self.context.workspace_cwd) {
            (Some(name), _) if !name.is_empty() => name.clone(),
            (_, Some(cwd)) => cwd.display().to_string(),
            _ => format!("no workspace folder (sessions run in {})", self.cwd()),
        };
        parts.push(Node::text(cut(&place, 120), TextStyle::Muted));
        Node::row(parts)
    }

    fn agent_controls(&self) -> Vec<Node> {
        let mut out = Vec::new();
        let offered: Vec<ChoiceOption> = self
            .agents
            .iter()
            .filter(|a| a.availability == Availability::Available)
            .map(|a| ChoiceOption {
                value: a.id.clone(),
                label: a.label.clone(),
            })
            .collect();
        let checking = self
            .agents
            .iter()
            .any(|a| a.availability == Availability::Checking);
        if !offered.is_empty() {
            out.push(Node::Choice {
                id: "agent".into(),
                options: offered,
                value: self.selected.clone(),
            });
        }
        if checking {
            out.push(Node::Spinner {
                text: Some("Checking which agent CLIs are installed…".into()),
            });
        }
        let missing: Vec<String> = self
            .agents
            .iter()
            .filter_map(|a| match &a.availability {
                Availability::Unavailable(why) => Some(format!("{} ({})", a.label, cut(why, 80))),
                _ => None,
            })
            .collect();
        if !missing.is_empty() {
            let text = format!("Not available: {}", missing.join("; "));
            out.push(Node::text(cut(&text, 1_000), TextStyle::Small));
        }
        let provider = self
            .current()
            .map(|s| s.provider.clone())
            .or(self.selected.clone());
        if let Some(a) = provider.as_deref().and_then(|p| self.agent(p)) {
            let config = self.current().and_then(|s| s.config.as_ref());
            let (modes, models) = match (config, &a.catalog) {
                (Some(c), _) => (
                    c.modes
                        .iter()
                        .map(|m| (m.id.clone(), m.label.clone()))
                        .collect(),
                    c.models
                        .iter()
                        .filter(|m| m.is_selectable != Some(false))
                        .map(|m| (m.id.clone(), m.label.clone()))
                        .collect(),
                ),
                (None, Some(c)) => (
                    c.modes
                        .iter()
                        .map(|m| (m.id.clone(), m.label.clone()))
                        .collect(),
                    c.models
                        .iter()
                        .filter(|m| m.is_selectable != Some(false))
                        .map(|m| (m.id.clone(), m.label.clone()))
                        .collect(),
                ),
                (None, None) => (Vec::new(), Vec::new()),
            };
            let mode = config.and_then(|c| c.mode.clone()).or(a.mode.clone());
            let model = config.and_then(|c| c.model.clone()).or(a.model.clone());
            out.extend(choice("mode", modes, mode));
            out.extend(choice("model", models, model));
        }
        out
    }

    fn prompt_input(&self, echo: Option<String>) -> Node {
        let label = self
            .selected
            .as_deref()
            .map(|p| self.label(p))
            .unwrap_or_else(|| "the agent".into());
        // One line: in Agentty only a one-line field sends `submit` on Enter; in a text area
        // (`rows` > 1) Enter adds a line and no key submits (`text_input.rs`). A paste with line
        // breaks arrives joined by spaces.
        Node::Input {
            id: "prompt".into(),
            placeholder: Some(format!("Ask {label}… (Enter sends)")),
            value: Some(echo.unwrap_or_default()),
            rows: None,
        }
    }

    fn buttons(&self) -> Node {
        let running = self.current().is_some_and(PanelSession::is_running);
        let none = self.selected.is_none();
        let label = self
            .selected
            .as_deref()
            .map(|p| self.label(p))
            .unwrap_or_else(|| "an agent".into());
        Node::row(vec![
            Node::button("send", "Send", Variant::Primary, none),
            Node::button("interrupt", "Interrupt", Variant::Danger, !running),
            Node::button("new", "New", Variant::Secondary, none),
            Node::button(
                "second_opinion",
                format!("Ask {label} about this pane"),
                Variant::Ghost,
                none,
            ),
        ])
    }

    /// The session's rows: the newest `window`, the older ones summed up in one row, and every
    /// waiting permission whatever its age.
    fn timeline(&self, s: &PanelSession, window: usize) -> Vec<ListItem> {
        let reply_row = self.reply_to_pane();
        let start = s.rows.len().saturating_sub(window);
        let mut earlier: BTreeMap<RowKind, usize> = BTreeMap::new();
        let mut items = Vec::new();
        for (i, row) in s.rows.iter().enumerate() {
            let shown = i >= start || row.kind == RowKind::Permission;
            if !shown {
                *earlier.entry(row.kind).or_default() += 1;
                continue;
            }
            match &row.body {
                RowBody::Item(item) => {
                    let mut item = item.clone();
                    if reply_row == Some(item.id.as_str()) {
                        item.actions.push(crate::second::send_action());
                    }
                    items.push(item);
                }
                RowBody::Permission(id) => {
                    if let Some(p) = s.pending.iter().find(|p| &p.request.id == id) {
                        items.extend(p.rows());
                    }
                }
            }
        }
        if !earlier.is_empty() {
            let total: usize = earlier.values().sum();
            let parts: Vec<String> = earlier.iter().map(|(k, n)| k.count(*n)).collect();
            items.insert(
                0,
                ListItem {
                    id: "earlier".into(),
                    title: format!("{total} earlier rows not shown"),
                    subtitle: Some(parts.join(", ")),
                    icon: Some("history".into()),
                    ..Default::default()
                },
            );
        }
        items
    }

    fn session_rows(&self) -> Vec<ListItem> {
        let now = crate::store::now();
        let current = self.current().map(|s| s.key.clone());
        self.store
            .in_folder(&self.cwd())
            .into_iter()
            .take(SESSIONS_SHOWN)
            .map(|stored| {
                let open = self
                    .sessions
                    .iter()
                    .find(|s| s.key == stored.id && s.phase != crate::session::Phase::Closed);
                let detail = match open {
                    Some(s) if s.is_running() => Some("running".to_string()),
                    Some(_) => Some("open".to_string()),
                    None => None,
                };
                ListItem {
                    id: stored.id.clone(),
                    title: cut(&stored.title, 120),
                    subtitle: Some(format!(
                        "{} · {}",
                        self.label(&stored.provider),
                        ago(now - stored.updated_at)
                    )),
                    detail,
                    icon: Some("history".into()),
                    tone: (current.as_deref() == Some(stored.id.as_str())).then_some(Tone::Success),
                    actions: Vec::new(),
                }
            })
            .collect()
    }
}

fn choice(id: &str, options: Vec<(String, String)>, value: Option<String>) -> Option<Node> {
    if options.is_empty() {
        return None;
    }
    Some(Node::Choice {
        id: id.into(),
        options: options
            .into_iter()
            .take(CHOICE_OPTIONS)
            .map(|(value, label)| ChoiceOption { value, label })
            .collect(),
        value,
    })
}

/// "just now", "5 min ago", "3 h ago", "2 d ago".
fn ago(seconds: i64) -> String {
    match seconds {
        s if s < 60 => "just now".into(),
        s if s < 3_600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3_600),
        s => format!("{} d ago", s / 86_400),
    }
}
