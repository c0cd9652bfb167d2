//! The loopback HTTP server OpenCode runs beside ACP, reduced to what the bridge's archive
//! uses (`providers/acp/src/archive.rs`, `session_list.rs`): started when the fake is given
//! `--port P` (the `opencode` profile's `embeddedServer` flags), basic auth with
//! `OPENCODE_SERVER_USERNAME` (default `opencode`) and `OPENCODE_SERVER_PASSWORD` when set.
//!
//! - `GET /session`: every stored session, `{id, directory, title, time: {archived?}}`;
//! - `GET /session/{id}`: one, or 404;
//! - `PATCH /session/{id}` `{time: {archived}}`: sets it;
//! - `GET /session/{id}/message[?limit=1]`: per prompt a user message (`msg_NNN`) and an
//!   assistant one (`parentID`, a `step-start` part without snapshot: the fake takes none);
//! - `POST /session/{id}/revert` `{messageID}`: a pending revert (the session says
//!   `revert.messageID`; the next prompt drops those turns). The project is `global` (no git),
//!   so only the conversation can be rewound.

use crate::store::{Record, Store};
use base64::Engine;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// The port of `--port P` in the arguments.
pub fn port_arg() -> Option<u16> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--port")
        .and_then(|i| args.get(i + 1))
        .and_then(|p| p.parse().ok())
}

/// Binds the port (before the first ACP message is read: the server is up when the agent is).
pub async fn bind(port: u16) -> anyhow::Result<TcpListener> {
    Ok(TcpListener::bind(("127.0.0.1", port)).await?)
}

pub async fn serve(listener: TcpListener) -> anyhow::Result<()> {
    let auth = std::env::var("OPENCODE_SERVER_PASSWORD").ok().map(|pw| {
        let user = std::env::var("OPENCODE_SERVER_USERNAME").unwrap_or_else(|_| "opencode".into());
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pw}"));
        format!("Basic {token}")
    });
    loop {
        let (stream, _) = listener.accept().await?;
        let auth = auth.clone();
        tokio::spawn(async move {
            if let Err(e) = exchange(stream, auth.as_deref()).await {
                eprintln!("fake-acp http: {e}");
            }
        });
    }
}

async fn exchange(stream: TcpStream, auth: Option<&str>) -> anyhow::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).await?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let (mut length, mut authorization) = (0usize, None::<String>);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "authorization" => authorization = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).await?;
    let (status, answer) = if auth.is_some() && authorization.as_deref() != auth {
        (401, json!({"error": "unauthorized"}))
    } else {
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        route(&method, &target, &body)
    };
    let text = answer.to_string();
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        _ => "Not Found",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        text.len()
    );
    let mut stream = reader.into_inner();
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(text.as_bytes()).await?;
    stream.flush().await?;
    Ok(())
}

fn session_json(r: &Record) -> Value {
    let mut time = json!({"updated": 0});
    if let Some(at) = r.archived {
        time["archived"] = json!(at);
    }
    let mut out = json!({"id": r.session_id, "projectID": "global", "directory": r.cwd,
        "title": r.title, "time": time});
    if let Some(to) = &r.revert {
        out["revert"] = json!({"messageID": to});
    }
    out
}

fn messages_json(r: &Record) -> Vec<Value> {
    r.user_messages()
        .into_iter()
        .flat_map(|id| {
            [
                json!({"info": {"id": id, "role": "user"}, "parts": [{"type": "text"}]}),
                json!({"info": {"id": format!("{id}_a"), "role": "assistant", "parentID": id},
                    "parts": [{"type": "step-start"}]}),
            ]
        })
        .collect()
}

fn route(method: &str, target: &str, body: &Value) -> (u16, Value) {
    let store = Store::from_env();
    let path = target.split('?').next().unwrap_or("");
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let not_found = (404, json!({"error": format!("no route {method} {path}")}));
    match (method, segments.as_slice()) {
        ("GET", ["session"]) => {
            let all: Vec<Value> = store.list(None).iter().map(session_json).collect();
            (200, json!(all))
        }
        ("GET", ["session", id]) => match store.load(id) {
            Some(r) => (200, session_json(&r)),
            None => not_found,
        },
        ("PATCH", ["session", id]) => match store.load(id) {
            Some(mut r) => {
                r.archived = body["time"]["archived"].as_u64();
                store.save(&r);
                (200, session_json(&r))
            }
            None => not_found,
        },
        ("GET", ["session", id, "message"]) => match store.load(id) {
            Some(r) => {
                let mut all = messages_json(&r);
                if target.contains("limit=1") {
                    all = all.split_off(all.len().saturating_sub(1));
                }
                (200, json!(all))
            }
            None => not_found,
        },
        ("POST", ["session", id, "revert"]) => match store.load(id) {
            Some(mut r) => {
                let to = body["messageID"].as_str().unwrap_or_default().to_string();
                if !r.user_messages().contains(&to) {
                    return (400, json!({"error": format!("no message {to}")}));
                }
                r.revert = Some(to);
                store.save(&r);
                (200, session_json(&r))
            }
            None => not_found,
        },
        _ => not_found,
    }
}
