//! The sub-agents of a resumed thread, restored as its child sessions: every thread a collab
//! call of the history spawned or addressed that is still running (no `closeAgent` of it, no
//! `shutdown`/`notFound` state since) opens as a child with its own history, and the parent's
//! sub-agent tool calls link to it. A sub-agent that had ended is not restored (its rows stay
//! in its own thread, which the parent's tool call still describes).

use crate::history;
use crate::normalize::ends_agent;
use crate::queries::load_turns;
use crate::wire::items::ThreadItem;
use crate::wire::thread::Turn;
use agent_bridge_core::rpc::PeerHandle;
use agent_bridge_core::ChildSession;

/// A sub-agent thread met in the history, in order of first appearance.
#[derive(Debug, Clone, PartialEq)]
pub struct SubAgent {
    pub thread_id: String,
    pub prompt: Option<String>,
    pub model: Option<String>,
}

/// The sub-agents of `turns` (of thread `main`) still running at the end of the history.
pub fn running(turns: &[Turn], main: &str) -> Vec<SubAgent> {
    let mut seen: Vec<SubAgent> = Vec::new();
    let mut ended: Vec<String> = Vec::new();
    for item in turns.iter().flat_map(|t| &t.items) {
        let ThreadItem::CollabAgentToolCall(c) = item else {
            continue;
        };
        for thread in c.receiver_thread_ids.iter().filter(|t| *t != main) {
            if ends_agent(c, thread) {
                ended.push(thread.clone());
                continue;
            }
            ended.retain(|t| t != thread);
            if !seen.iter().any(|s| &s.thread_id == thread) {
                seen.push(SubAgent {
                    thread_id: thread.clone(),
                    prompt: c.prompt.clone(),
                    model: c.model.clone().filter(|m| !m.is_empty()),
                });
            }
        }
    }
    seen.retain(|s| !ended.contains(&s.thread_id));
    seen
}

/// The child session id of a sub-agent thread (the same the live normalizer gives it).
pub fn child_id(session_id: &str, thread_id: &str) -> String {
    format!("{session_id}:codex-agent:{thread_id}")
}

/// The child sessions of `agents`, each with its thread's history (empty, with a warning in
/// the log, when it cannot be read).
pub async fn restore(
    rpc: &PeerHandle,
    session_id: &str,
    cwd: &str,
    agents: &[SubAgent],
) -> Vec<ChildSession> {
    let mut children = Vec::new();
    for agent in agents {
        let items = match load_turns(rpc, &agent.thread_id).await {
            Ok(turns) => history::replay(&turns, &|_| None),
            Err(e) => {
                tracing::warn!(thread = %agent.thread_id, "a sub-agent's history could not be read: {e}");
                Vec::new()
            }
        };
        children.push(ChildSession {
            session_id: child_id(session_id, &agent.thread_id),
            title: agent
                .prompt
                .as_deref()
                .map(agent_bridge_protocol::prompt_preview),
            description: agent
                .model
                .as_ref()
                .map(|m| format!("Codex sub-agent ({m})")),
            cwd: cwd.to_string(),
            items,
        });
    }
    children
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn turn(items: serde_json::Value) -> Turn {
        serde_json::from_value(json!({"id": "t", "items": items, "status": "completed"}))
            .expect("turn")
    }

    fn collab(tool: &str, thread: &str, state: &str) -> serde_json::Value {
        json!({"type": "collabAgentToolCall", "id": format!("{tool}-{thread}"), "tool": tool,
               "status": "completed", "senderThreadId": "main", "receiverThreadIds": [thread],
               "prompt": format!("task {thread}"), "model": "m",
               "agentsStates": {thread: {"status": state}}})
    }

    #[test]
    fn only_sub_agents_still_running_are_restored() {
        let turns = [
            turn(json!([
                collab("spawnAgent", "a", "pendingInit"),
                collab("spawnAgent", "b", "pendingInit")
            ])),
            turn(json!([
                collab("spawnAgent", "c", "pendingInit"),
                collab("closeAgent", "a", "completed")
            ])),
            turn(json!([
                collab("wait", "c", "shutdown"),
                collab("resumeAgent", "c", "running"),
                collab("wait", "main", "running")
            ])),
        ];
        let threads: Vec<String> = running(&turns, "main")
            .into_iter()
            .map(|s| s.thread_id)
            .collect();
        assert_eq!(threads, ["b", "c"]);
        assert_eq!(running(&turns, "main")[0].prompt.as_deref(), Some("task b"));
        assert_eq!(child_id("s1", "b"), "s1:codex-agent:b");
    }
}
