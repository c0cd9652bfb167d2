//! Answering the waiting tool calls: a turn that ended, a deadline that came (with what is done
//! so far), `list_agents` once the agents are checked and their catalogs read.

use crate::app::{App, Availability, Effect};
use crate::tool_calls::{reply, Wait, Waiting};
use crate::tools::{self, Who};
use serde_json::{json, Value};
use std::time::Instant;

/// Catalogs `list_agents` has read at once: reading one starts the agent's CLI, and ten at
/// once on a small machine would take longer than reading them two by two.
const CATALOGS_AT_ONCE: usize = 2;

impl App {
    /// Answers the calls that can be answered at `now`: a turn that ended, a deadline that came
    /// (with what is done so far), agents that are checked. Also denies what a tool-driven
    /// session asks while the panel is closed.
    pub fn tool_tick(&mut self, now: Instant) -> Vec<Effect> {
        let mut effects = self.read_catalogs();
        effects.extend(self.open_waiting_sessions());
        if !self.panel_open {
            let asking: Vec<usize> = (0..self.sessions.len())
                .filter(|&i| {
                    let s = &self.sessions[i];
                    !s.pending.is_empty() && s.tool.as_ref().is_some_and(|t| t.is_active())
                })
                .collect();
            for i in asking {
                effects.extend(self.deny_unanswerable(i));
            }
        }
        let waiting = std::mem::take(&mut self.tools.waiting);
        for w in waiting {
            match w.wait.clone() {
                Wait::Agents => {
                    if self.agents_settled() || now >= w.deadline {
                        effects.push(reply(&w.id, self.agents_answer()));
                    } else {
                        self.tools.waiting.push(w);
                    }
                }
                Wait::Turn(key) => match self.turn_answer(&key, &w, now) {
                    Some(answer) => effects.push(reply(&w.id, answer)),
                    None => self.tools.waiting.push(w),
                },
            }
        }
        effects
    }

    /// Asks the next catalogs `list_agents` wants, a few at a time, once their agent is checked
    /// available (an unavailable one leaves the queue).
    fn read_catalogs(&mut self) -> Vec<Effect> {
        let reading = self
            .agents
            .iter()
            .filter(|a| {
                a.catalog_asked && a.catalog.is_none() && !self.tools.catalog_failed.contains(&a.id)
            })
            .count();
        let mut effects = Vec::new();
        let mut room = CATALOGS_AT_ONCE.saturating_sub(reading);
        let queue = std::mem::take(&mut self.tools.catalog_queue);
        for id in queue {
            let state = self
                .agent(&id)
                .map(|a| (a.availability.clone(), a.catalog_asked));
            match state {
                Some((Availability::Available, false)) if room > 0 => {
                    room -= 1;
                    effects.extend(self.ask_catalog(&id));
                }
                Some((Availability::Available, false)) | Some((Availability::Checking, _)) => {
                    self.tools.catalog_queue.push(id)
                }
                _ => {}
            }
        }
        effects
    }

    /// The answer for a call waiting on session `key`'s turn, if it is due.
    fn turn_answer(&self, key: &str, w: &Waiting, now: Instant) -> Option<Value> {
        let Some(s) = self.sessions.iter().rev().find(|s| s.key == key) else {
            return Some(tools::error(&format!("Session {key} is gone.")));
        };
        let who = Who {
            label: &s.label,
            session: key,
        };
        let Some(t) = s.tool.as_ref() else {
            let last = s.reply.as_ref().map(|(_, t)| t.as_str()).unwrap_or("");
            let text = format!(
                "status: idle · session: {key} · agent: {}\n\nNo turn asked for by a tool runs \
                 in this session. Its last answer:\n{last}",
                s.label
            );
            return Some(tools::content(&text, false));
        };
        (t.end.is_some() || now >= w.deadline)
            .then(|| tools::turn_answer(&who, t, now.duration_since(w.since)))
    }

    fn agents_settled(&self) -> bool {
        self.tools.catalog_queue.is_empty()
            && self.agents.iter().all(|a| match a.availability {
                Availability::Checking => false,
                Availability::Unavailable(_) => true,
                Availability::Available => {
                    a.catalog.is_some() || self.tools.catalog_failed.contains(&a.id)
                }
            })
    }

    /// `list_agents`: each agent, whether it can be used, its modes and models.
    fn agents_answer(&self) -> Value {
        let agents: Vec<Value> = self
            .agents
            .iter()
            .map(|a| {
                let mut v = json!({"id": a.id, "name": a.label});
                match &a.availability {
                    Availability::Available => v["available"] = json!(true),
                    Availability::Checking => {
                        v["available"] = json!(false);
                        v["why"] = json!("still being checked");
                    }
                    Availability::Unavailable(why) => {
                        v["available"] = json!(false);
                        v["why"] = json!(why);
                    }
                }
                if a.catalog.is_none() && a.availability == Availability::Available {
                    v["modes"] = json!(if self.tools.catalog_failed.contains(&a.id) {
                        "could not be read; ask_agent uses the agent's default mode"
                    } else {
                        "not read yet: call list_agents again in a moment"
                    });
                }
                if let Some(c) = &a.catalog {
                    v["modes"] = c
                        .modes
                        .iter()
                        .map(|m| {
                            let mut mode = json!({"id": m.id, "label": m.label});
                            if let Some(d) = &m.description {
                                mode["description"] = json!(d);
                            }
                            if m.is_unattended == Some(true) {
                                mode["unattended"] = json!(true);
                            }
                            mode
                        })
                        .collect();
                    v["models"] = c
                        .models
                        .iter()
                        .map(|m| json!({"id": m.id, "label": m.label}))
                        .collect();
                    v["askAgentMode"] = json!(tools::read_only_mode(c));
                    v["defaultModel"] = json!(c.default_model);
                }
                v
            })
            .collect();
        let body = json!({
            "agents": agents,
            "note": "ask_agent runs in askAgentMode (one that cannot write, where the agent has \
                     one) unless you name a mode.",
        });
        let text = serde_json::to_string_pretty(&body).unwrap_or_default();
        tools::content(&text, false)
    }

    /// Agentty or the plugin is stopping: every waiting call is answered now.
    pub fn abandon_tool_calls(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.tools.waiting)
            .into_iter()
            .map(|w| {
                let why = match &w.wait {
                    Wait::Turn(key) => format!(
                        "Agent Bridge is stopping: the turn of session {key} was closed with it."
                    ),
                    _ => "Agent Bridge is stopping.".to_string(),
                };
                reply(&w.id, tools::error(&why))
            })
            .collect()
    }
}
