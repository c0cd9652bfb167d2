//! The agent processes under a bridge, one group each: the bridge's guard leads a process
//! group and the agent runs in it, so a shared agent process (and whatever it runs meanwhile,
//! `ps`, a tool) is told apart from another by its group.

use crate::{AgentRig, ProcInfo};

/// The processes of each running agent whose guard's command line holds `marker` (the CLI, or
/// an argument only it has, such as `app-server`), one group each.
pub fn agent_groups(rig: &AgentRig, marker: &str) -> Vec<Vec<ProcInfo>> {
    let all = rig.procs_where(|_| true);
    let groups: std::collections::BTreeSet<i32> = all
        .iter()
        .filter(|p| {
            p.cmdline.contains(agent_bridge_core::guard::GUARD_ARG) && p.cmdline.contains(marker)
        })
        .map(|p| p.pgid)
        .collect();
    groups
        .into_iter()
        .map(|g| all.iter().filter(|p| p.pgid == g).cloned().collect())
        .collect()
}

/// The one agent group there must be.
pub fn one_agent_group(rig: &AgentRig, marker: &str) -> Vec<ProcInfo> {
    let mut found = agent_groups(rig, marker);
    assert_eq!(found.len(), 1, "one shared agent process: {found:#?}");
    found.remove(0)
}

/// The process group of an agent (its processes come and go).
pub fn group_id(procs: &[ProcInfo]) -> i32 {
    procs.first().map(|p| p.pgid).unwrap_or_default()
}

/// The agent's guard, the leader of its group, is running.
pub fn leader_alive(procs: &[ProcInfo]) -> bool {
    procs.iter().any(|p| p.pid == p.pgid && p.is_alive())
}
