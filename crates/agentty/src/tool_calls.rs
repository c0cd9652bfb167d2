//! Agentty's `tools/call` (API 4), answered by the panel's own sessions: `ask_agent` opens
//! (or continues) a session of the panel — listed, drawn and remembered like the user's own —
//! and the call waits for its turn; `list_agents` waits until the agents are checked and their
//! catalogs read. Every waiting call is answered before [`crate::tools::answer_within`]: with
//! the whole turn when it ended, else with what is done so far and the session id, the turn
//! going on in the panel until a later call collects it. No IO: answers are [`Effect::Reply`].

use crate::app::{App, Availability, Effect};
use crate::session::{PanelSession, Phase};
use crate::tools::{self, AskArgs, ToolTurn, MAX_WAITING};
use crate::wire::{codes, Context};
use agent_bridge_protocol::{PromptDelivery, PromptInput, ProviderContent, ProviderPrompt};
use serde_json::Value;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// How long `list_agents` waits for the checks and catalogs before it answers with what it has.
const LIST_WAIT: Duration = Duration::from_secs(15);

/// What a waiting call waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum Wait {
    /// `list_agents`: every agent checked, the catalogs of the available ones read.
    Agents,
    /// The tool-driven turn of the session with this key.
    Turn(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    pub id: Value,
    pub since: Instant,
    pub deadline: Instant,
    pub wait: Wait,
}

/// The calls Agentty waits on.
#[derive(Debug, Clone)]
pub struct ToolCalls {
    pub waiting: Vec<Waiting>,
    pub answer_within: Duration,
    /// Agents whose catalog could not be read.
    pub catalog_failed: HashSet<String>,
    /// Agents whose catalog `list_agents` wants read, in order.
    pub catalog_queue: Vec<String>,
}

impl Default for ToolCalls {
    fn default() -> ToolCalls {
        ToolCalls {
            waiting: Vec::new(),
            answer_within: tools::answer_within(),
            catalog_failed: HashSet::new(),
            catalog_queue: Vec::new(),
        }
    }
}

pub(crate) fn reply(id: &Value, result: Value) -> Effect {
    Effect::Reply {
        id: id.clone(),
        result: Ok(result),
    }
}

impl App {
    /// Agentty's `tools/call {name, arguments, context}`.
    pub fn on_tool_call(&mut self, id: Value, params: &Value, now: Instant) -> Vec<Effect> {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
        if self.tools.waiting.len() >= MAX_WAITING {
            let why = format!(
                "Agent Bridge is still busy with {MAX_WAITING} earlier calls: wait for one of \
                 them to answer before calling again."
            );
            return vec![reply(&id, tools::error(&why))];
        }
        let cwd = Context::of(params)
            .and_then(|c| c.workspace_cwd)
            .map(|p| p.display().to_string());
        let within = self.tools.answer_within;
        let waiting = |wait| Waiting {
            id: id.clone(),
            since: now,
            deadline: now + within,
            wait,
        };
        match name {
            tools::LIST_AGENTS => {
                let unread: Vec<String> = self
                    .agents
                    .iter()
                    .filter(|a| !a.catalog_asked && !self.tools.catalog_queue.contains(&a.id))
                    .map(|a| a.id.clone())
                    .collect();
                self.tools.catalog_queue.extend(unread);
                let mut w = waiting(Wait::Agents);
                w.deadline = now + LIST_WAIT.min(within);
                self.tools.waiting.push(w);
                Vec::new()
            }
            tools::ASK_AGENT => match AskArgs::parse(&arguments) {
                Err(why) => vec![reply(&id, tools::error(&why))],
                Ok(args) => {
                    // What it waits for is known once it starts: its session's turn.
                    let w = waiting(Wait::Turn(String::new()));
                    self.start(w, args, cwd)
                }
            },
            other => vec![Effect::Reply {
                id,
                result: Err((codes::INVALID_PARAMS, format!("no tool \"{other}\""))),
            }],
        }
    }

    /// The agent `name` names: its id or its label, in any case.
    pub(crate) fn find_agent(&self, name: &str) -> Option<String> {
        let name = name.trim().to_lowercase();
        self.agents
            .iter()
            .find(|a| a.id.to_lowercase() == name || a.label.to_lowercase() == name)
            .map(|a| a.id.clone())
    }

    fn agent_names(&self) -> String {
        let names: Vec<&str> = self.agents.iter().map(|a| a.id.as_str()).collect();
        names.join(", ")
    }

    /// Starts (or continues) what `ask_agent` asks for. A new session is made at once (its id
    /// is the answer's, whatever happens next); it opens once its agent is checked and its
    /// modes are read ([`App::open_waiting_sessions`]).
    fn start(&mut self, mut w: Waiting, args: AskArgs, cwd: Option<String>) -> Vec<Effect> {
        if let Some(key) = &args.session {
            return match self.continue_session(key, &args) {
                Ok(effects) => {
                    w.wait = Wait::Turn(key.clone());
                    self.tools.waiting.push(w);
                    effects
                }
                Err(why) => vec![reply(&w.id, tools::error(&why))],
            };
        }
        let name = args.agent.clone().unwrap_or_default();
        let Some(provider) = self.find_agent(&name) else {
            let why = format!(
                "No agent \"{name}\" here. The agents: {} (see list_agents).",
                self.agent_names()
            );
            return vec![reply(&w.id, tools::error(&why))];
        };
        if let Some(Availability::Unavailable(why)) = self.agent(&provider).map(|a| &a.availability)
        {
            let why = format!("{} is not available here: {why}", self.label(&provider));
            return vec![reply(&w.id, tools::error(&why))];
        }
        match self.begin(&provider, &args, cwd.as_deref()) {
            Ok(key) => {
                w.wait = Wait::Turn(key);
                self.tools.waiting.push(w);
                self.open_waiting_sessions()
            }
            Err(why) => vec![reply(&w.id, tools::error(&why))],
        }
    }

    /// A new session of `provider` for `ask_agent`, its prompt queued, not opened yet; its key.
    fn begin(
        &mut self,
        provider: &str,
        args: &AskArgs,
        context_cwd: Option<&str>,
    ) -> Result<String, String> {
        let label = self.label(provider);
        let cwd = match &args.cwd {
            Some(c)
                if std::path::Path::new(c).is_absolute() && std::path::Path::new(c).is_dir() =>
            {
                c.clone()
            }
            Some(c) => return Err(format!("`cwd` must be an existing absolute folder: {c}")),
            None => context_cwd
                .map(str::to_string)
                .unwrap_or_else(|| self.cwd()),
        };
        let prompt = args.prompt.clone().ok_or("`prompt` is missing")?;
        let key = self.new_key();
        let mut s = PanelSession::new(key.clone(), provider, &label, cwd);
        s.title = crate::limits::cut(
            &format!(
                "From a pane's agent: {}",
                agent_bridge_protocol::prompt_preview(&prompt)
            ),
            100,
        );
        s.mode = args.mode.clone();
        s.model = args.model.clone();
        let mut turn = ToolTurn::new();
        turn.deferred = true;
        s.tool = Some(turn);
        let cmid = format!("m{}", self.seq());
        s.queued.push(tool_prompt(cmid, prompt));
        self.sessions.push(s);
        self.dirty = true;
        Ok(key)
    }

    /// Opens the tool-driven sessions whose agent is ready: checked available, its catalog
    /// read (or unreadable). Its mode and model are checked against the catalog, and without a
    /// mode it gets one that cannot write. An agent found unavailable ends the turn.
    pub(crate) fn open_waiting_sessions(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        for i in 0..self.sessions.len() {
            let s = &self.sessions[i];
            if !s.tool.as_ref().is_some_and(|t| t.is_active() && t.deferred) {
                continue;
            }
            let provider = s.provider.clone();
            let Some(agent) = self.agent(&provider) else {
                continue;
            };
            let label = agent.label.clone();
            let catalog = match &agent.availability {
                Availability::Checking => continue,
                Availability::Unavailable(why) => {
                    let why = format!("{label} is not available here: {why}");
                    self.end_tool_turn(i, why);
                    continue;
                }
                Availability::Available => agent.catalog.clone(),
            };
            if catalog.is_none() && !self.tools.catalog_failed.contains(&provider) {
                effects.extend(self.ask_catalog(&provider));
                continue;
            }
            let s = &self.sessions[i];
            if let Err(why) = check_choice(&label, s.mode.as_deref(), s.model.as_deref(), &catalog)
            {
                self.end_tool_turn(i, why);
                continue;
            }
            let s = &mut self.sessions[i];
            if s.mode.is_none() {
                s.mode = catalog.as_ref().and_then(tools::read_only_mode);
            }
            if let Some(t) = s.tool.as_mut() {
                t.deferred = false;
            }
            effects.extend(self.open(i));
        }
        effects
    }

    /// `ask_agent {session, prompt?}`: a prompt goes to that session (opened again when it was
    /// closed); without one the call collects the turn in progress.
    fn continue_session(&mut self, key: &str, args: &AskArgs) -> Result<Vec<Effect>, String> {
        let open = self
            .sessions
            .iter()
            .position(|s| s.key == key && s.phase != Phase::Closed);
        let known = open.is_some() || self.sessions.iter().any(|s| s.key == key);
        let Some(prompt) = args.prompt.clone() else {
            if known {
                return Ok(Vec::new());
            }
            return Err(format!("No session \"{key}\" to collect."));
        };
        let index = match open {
            Some(i) => i,
            None => self.reopen(key)?,
        };
        let s = &mut self.sessions[index];
        if s.is_running() || !s.queued.is_empty() || s.tool.as_ref().is_some_and(|t| t.is_active())
        {
            return Err(format!(
                "{} is still working in session {key}: collect that turn first with \
                 ask_agent {{\"session\": \"{key}\"}} and no prompt.",
                s.label
            ));
        }
        s.tool = Some(ToolTurn::new());
        let cmid = format!("m{}", self.seq());
        let prompt = tool_prompt(cmid.clone(), prompt);
        let steer = |_| prompt.clone();
        match self.prompt(index, prompt.clone(), steer) {
            Some(effects) => Ok(effects),
            None => {
                self.sessions[index].tool = None;
                Err(format!("Session {key} cannot take a prompt now."))
            }
        }
    }

    /// Opens a remembered session again (as `sessions` → `select` does), not shown.
    fn reopen(&mut self, key: &str) -> Result<usize, String> {
        let stored = self
            .store
            .get(key)
            .cloned()
            .ok_or_else(|| format!("No session \"{key}\" (see the Agent Bridge panel)."))?;
        let label = self.label(&stored.provider);
        if !self.is_available(&stored.provider) {
            return Err(format!("{label} is not available here."));
        }
        if stored.persistence.is_none() {
            return Err(format!(
                "{label} did not save session {key}: it cannot be continued."
            ));
        }
        let old = self.sessions.iter().position(|s| s.key == key);
        let (mode, model) = old
            .map(|i| {
                (
                    self.sessions[i].mode.clone(),
                    self.sessions[i].model.clone(),
                )
            })
            .unwrap_or_default();
        let current = self
            .current
            .and_then(|i| self.sessions.get(i))
            .map(|s| s.key.clone());
        self.sessions.retain(|s| s.key != key);
        self.current = current.and_then(|k| self.sessions.iter().position(|s| s.key == k));
        let id = format!("{key}~{}", self.seq());
        let mut s = PanelSession::new(id, &stored.provider, &label, stored.cwd.clone());
        s.key = stored.id.clone();
        s.title = stored.title.clone();
        s.persistence = stored.persistence.clone();
        s.mode = mode;
        s.model = model;
        // In `New`, `prompt` queues the prompt and opens the session with its handle.
        self.sessions.push(s);
        Ok(self.sessions.len() - 1)
    }
}

/// `mode` and `model` are the agent's own (when its catalog says which it has).
fn check_choice(
    label: &str,
    mode: Option<&str>,
    model: Option<&str>,
    catalog: &Option<agent_bridge_protocol::ProviderCatalog>,
) -> Result<(), String> {
    let Some(c) = catalog else {
        return Ok(());
    };
    if let Some(mode) = mode {
        if !c.modes.iter().any(|m| m.id == mode) {
            let ids: Vec<&str> = c.modes.iter().map(|m| m.id.as_str()).collect();
            return Err(format!(
                "{label} has no mode \"{mode}\"; its modes: {}",
                ids.join(", ")
            ));
        }
    }
    if let Some(model) = model {
        let known = c.models.iter().any(|m| {
            m.id == model
                || m.aliases
                    .as_ref()
                    .is_some_and(|a| a.iter().any(|x| x == model))
        });
        if !known && !c.models.is_empty() {
            let ids: Vec<&str> = c.models.iter().map(|m| m.id.as_str()).collect();
            return Err(format!(
                "{label} has no model \"{model}\"; its models: {}",
                ids.join(", ")
            ));
        }
    }
    Ok(())
}

fn tool_prompt(cmid: String, text: String) -> ProviderPrompt {
    ProviderPrompt {
        client_message_id: cmid,
        delivery: PromptDelivery::Auto,
        input: PromptInput::Message {
            content: vec![ProviderContent::text(text)],
        },
        output_schema: None,
        clear_pending_permissions: None,
    }
}

#[cfg(test)]
#[path = "tool_calls_tests.rs"]
mod tests;
