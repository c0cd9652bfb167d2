//! Warm spares of shared agent processes, written once for every shared family (Codex, the ACP
//! agents): the last session's close stops its process (gone when the close is answered) and
//! the bridge starts a fresh one of the same launch as the provider's spare; `doctor --json`
//! reports it with its memory, the next open joins it (no new process), it goes after its idle
//! time, and nothing of it outlives the bridge.
//!
//! The rig's bridge decides the idle time (`AGENT_BRIDGE_SPARE_IDLE_SECS`; spares are off
//! unless it is set): the caller starts it with [`LONG_IDLE`] for
//! [`spare_taken_reported_and_gone_with_the_bridge`], with [`SHORT_IDLE`] for
//! [`spare_goes_after_its_idle_time`].

use crate::agent_groups::{agent_groups, group_id, leader_alive, one_agent_group};
use crate::kill::assert_gone;
use crate::AgentRig;
use crate::ProcInfo;
use serde_json::{json, Value};

/// An idle time no test outlives: the spare goes only with the bridge.
pub const LONG_IDLE: &str = "600";
/// An idle time the test's waits outlast. Long enough that a scan of `/proc` sees the spare
/// before it goes on a loaded machine: with 1 s, a spare that started late lived less than the
/// scans that looked for it (codex's per-session spare, OpenCode's `spare_idle`: "no spare
/// started" under load).
pub const SHORT_IDLE: &str = "5";

/// How the bridge is stopped.
#[derive(Debug, Clone, Copy)]
pub enum Exit {
    /// Its stdin closes (the host went away).
    StdinClosed,
    /// It gets `SIGTERM`.
    Sigterm,
}

/// `agent-bridge doctor --json` with the rig's bridge environment: the provider's finding.
pub fn doctor_finding(rig: &AgentRig) -> Value {
    let out = std::process::Command::new(crate::bridge_binary().expect("the bridge binary"))
        .args(["doctor", "--json"])
        .current_dir(crate::workspace_root())
        .envs(rig.options().env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("doctor runs");
    let all: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json printed JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    all.as_array()
        .and_then(|a| a.iter().find(|f| f["id"] == rig.spec.provider))
        .cloned()
        .unwrap_or_else(|| panic!("no finding for {}: {all:#}", rig.spec.provider))
}

/// How long a spare may take to start (an ACP agent's start on a busy machine).
const SPARE_START: std::time::Duration = std::time::Duration::from_secs(90);

/// Waits for the one agent group other than `not` (the spare started after a close).
async fn spare_group(rig: &AgentRig, marker: &str, not: &[ProcInfo]) -> Vec<ProcInfo> {
    let deadline = std::time::Instant::now() + SPARE_START;
    loop {
        let mut found: Vec<Vec<ProcInfo>> = agent_groups(rig, marker)
            .into_iter()
            .filter(|g| group_id(g) != group_id(not) && leader_alive(g))
            .collect();
        if found.len() == 1 {
            return found.remove(0);
        }
        assert!(
            found.len() < 2,
            "one spare per provider, found {}: {found:#?}",
            found.len()
        );
        assert!(
            std::time::Instant::now() < deadline,
            "no spare started within {SPARE_START:?} after the last close"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// `doctor --json` reports `spare` (waits until the bridge has registered it).
async fn reported(rig: &AgentRig, spare: &[ProcInfo]) {
    let deadline = std::time::Instant::now() + crate::rig::STEP;
    loop {
        let finding = doctor_finding(rig);
        let spares = finding["spares"].as_array().cloned().unwrap_or_default();
        if spares.len() == 1 && spares[0]["pid"] == json!(group_id(spare)) {
            assert_eq!(spares[0]["kind"], "shared", "{finding:#}");
            assert!(
                spares[0]["rssBytes"].as_u64().is_some_and(|b| b > 0),
                "{finding:#}"
            );
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "doctor does not report the spare {}: {finding:#}",
            group_id(spare)
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The rig runs with [`LONG_IDLE`]. A session runs a turn and closes: its process is gone when
/// the close is answered, and a fresh one of the same launch starts as the spare (doctor
/// reports it with its memory); the next session joins it (same process group) and runs a
/// turn; after its close the next spare starts, the bridge stops (`exit`) and nothing of any
/// agent process is left.
pub async fn spare_taken_reported_and_gone_with_the_bridge(
    rig: &AgentRig,
    marker: &str,
    patch: Value,
    exit: Exit,
) {
    rig.open("sp-1", patch.clone()).await;
    let run = rig.run_turn("sp-1", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let agent = one_agent_group(rig, marker);
    rig.finish("sp-1").await;
    assert!(
        !leader_alive(&agent),
        "the session's process is gone when its close is answered: {agent:#?}"
    );
    let spare = spare_group(rig, marker, &agent).await;
    reported(rig, &spare).await;

    rig.open("sp-2", patch).await;
    assert_eq!(
        group_id(&one_agent_group(rig, marker)),
        group_id(&spare),
        "the next open joins the spare"
    );
    let run = rig.run_turn("sp-2", "say hi again").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let spares = doctor_finding(rig)["spares"].clone();
    assert_eq!(spares, json!([]), "in use: not a spare");
    let used = one_agent_group(rig, marker);
    rig.finish("sp-2").await;
    assert!(!leader_alive(&used), "gone with its last session's close");
    let next = spare_group(rig, marker, &used).await;

    match exit {
        Exit::StdinClosed => rig.host.close_stdin().await,
        Exit::Sigterm => rig.host.signal(libc::SIGTERM).expect("SIGTERM sent"),
    }
    rig.host
        .wait_exit(crate::rig::STEP)
        .await
        .expect("the bridge exits");
    assert_gone(&next).await;
    assert!(agent_groups(rig, marker).is_empty());
}

/// The rig runs with [`SHORT_IDLE`]: after the last close a spare starts and goes after that
/// idle time; the next open starts another process.
pub async fn spare_goes_after_its_idle_time(rig: &AgentRig, marker: &str, patch: Value) {
    rig.open("sp-1", patch.clone()).await;
    let agent = one_agent_group(rig, marker);
    rig.finish("sp-1").await;
    assert!(!leader_alive(&agent), "gone when its close is answered");
    let spare = spare_group(rig, marker, &agent).await;
    // It goes [`SHORT_IDLE`] after it is ready, which on a loaded machine (OpenCode's start and
    // warm-up) can be well past `assert_gone`'s 10 s from when it was first seen.
    let left = crate::procs::wait_gone(&spare, SPARE_START).await;
    assert!(left.is_empty(), "the spare stays: {left:?}");
    assert!(agent_groups(rig, marker).is_empty());
    rig.open("sp-2", patch).await;
    let again = one_agent_group(rig, marker);
    assert!(
        group_id(&again) != group_id(&agent) && group_id(&again) != group_id(&spare),
        "a new process"
    );
    rig.finish("sp-2").await;
}

/// The pid `doctor --json` reports as the provider's one `prestarted` spare, once it does.
async fn reported_prestarted(rig: &AgentRig) -> i32 {
    let deadline = std::time::Instant::now() + SPARE_START;
    loop {
        let finding = doctor_finding(rig);
        let spares = finding["spares"].as_array().cloned().unwrap_or_default();
        assert!(spares.len() < 2, "one spare per provider: {finding:#}");
        if let Some(spare) = spares.first() {
            assert_eq!(spare["kind"], "prestarted", "{finding:#}");
            assert!(
                spare["rssBytes"].as_u64().is_some_and(|b| b > 0),
                "{finding:#}"
            );
            return spare["pid"].as_i64().expect("a pid") as i32;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "doctor reports no prestarted spare: {finding:#}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The agent group whose id is `pid`.
fn group_of(rig: &AgentRig, marker: &str, pid: i32) -> Vec<ProcInfo> {
    agent_groups(rig, marker)
        .into_iter()
        .find(|g| group_id(g) == pid)
        .unwrap_or_else(|| panic!("no agent group {pid}"))
}

/// An entry with a process per session, the rig with [`LONG_IDLE`]: after an open the bridge
/// starts one more process of the same launch, initialized, which `doctor --json` reports as
/// `prestarted` with its memory; the next open takes it (no process of its own: the only other
/// agent process is the next spare, and closing the session stops the reported process), and
/// nothing is left once the bridge stops.
pub async fn prestarted_spare_taken_and_gone_with_the_bridge(
    rig: &AgentRig,
    marker: &str,
    patch: Value,
) {
    rig.open("ps-1", patch.clone()).await;
    let spare = reported_prestarted(rig).await;
    let groups = agent_groups(rig, marker);
    assert_eq!(groups.len(), 2, "the session's and the spare: {groups:#?}");
    let first = groups
        .into_iter()
        .find(|g| group_id(g) != spare)
        .expect("the session's process");
    let run = rig.run_turn("ps-1", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("ps-1").await;
    assert!(!leader_alive(&first), "gone when its close is answered");
    let taken = group_of(rig, marker, spare);

    rig.open("ps-2", patch).await;
    let next = reported_prestarted(rig).await;
    assert_ne!(
        next, spare,
        "the reported spare was taken; the next one is another"
    );
    let mut ids: Vec<i32> = agent_groups(rig, marker)
        .iter()
        .map(|g| group_id(g))
        .collect();
    ids.sort();
    let mut want = vec![spare, next];
    want.sort();
    assert_eq!(
        ids, want,
        "no process of its own: the taken spare and the next one"
    );
    let run = rig.run_turn("ps-2", "say hi again").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("ps-2").await;
    assert!(!leader_alive(&taken), "the taken spare was ps-2's process");
    let next = group_of(rig, marker, next);
    assert!(leader_alive(&next));

    rig.host.signal(libc::SIGTERM).expect("SIGTERM sent");
    rig.host
        .wait_exit(crate::rig::STEP)
        .await
        .expect("the bridge exits");
    assert_gone(&next).await;
    assert!(agent_groups(rig, marker).is_empty());
}

/// An entry with a process per session, the rig with [`SHORT_IDLE`]: the spare started after
/// an open goes after that idle time; the session's own process stays.
pub async fn prestarted_spare_goes_after_its_idle_time(rig: &AgentRig, marker: &str, patch: Value) {
    rig.open("ps-1", patch).await;
    let deadline = std::time::Instant::now() + SPARE_START;
    while agent_groups(rig, marker).len() < 2 {
        assert!(std::time::Instant::now() < deadline, "no spare started");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let spare_gone = std::time::Instant::now() + SPARE_START;
    while agent_groups(rig, marker).len() > 1 {
        assert!(std::time::Instant::now() < spare_gone, "the spare stays");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(doctor_finding(rig)["spares"], json!([]));
    let own = one_agent_group(rig, marker);
    let run = rig.run_turn("ps-1", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("ps-1").await;
    assert!(!leader_alive(&own), "the survivor was the session's");
    assert!(agent_groups(rig, marker).is_empty());
}

/// A plugin folder whose plugin.json is the workspace's with `"processPerSession": true` in
/// `provider`'s entry: a fixed folder per provider under the temp dir, rewritten atomically
/// (tests of one provider write the same file), so no test leaves one behind.
pub fn per_session_plugin_dir(provider: &str) -> std::path::PathBuf {
    let root = crate::workspace_root().join("plugin.json");
    let text = std::fs::read_to_string(&root).expect("the workspace plugin.json");
    let mut manifest: Value = serde_json::from_str(&text).expect("plugin.json parses");
    let entry = manifest["providers"]
        .as_array_mut()
        .and_then(|ps| ps.iter_mut().find(|p| p["id"] == provider))
        .unwrap_or_else(|| panic!("plugin.json has no `{provider}`"));
    entry["options"]["processPerSession"] = json!(true);
    let dir = std::env::temp_dir().join(format!("agent-bridge-per-session-{provider}"));
    std::fs::create_dir_all(&dir).expect("plugin dir");
    // A name of its own per write: tests of one process write it at once.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".plugin.json.{}.{n}", std::process::id()));
    std::fs::write(&tmp, manifest.to_string()).expect("plugin.json");
    std::fs::rename(&tmp, dir.join("plugin.json")).expect("plugin.json in place");
    dir
}
