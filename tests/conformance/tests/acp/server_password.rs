//! An agent that runs an HTTP server beside ACP (OpenCode, Kilo: their whole API on a loopback
//! port) gets a password from the bridge (`serverPasswordEnv`): a request without it is
//! refused, so no other local process can use the agent's server.

use agent_bridge_conformance::agent_groups::one_agent_group;
use agent_bridge_conformance::AgentRig;
use serde_json::json;
use std::io::{Read, Write};

/// The loopback TCP ports the processes `pids` listen on (from /proc/net/tcp and their fds).
fn listening_ports(pids: &[i32]) -> Vec<u16> {
    let mut inodes = std::collections::HashSet::new();
    for pid in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                let t = target.display().to_string();
                if let Some(inode) = t.strip_prefix("socket:[").and_then(|r| r.strip_suffix(']')) {
                    inodes.insert(inode.to_string());
                }
            }
        }
    }
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let (local, state, inode) = (cols.get(1)?, cols.get(3)?, cols.get(9)?);
            // 0A: LISTEN; 0100007F: 127.0.0.1.
            let (addr, port) = local.split_once(':')?;
            (*state == "0A" && addr == "0100007F" && inodes.contains(*inode))
                .then(|| u16::from_str_radix(port, 16).ok())
                .flatten()
        })
        .collect()
}

/// The status code of `GET /session` on `port`, sent without credentials.
fn status_without_credentials(port: u16) -> u16 {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the agent's server");
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .expect("a read timeout");
    write!(
        s,
        "GET /session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .expect("the request is sent");
    let mut head = [0u8; 12];
    s.read_exact(&mut head).expect("a status line");
    String::from_utf8_lossy(&head[9..12])
        .parse()
        .expect("a status code")
}

/// A session runs a turn; the agent's HTTP server refuses a request without the password (401).
pub async fn agent_server_asks_for_a_password(rig: &AgentRig) {
    rig.open("pw-1", json!({})).await;
    let run = rig.run_turn("pw-1", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let group = one_agent_group(rig, rig.spec.cli);
    let pids: Vec<i32> = group.iter().map(|p| p.pid).collect();
    let ports = listening_ports(&pids);
    assert!(
        !ports.is_empty(),
        "the agent listens on loopback: {group:#?}"
    );
    for port in ports {
        assert_eq!(
            status_without_credentials(port),
            401,
            "port {port} answers without the password"
        );
    }
    rig.finish("pw-1").await;
}
