//! One session of the panel: its rows (in the order they first appeared, replaced in place when
//! the bridge re-emits them), the permissions waiting for the user, the turn in progress, and
//! what it takes to resume it.

use crate::permission::Pending;
use crate::rows::{self, RowKind};
use crate::ui::ListItem;
use agent_bridge_protocol::{
    Capability, ItemBody, PromptResult, ProviderConfigState, ProviderEvent, ProviderPersistence,
    ProviderPrompt, TurnState,
};
use std::collections::HashMap;

/// Where the session is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nothing sent to the bridge yet (opens with the first prompt).
    New,
    Opening,
    Ready,
    Closed,
}

/// The pane a second opinion was asked about.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneRef {
    pub pane_id: Option<u64>,
    /// `claude` or `codex`, as Agentty names the pane's agent.
    pub agent: Option<String>,
    pub cwd: Option<String>,
    pub title: String,
}

#[derive(Debug, Clone)]
pub enum RowBody {
    Item(ListItem),
    /// The rows of a waiting permission, drawn from `pending`.
    Permission(String),
}

#[derive(Debug, Clone)]
pub struct Row {
    pub id: String,
    pub kind: RowKind,
    pub body: RowBody,
}

/// Something the app has to act on after an event.
#[derive(Debug, Clone, PartialEq)]
pub enum Happening {
    /// The session opened: queued prompts can go.
    Ready,
    /// A turn ended (`reply`: the last assistant text).
    TurnEnded {
        state: TurnState,
        reply: Option<String>,
    },
    /// The agent waits for the user.
    Asked(String),
    /// What is remembered about the session changed.
    Remember,
    /// The session is gone.
    Closed,
}

#[derive(Debug)]
pub struct PanelSession {
    /// The panel's id of the session: what `sessions` lists and the index remembers.
    pub key: String,
    /// The bridge session id of this run of it (a resumed session gets a new one).
    pub id: String,
    pub provider: String,
    pub label: String,
    pub cwd: String,
    pub title: String,
    pub phase: Phase,
    /// The running turn (`Some("")` between admission and the turn's id).
    pub running: Option<String>,
    pub rows: Vec<Row>,
    index: HashMap<String, usize>,
    pub pending: Vec<Pending>,
    /// Prompts that wait for the session to open.
    pub queued: Vec<ProviderPrompt>,
    pub persistence: Option<ProviderPersistence>,
    pub config: Option<ProviderConfigState>,
    pub capabilities: Vec<Capability>,
    pub second: Option<PaneRef>,
    /// The newest assistant text and its row.
    pub reply: Option<(String, String)>,
    /// The mode and model this session opens with (`None`: the agent's picked ones).
    pub mode: Option<String>,
    pub model: Option<String>,
    /// The turn a tool call (`ask_agent`) asked for, and what it did.
    pub tool: Option<crate::tools::ToolTurn>,
    /// Bumped for each usage report without a turn id.
    usage_seq: u64,
}

impl PanelSession {
    pub fn new(id: String, provider: &str, label: &str, cwd: String) -> PanelSession {
        PanelSession {
            key: id.clone(),
            id,
            provider: provider.into(),
            label: label.into(),
            cwd,
            title: String::new(),
            phase: Phase::New,
            running: None,
            rows: Vec::new(),
            index: HashMap::new(),
            pending: Vec::new(),
            queued: Vec::new(),
            persistence: None,
            config: None,
            capabilities: Vec::new(),
            second: None,
            reply: None,
            mode: None,
            model: None,
            tool: None,
            usage_seq: 0,
        }
    }

    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Whether the session can be closed without losing anything in flight.
    pub fn is_idle(&self) -> bool {
        self.running.is_none() && self.pending.is_empty() && self.queued.is_empty()
    }

    pub fn can(&self, capability: Capability) -> bool {
        self.capabilities.contains(&capability)
    }

    /// Adds a row, or replaces the row with the same id where it is.
    pub fn upsert(&mut self, id: String, kind: RowKind, body: RowBody) {
        match self.index.get(&id) {
            Some(&at) => self.rows[at] = Row { id, kind, body },
            None => {
                self.index.insert(id.clone(), self.rows.len());
                self.rows.push(Row { id, kind, body });
            }
        }
    }

    fn remove(&mut self, id: &str) {
        if self.index.remove(id).is_some() {
            self.rows.retain(|r| r.id != id);
            self.index = self
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| (r.id.clone(), i))
                .collect();
        }
    }

    /// An error row of the panel's own (an open or a prompt that failed).
    pub fn error(&mut self, id: String, message: &str) {
        let item = rows::error(id.clone(), message);
        self.upsert(id, RowKind::Error, RowBody::Item(item));
    }

    /// Takes the permission `id` off the panel.
    pub fn resolve(&mut self, id: &str) {
        self.pending.retain(|p| p.request.id != id);
        self.remove(&format!("perm:{id}"));
    }

    /// Applies one bridge event of this session.
    pub fn apply(&mut self, event: ProviderEvent) -> Vec<Happening> {
        let mut out = Vec::new();
        match event {
            ProviderEvent::SessionOpened {
                persistence,
                title,
                cwd,
                ..
            } => {
                self.cwd = cwd;
                if let Some(p) = persistence {
                    self.persistence = Some(p);
                }
                if self.title.is_empty() {
                    self.title = title.unwrap_or_default();
                }
                out.push(Happening::Remember);
            }
            ProviderEvent::SessionReady { .. } => {
                self.phase = Phase::Ready;
                out.push(Happening::Ready);
            }
            ProviderEvent::SessionConfig { config, .. } => self.config = Some(config),
            ProviderEvent::SessionPersistence { persistence, .. } => {
                self.persistence = Some(persistence);
                out.push(Happening::Remember);
            }
            ProviderEvent::TimelineItem { item, .. } => {
                if let ItemBody::AssistantMessage { text, .. } = &item.body {
                    self.reply = Some((format!("item:{}", item.id), text.clone()));
                }
                if let ItemBody::UserMessage { text, .. } = &item.body {
                    if self.title.is_empty() {
                        self.title = agent_bridge_protocol::prompt_preview(text);
                        out.push(Happening::Remember);
                    }
                }
                let (kind, row) = rows::timeline(&item, &self.label);
                self.upsert(row.id.clone(), kind, RowBody::Item(row));
            }
            ProviderEvent::SessionUsage { turn_id, usage, .. } => {
                let id = match turn_id {
                    Some(t) => format!("usage:{t}"),
                    None => {
                        self.usage_seq += 1;
                        format!("usage:#{}", self.usage_seq)
                    }
                };
                let row = rows::usage(id.clone(), &usage);
                self.upsert(id, RowKind::Usage, RowBody::Item(row));
            }
            ProviderEvent::SessionNotice { notice, .. } => {
                let id = format!("notice:{}", notice.id);
                if notice.dismissed == Some(true) {
                    self.remove(&id);
                } else {
                    self.upsert(id, RowKind::Note, RowBody::Item(rows::notice(&notice)));
                }
            }
            ProviderEvent::SessionPermission { request, .. } => {
                let id = request.id.clone();
                let title = request
                    .title
                    .clone()
                    .unwrap_or_else(|| request.name.clone());
                self.pending.retain(|p| p.request.id != id);
                self.pending.push(Pending::new(request));
                self.upsert(
                    format!("perm:{id}"),
                    RowKind::Permission,
                    RowBody::Permission(id),
                );
                out.push(Happening::Asked(title));
            }
            ProviderEvent::SessionPermissionResolved { permission_id, .. } => {
                self.resolve(&permission_id)
            }
            ProviderEvent::SessionPromptResult {
                client_message_id,
                result,
                ..
            } => match result {
                PromptResult::Turn { turn_id } => self.running = Some(turn_id),
                PromptResult::Steer { .. } => {}
                PromptResult::Completed => {
                    self.running = None;
                    out.push(Happening::TurnEnded {
                        state: TurnState::Completed,
                        reply: None,
                    });
                }
                PromptResult::Failed { error } => {
                    self.error(format!("prompt:{client_message_id}"), &error.to_string());
                    if self.running.as_deref() == Some("") {
                        self.running = None;
                        out.push(Happening::TurnEnded {
                            state: TurnState::Failed,
                            reply: None,
                        });
                    }
                }
            },
            ProviderEvent::SessionTurn {
                turn_id,
                state,
                error,
                ..
            } => match state {
                TurnState::Started => self.running = Some(turn_id),
                ended => {
                    let mine = self
                        .running
                        .as_deref()
                        .is_some_and(|r| r.is_empty() || r == turn_id);
                    if mine {
                        self.running = None;
                    }
                    match (ended, error) {
                        (TurnState::Failed, e) => {
                            let why = e.map(|e| e.to_string());
                            let why = why.as_deref().unwrap_or("The turn failed");
                            self.error(format!("turn:{turn_id}"), why);
                        }
                        (TurnState::Canceled, _) => {
                            let row = rows::error(format!("turn:{turn_id}"), "Interrupted");
                            let mut row = row;
                            row.tone = Some(crate::ui::Tone::Warning);
                            row.icon = Some("circle-pause".into());
                            let id = row.id.clone();
                            self.upsert(id, RowKind::Note, RowBody::Item(row));
                        }
                        _ => {}
                    }
                    out.push(Happening::TurnEnded {
                        state: ended,
                        reply: self.reply.as_ref().map(|(_, t)| t.clone()),
                    });
                    out.push(Happening::Remember);
                }
            },
            ProviderEvent::SessionRuntimeFailed { error, .. } => {
                self.error(format!("runtime:{}", self.rows.len()), &error.to_string());
            }
            ProviderEvent::SessionClosed { error, .. } => {
                self.phase = Phase::Closed;
                self.running = None;
                self.queued.clear();
                let ids: Vec<String> = self.pending.iter().map(|p| p.request.id.clone()).collect();
                for id in ids {
                    self.resolve(&id);
                }
                if let Some(e) = error {
                    self.error("closed".into(), &e.to_string());
                }
                out.push(Happening::Closed);
            }
            ProviderEvent::SessionCommands { .. }
            | ProviderEvent::SessionCanStopRuntime { .. }
            | ProviderEvent::Catalog { .. }
            | ProviderEvent::Sessions { .. }
            | ProviderEvent::RequestCompleted { .. }
            | ProviderEvent::RequestFailed { .. } => {}
        }
        out
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
