//! The panel's state and what it asks for. `App` holds no IO: every handler returns the
//! [`Effect`]s the driver carries out (inputs for the bridge, requests and notifications for
//! Agentty), so the whole panel is testable without either. Bridge events: `events`.

use crate::limits::{NOTIFY_INTERVAL, OPEN_SESSIONS};
use crate::session::{PanelSession, Phase};
use crate::store::{self, Store, StoredSession};
use crate::wire::Context;
use agent_bridge_protocol::{
    Capability, HistoryMode, ProviderCatalog, ProviderInput, ProviderSessionConfig,
};
use serde_json::{json, Value};
use std::time::Instant;

/// Whether an agent's CLI can be used here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    Checking,
    Available,
    /// Why not (missing, not logged in, too old).
    Unavailable(String),
}

/// One provider of `plugin.json`, as the panel offers it.
#[derive(Debug, Clone)]
pub struct Agent {
    pub id: String,
    pub label: String,
    pub capabilities: Vec<Capability>,
    /// The built-in demo agent (offered only with `AGENT_BRIDGE_DEMO=1`).
    pub demo: bool,
    pub availability: Availability,
    pub catalog: Option<ProviderCatalog>,
    pub catalog_asked: bool,
    /// The mode and model picked for its next session.
    pub mode: Option<String>,
    pub model: Option<String>,
}

impl Agent {
    pub fn new(id: &str, label: &str, capabilities: Vec<Capability>) -> Agent {
        Agent {
            id: id.into(),
            label: label.into(),
            capabilities,
            demo: false,
            availability: Availability::Checking,
            catalog: None,
            catalog_asked: false,
            mode: None,
            model: None,
        }
    }
}

/// Why the panel asked Agentty something; the answer is handed back with it.
#[derive(Debug, Clone, PartialEq)]
pub enum Purpose {
    Panel,
    ShowPanel,
    /// `session/get` for a second opinion asked with this question.
    SecondOpinion {
        question: String,
    },
    /// `prompt/inject` of a reply back to the pane.
    Inject,
}

/// What the driver does for the app.
#[derive(Debug, Clone, PartialEq)]
// Effects are made and carried out at once; boxing the input would only complicate matching.
#[allow(clippy::large_enum_variant)]
pub enum Effect {
    /// An input on the provider's connection (connecting first when there is none).
    Bridge {
        provider: String,
        input: ProviderInput,
    },
    /// A request to Agentty.
    Host {
        method: &'static str,
        params: Value,
        purpose: Purpose,
    },
    /// The answer to Agentty's request `id` (a `tools/call`).
    Reply {
        id: Value,
        result: Result<Value, (i64, String)>,
    },
}

/// A status line under the header: what just went wrong or what is going on.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub text: String,
    pub error: bool,
}

pub struct App {
    pub agents: Vec<Agent>,
    /// The provider `agent` shows.
    pub selected: Option<String>,
    pub sessions: Vec<PanelSession>,
    /// Index into `sessions` of the one the panel shows.
    pub current: Option<usize>,
    pub store: Store,
    pub context: Context,
    /// What is typed in `prompt` (from its `change` events).
    pub draft: String,
    /// The text to echo once into `prompt` before clearing it (see `view`).
    pub clear_prompt: Option<String>,
    pub status: Option<Status>,
    pub panel_open: bool,
    pub dirty: bool,
    /// The `tools/call`s Agentty waits on.
    pub tools: crate::tool_calls::ToolCalls,
    notice: Option<(String, &'static str)>,
    noticed_at: Option<Instant>,
    next: u64,
}

impl App {
    pub fn new(agents: Vec<Agent>, store: Store) -> App {
        App {
            agents,
            selected: None,
            sessions: Vec::new(),
            current: None,
            store,
            context: Context::default(),
            draft: String::new(),
            clear_prompt: None,
            status: None,
            panel_open: false,
            dirty: true,
            tools: Default::default(),
            notice: None,
            noticed_at: None,
            next: 0,
        }
    }

    pub(crate) fn seq(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// A key no other session of this folder's index has: the time in milliseconds, this
    /// process and a counter (a restart within the same second must not reuse one).
    pub(crate) fn new_key(&mut self) -> String {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let n = self.seq();
        format!("ab-{millis}-{}-{n}", std::process::id())
    }

    pub fn agent(&self, id: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.id == id)
    }

    fn agent_mut(&mut self, id: &str) -> Option<&mut Agent> {
        self.agents.iter_mut().find(|a| a.id == id)
    }

    pub fn label(&self, id: &str) -> String {
        self.agent(id)
            .map(|a| a.label.clone())
            .unwrap_or_else(|| id.to_string())
    }

    pub fn current(&self) -> Option<&PanelSession> {
        self.current.and_then(|i| self.sessions.get(i))
    }

    pub fn current_mut(&mut self) -> Option<&mut PanelSession> {
        self.current.and_then(|i| self.sessions.get_mut(i))
    }

    pub fn set_status(&mut self, text: impl Into<String>, error: bool) {
        self.status = Some(Status {
            text: text.into(),
            error,
        });
        self.dirty = true;
    }

    /// The folder new sessions run in: the workspace's, else the home folder.
    pub fn cwd(&self) -> String {
        self.context
            .workspace_cwd
            .clone()
            .or_else(|| std::env::var_os("HOME").map(Into::into))
            .unwrap_or_else(|| "/".into())
            .display()
            .to_string()
    }

    /// Turns running across the panel's sessions (the badge).
    pub fn running(&self) -> usize {
        self.sessions.iter().filter(|s| s.is_running()).count()
    }

    /// A new context: new sessions run in its workspace folder (an unopened current session
    /// moves along), the sessions list shows that folder's.
    pub fn on_context(&mut self, context: Context) {
        if context == self.context {
            return;
        }
        self.context = context;
        self.dirty = true;
        let cwd = self.cwd();
        if let Some(s) = self
            .current_mut()
            .filter(|s| s.phase == Phase::New && s.queued.is_empty())
        {
            s.cwd = cwd;
        }
    }

    pub fn on_panel(&mut self, open: bool) {
        self.panel_open = open;
        self.dirty = true;
    }

    /// An availability answer; the first available agent becomes the selection.
    pub fn on_availability(&mut self, provider: &str, availability: Availability) -> Vec<Effect> {
        if let Some(a) = self.agent_mut(provider) {
            a.availability = availability;
        }
        self.dirty = true;
        match self.selected {
            None => match self.default_agent() {
                Some(id) => self.select(&id),
                None => Vec::new(),
            },
            Some(_) => Vec::new(),
        }
    }

    /// The agent to start with, once it can be told: the one picked last time when it is
    /// available, else the first available one in `plugin.json`'s order that is not the demo,
    /// else the demo. `None` while a check that decides it is still running.
    fn default_agent(&self) -> Option<String> {
        let state = |id: &str| self.agent(id).map(|a| a.availability.clone());
        if let Some(r) = self.store.agent() {
            match state(r) {
                Some(Availability::Available) => return Some(r.to_string()),
                Some(Availability::Checking) => return None,
                _ => {}
            }
        }
        let mut demo = None;
        for a in &self.agents {
            match (&a.availability, a.demo) {
                (Availability::Checking, false) => return None,
                (Availability::Available, false) => return Some(a.id.clone()),
                (Availability::Available, true) => demo = Some(a.id.clone()),
                _ => {}
            }
        }
        demo
    }

    pub fn is_available(&self, provider: &str) -> bool {
        self.agent(provider)
            .is_some_and(|a| a.availability == Availability::Available)
    }

    /// Makes `provider` the agent of new sessions; an unopened current session takes it over,
    /// an opened one stays open (in `sessions`) and a new one becomes current.
    pub fn select(&mut self, provider: &str) -> Vec<Effect> {
        if self.agent(provider).is_none() {
            return Vec::new();
        }
        self.selected = Some(provider.to_string());
        self.store.set_agent(provider);
        self.dirty = true;
        let label = self.label(provider);
        let unopened = self
            .current()
            .is_some_and(|s| s.phase == Phase::New && s.queued.is_empty());
        match self.current_mut() {
            Some(s) if unopened => {
                s.provider = provider.to_string();
                s.label = label;
            }
            Some(s) if s.provider == provider => {}
            _ => self.new_session(),
        }
        self.ask_catalog(provider)
    }

    pub(crate) fn ask_catalog(&mut self, provider: &str) -> Vec<Effect> {
        let cwd = self.cwd();
        let Some(a) = self.agent_mut(provider) else {
            return Vec::new();
        };
        if a.catalog_asked {
            return Vec::new();
        }
        a.catalog_asked = true;
        vec![Effect::Bridge {
            provider: provider.to_string(),
            input: ProviderInput::Catalog {
                request_id: format!("catalog:{provider}"),
                cwd: Some(cwd),
                provider_options: None,
                settings: None,
            },
        }]
    }

    /// A fresh, unopened session of the selected agent becomes current.
    pub fn new_session(&mut self) {
        let Some(provider) = self.selected.clone() else {
            return;
        };
        let key = self.new_key();
        let session = PanelSession::new(key, &provider, &self.label(&provider), self.cwd());
        self.sessions.push(session);
        self.current = Some(self.sessions.len() - 1);
        self.dirty = true;
    }

    /// `session.open` for session `index` (resuming when it carries a handle).
    pub fn open(&mut self, index: usize) -> Vec<Effect> {
        let mut effects = self.evict(index);
        let Some(s) = self.sessions.get(index) else {
            return effects;
        };
        let agent = self.agent(&s.provider);
        let capabilities = agent.map(|a| a.capabilities.clone()).unwrap_or_default();
        let config = ProviderSessionConfig {
            cwd: s.cwd.clone(),
            model: s
                .model
                .clone()
                .or_else(|| agent.and_then(|a| a.model.clone())),
            mode: s
                .mode
                .clone()
                .or_else(|| agent.and_then(|a| a.mode.clone())),
            title: (!s.title.is_empty()).then(|| s.title.clone()),
            persist: true,
            ..Default::default()
        };
        let resume = s.persistence.clone();
        let history = if resume.is_some() {
            HistoryMode::Replay
        } else {
            HistoryMode::Skip
        };
        let input = ProviderInput::SessionOpen {
            request_id: format!("open:{}", s.id),
            session_id: s.id.clone(),
            config,
            persistence: resume,
            history,
        };
        let provider = s.provider.clone();
        if let Some(s) = self.sessions.get_mut(index) {
            s.phase = Phase::Opening;
            s.capabilities = capabilities;
        }
        self.remember(index);
        effects.push(Effect::Bridge { provider, input });
        effects
    }

    /// Closes the oldest idle open session (not `keep`, not current) once too many are open.
    fn evict(&mut self, keep: usize) -> Vec<Effect> {
        let open = |s: &PanelSession| matches!(s.phase, Phase::Opening | Phase::Ready);
        if self.sessions.iter().filter(|s| open(s)).count() < OPEN_SESSIONS {
            return Vec::new();
        }
        let victim = (0..self.sessions.len()).find(|&i| {
            i != keep && Some(i) != self.current && {
                let s = &self.sessions[i];
                open(s) && s.is_idle()
            }
        });
        let Some(i) = victim else {
            return Vec::new();
        };
        let s = &mut self.sessions[i];
        s.phase = Phase::Closed;
        vec![Effect::Bridge {
            provider: s.provider.clone(),
            input: ProviderInput::SessionClose {
                request_id: format!("close:{}", s.id),
                session_id: s.id.clone(),
            },
        }]
    }

    /// Writes what resumes session `index` to the index file.
    pub fn remember(&mut self, index: usize) {
        let Some(s) = self.sessions.get(index) else {
            return;
        };
        let title = if s.title.is_empty() {
            "New session".to_string()
        } else {
            s.title.clone()
        };
        let entry = StoredSession {
            id: s.key.clone(),
            provider: s.provider.clone(),
            cwd: s.cwd.clone(),
            title,
            updated_at: store::now(),
            persistence: s.persistence.clone(),
        };
        self.store.put(entry);
    }

    /// Queues a `ui/notify`: the newest one wins while Agentty's interval runs.
    pub fn notify(&mut self, message: String, kind: &'static str) {
        self.notice = Some((message, kind));
    }

    /// The `ui/notify` params due at `now`, if any.
    pub fn due_notice(&mut self, now: Instant) -> Option<Value> {
        let ready = self
            .noticed_at
            .is_none_or(|t| now.duration_since(t) >= NOTIFY_INTERVAL);
        if !ready {
            return None;
        }
        let (message, kind) = self.notice.take()?;
        self.noticed_at = Some(now);
        Some(json!({"message": message, "kind": kind}))
    }
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;
