//! Whose message it is, on an app-server shared by sessions: each session's thread is its own
//! (`threadId`), and so are the threads of its sub-agents (learned from the parent's collab
//! tool calls as the reader sees them, before any of the child's messages). A message without
//! a thread (a warning of the process, `skills/changed`, rate limits) goes to every session.

use crate::normalize::ends_agent;
use crate::wire::items::ThreadItem;
use agent_bridge_core::lifecycle::lock;
use agent_bridge_core::lifecycle::shared::{Route, RouteKey};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;

/// Most sub-agent threads remembered per process (a closed sub-agent is forgotten).
const MAX_CHILDREN: usize = 4096;

#[derive(Debug, Default)]
pub struct CodexRoute {
    /// A sub-agent's thread → the thread that spawned it.
    parents: Mutex<HashMap<String, String>>,
}

impl CodexRoute {
    /// The session thread a thread belongs to (itself, or its sub-agent ancestry's root).
    fn root(&self, thread: &str) -> String {
        let parents = lock(&self.parents);
        let mut at = thread;
        // Bounded: a cycle (never sent by Codex) cannot loop.
        for _ in 0..16 {
            match parents.get(at) {
                Some(parent) => at = parent,
                None => break,
            }
        }
        at.to_string()
    }

    /// A collab tool call of `params` links (or unlinks) sub-agent threads to their parent.
    fn learn(&self, method: &str, params: &Value) {
        if !matches!(method, "item/started" | "item/completed") {
            return;
        }
        if params["item"]["type"] != "collabAgentToolCall" {
            return;
        }
        let Ok(ThreadItem::CollabAgentToolCall(call)) =
            serde_json::from_value::<ThreadItem>(params["item"].clone())
        else {
            return;
        };
        let Some(parent) = params["threadId"].as_str() else {
            return;
        };
        let mut parents = lock(&self.parents);
        for child in &call.receiver_thread_ids {
            if child == parent {
                continue;
            }
            if method == "item/completed" && ends_agent(&call, child) {
                parents.remove(child);
            } else if parents.len() < MAX_CHILDREN {
                parents.insert(child.clone(), parent.to_string());
            }
        }
    }
}

impl Route for CodexRoute {
    fn notification(&self, method: &str, params: &Value) -> RouteKey {
        self.learn(method, params);
        match params.get("threadId").and_then(Value::as_str) {
            Some(thread) => RouteKey::Session(self.root(thread)),
            None => RouteKey::All,
        }
    }

    fn request(&self, _method: &str, params: &Value) -> RouteKey {
        match params.get("threadId").and_then(Value::as_str) {
            Some(thread) => RouteKey::Session(self.root(thread)),
            None => RouteKey::Nobody,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn collab(thread: &str, tool: &str, children: &[&str]) -> Value {
        json!({"threadId": thread, "item": {
            "type": "collabAgentToolCall", "id": "c1", "tool": tool,
            "senderThreadId": thread, "receiverThreadIds": children,
        }})
    }

    #[test]
    fn sub_agent_threads_go_to_their_root_session_until_closed() {
        let route = CodexRoute::default();
        let of = |t: &str| json!({"threadId": t});
        assert_eq!(
            route.notification("item/started", &collab("t1", "spawnAgent", &["c1"])),
            RouteKey::Session("t1".into())
        );
        route.notification("item/started", &collab("c1", "spawnAgent", &["g1"]));
        assert_eq!(
            route.notification("turn/started", &of("g1")),
            RouteKey::Session("t1".into())
        );
        assert_eq!(
            route.request("item/commandExecution/requestApproval", &of("c1")),
            RouteKey::Session("t1".into())
        );
        assert_eq!(
            route.notification("turn/started", &of("t2")),
            RouteKey::Session("t2".into())
        );
        assert_eq!(
            route.notification("warning", &json!({"message": "m"})),
            RouteKey::All
        );
        assert_eq!(route.request("x", &json!({})), RouteKey::Nobody);
        route.notification("item/completed", &collab("t1", "closeAgent", &["c1"]));
        assert_eq!(
            route.notification("turn/started", &of("c1")),
            RouteKey::Session("c1".into())
        );
    }
}
