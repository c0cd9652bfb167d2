//! Sub-agent transcripts written inline by older Claude Code versions: `isSidechain: true`
//! entries of the session's own transcript (newer versions write
//! `<session>/subagents/agent-*.jsonl` instead, see `transcript::read_history`). Each
//! sidechain is a chain of its own (`parentUuid` links among sidechain entries, rooted at the
//! sub-agent's prompt); it belongs to the `Task`/`Agent` call whose result names its `agentId`,
//! else to the first call not yet matched whose `prompt` is the chain's first message.

use serde_json::Value;
use std::collections::{HashMap, HashSet};

const AGENT_TOOLS: [&str; 2] = ["Task", "Agent"];

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The text of a message's content: a string, or its text blocks joined.
fn text_of(entry: &Value) -> String {
    match entry.pointer("/message/content") {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
        _ => String::new(),
    }
}

fn blocks(entry: &Value) -> impl Iterator<Item = &Value> {
    entry
        .pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// A `Task`/`Agent` call of the main transcript.
struct AgentCall {
    tool_use_id: String,
    prompt: String,
    agent_id: Option<String>,
}

fn agent_calls(entries: &[Value]) -> Vec<AgentCall> {
    let mut calls: Vec<AgentCall> = Vec::new();
    for e in entries.iter().filter(|e| !flag(e, "isSidechain")) {
        for b in blocks(e) {
            match b["type"].as_str() {
                Some("tool_use") if AGENT_TOOLS.contains(&b["name"].as_str().unwrap_or("")) => {
                    calls.push(AgentCall {
                        tool_use_id: b["id"].as_str().unwrap_or_default().to_string(),
                        prompt: b["input"]["prompt"]
                            .as_str()
                            .unwrap_or("")
                            .trim()
                            .to_string(),
                        agent_id: None,
                    });
                }
                Some("tool_result") => {
                    let agent = e.pointer("/toolUseResult/agentId").and_then(Value::as_str);
                    let id = b["tool_use_id"].as_str().unwrap_or("");
                    if let (Some(agent), Some(call)) =
                        (agent, calls.iter_mut().find(|c| c.tool_use_id == id))
                    {
                        call.agent_id = Some(agent.to_string());
                    }
                }
                _ => {}
            }
        }
    }
    calls
}

/// The inline sidechains of `entries`, each under the tool use id of the call that ran it, in
/// file order (meta entries left out). Sidechains that match no call are dropped.
pub fn inline_sidechains(entries: &[Value]) -> HashMap<String, Vec<Value>> {
    let side: Vec<&Value> = entries
        .iter()
        .filter(|e| flag(e, "isSidechain") && str_at(e, "uuid").is_some())
        .collect();
    if side.is_empty() {
        return HashMap::new();
    }
    let uuids: HashSet<&str> = side.iter().filter_map(|e| str_at(e, "uuid")).collect();
    let parent_of: HashMap<&str, &str> = side
        .iter()
        .filter_map(|e| Some((str_at(e, "uuid")?, str_at(e, "parentUuid")?)))
        .collect();
    // Up the sidechain parents (bounded: a cycle ends the walk).
    let root_of = |uuid: &str| {
        let mut cur = uuid;
        for _ in 0..side.len() {
            match parent_of.get(cur) {
                Some(p) if uuids.contains(p) => cur = p,
                _ => break,
            }
        }
        cur.to_string()
    };
    // Chains by root, in order of first appearance.
    let mut order: Vec<String> = Vec::new();
    let mut chains: HashMap<String, Vec<Value>> = HashMap::new();
    for e in &side {
        let root = root_of(str_at(e, "uuid").unwrap_or_default());
        if !chains.contains_key(&root) {
            order.push(root.clone());
        }
        chains.entry(root).or_default().push((*e).clone());
    }
    let mut calls = agent_calls(entries);
    let mut out = HashMap::new();
    for root in order {
        let Some(chain) = chains.remove(&root) else {
            continue;
        };
        let agent = chain.iter().find_map(|e| str_at(e, "agentId"));
        let prompt = chain.first().map(text_of).unwrap_or_default();
        let by_agent =
            agent.and_then(|a| calls.iter().position(|c| c.agent_id.as_deref() == Some(a)));
        let found = by_agent.or_else(|| {
            calls
                .iter()
                .position(|c| c.agent_id.is_none() && !prompt.is_empty() && c.prompt == prompt)
        });
        if let Some(i) = found {
            let call = calls.remove(i);
            let visible = chain.into_iter().filter(|e| !flag(e, "isMeta")).collect();
            out.insert(call.tool_use_id, visible);
        }
    }
    out
}

#[cfg(test)]
#[path = "sidechains_tests.rs"]
mod tests;
