//! Forgetting what is settled at the end of each run, so a long session holds only what a
//! later line can still refer to: tool calls without a result, the rows of background tasks
//! still running (a background sub-agent's row keeps growing), and the messages those
//! sub-agents are streaming.

use super::Normalizer;
use std::collections::HashSet;

impl Normalizer {
    /// Entries held: tool calls, sub-agents, message blocks and open streams (for tests and
    /// diagnostics: it must not grow with the number of runs).
    pub fn retained(&self) -> usize {
        self.tools.len() + self.subagents.len() + self.messages.retained()
    }

    /// Drops completed tool calls and finished messages (called on a `result` line).
    pub(super) fn prune_settled(&mut self) {
        let running_tasks: HashSet<&String> = self.background.values().flatten().collect();
        self.tools
            .retain(|id, t| !t.done || running_tasks.contains(id));
        // A kept tool's sub-agent (its own row or the row it runs under) stays.
        let parents: HashSet<&String> = self
            .tools
            .values()
            .filter_map(|t| t.parent.as_ref())
            .collect();
        let tools = &self.tools;
        self.subagents
            .retain(|id, _| tools.contains_key(id) || parents.contains(id));
        let subagents = &self.subagents;
        self.messages
            .retain_streaming(|ctx| ctx.as_ref().is_some_and(|p| subagents.contains_key(p)));
    }
}
