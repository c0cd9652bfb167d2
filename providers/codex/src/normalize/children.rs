//! Sub-agents as child sessions: a collab tool call naming a thread the session does not know
//! opens a child for it (`spawnAgent`, and `resumeAgent` of a closed one); the child closes when
//! its sub-agent ends: the parent's `closeAgent` completes, Codex reports its state as
//! `shutdown` or `notFound`, or its thread is unloaded (`thread/status/changed` to
//! `notLoaded`, which follows `closeAgent`).

use super::Normalizer;
use crate::wire::items::CollabAgentToolCall;
use crate::wire::notify::ThreadStatusChanged;
use agent_bridge_core::{AgentEvent, ChildSession};

/// Agent states after which a sub-agent runs no more.
const ENDED_STATES: [&str; 2] = ["shutdown", "notFound"];

/// The collab call `c` ended the sub-agent of `thread`: it closed it, or reports it in an
/// ended state.
pub fn ends_agent(c: &CollabAgentToolCall, thread: &str) -> bool {
    c.tool == "closeAgent"
        || c.agents_states
            .as_ref()
            .and_then(|s| s.get(thread))
            .and_then(|s| s["status"].as_str())
            .is_some_and(|st| ENDED_STATES.contains(&st))
}

impl Normalizer {
    pub(super) fn open_children(&mut self, c: &CollabAgentToolCall, out: &mut Vec<AgentEvent>) {
        if c.tool == "closeAgent" {
            return;
        }
        for thread in &c.receiver_thread_ids {
            if thread == &self.thread_id || self.children.contains_key(thread) {
                continue;
            }
            let child_id = format!("{}:codex-agent:{}", self.session_id, thread);
            self.children.insert(thread.clone(), child_id.clone());
            out.push(AgentEvent::ChildOpened(ChildSession {
                session_id: child_id,
                title: c
                    .prompt
                    .as_deref()
                    .map(agent_bridge_protocol::prompt_preview),
                description: c.model.as_ref().map(|m| format!("Codex sub-agent ({m})")),
                cwd: self.cwd.clone(),
                items: Vec::new(),
            }));
        }
    }

    /// A completed collab call: the children it ended close.
    pub(super) fn close_ended_children(
        &mut self,
        c: &CollabAgentToolCall,
        out: &mut Vec<AgentEvent>,
    ) {
        for thread in c.receiver_thread_ids.iter().filter(|t| ends_agent(c, t)) {
            self.close_child(thread, out);
        }
    }

    /// A thread's status changed: an unloaded child has ended.
    pub(super) fn thread_status(&mut self, c: &ThreadStatusChanged, out: &mut Vec<AgentEvent>) {
        if c.status["type"] == "notLoaded" {
            self.close_child(&c.thread_id, out);
        }
    }

    /// A child restored at open (see `crate::sub_agents`): its thread's items route to it.
    pub fn adopt_child(&mut self, thread: &str, child_session_id: &str) {
        self.children
            .insert(thread.to_string(), child_session_id.to_string());
    }

    fn close_child(&mut self, thread: &str, out: &mut Vec<AgentEvent>) {
        if let Some(child_session_id) = self.children.remove(thread) {
            out.push(AgentEvent::ChildClosed { child_session_id });
        }
    }
}
