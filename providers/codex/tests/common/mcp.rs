//! MCP servers for the Codex e2e tests: the stdio fixture `fixtures/mcp-echo.mjs` (run by
//! node, which the pinned `codex` launcher needs anyway), a minimal streamable-HTTP MCP server
//! on 127.0.0.1 that records the headers it is sent, and reading the tools a model request
//! offers.

use mock_llm::RecordedRequest;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// `node` as an absolute path (from this process's PATH), else `node`.
pub fn node() -> String {
    mock_llm::node_program()
}

pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp-echo.mjs")
}

/// The fixture's `command` and `args` offering `tools` (recording its start to `record`).
pub fn fixture_args(tools: &[&str], record: Option<&Path>) -> (String, Vec<String>) {
    let record = record.map(|p| p.display().to_string()).unwrap_or_default();
    (
        node(),
        vec![fixture().display().to_string(), record, tools.join(",")],
    )
}

/// A Paseo stdio `McpServerConfig` running the fixture.
pub fn stdio(tools: &[&str], record: Option<&Path>, env: Value) -> Value {
    let (command, args) = fixture_args(tools, record);
    json!({"type": "stdio", "command": command, "args": args, "env": env})
}

/// Appends a stdio server running the fixture to the `config.toml` in `codex_home`.
pub fn add_user_server(codex_home: &Path, name: &str, tools: &[&str]) {
    let (command, args) = fixture_args(tools, None);
    let table = format!(
        "\n[mcp_servers.{name}]\ncommand = {}\nargs = {}\n",
        json!(command),
        json!(args)
    );
    let path = codex_home.join("config.toml");
    let mut config = std::fs::read_to_string(&path).expect("config.toml");
    config.push_str(&table);
    std::fs::write(&path, config).expect("config.toml written");
}

/// The tools a model request offers: plain tools by name (or type, for `web_search`) with no
/// members, namespaces (`mcp__SERVER`, `multi_agent_v1`) with their tools' names.
pub fn offered_tools(request: &RecordedRequest) -> BTreeMap<String, Vec<String>> {
    let tools = request.body["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    tools
        .iter()
        .map(|t| {
            let name = t["name"].as_str().or(t["type"].as_str()).unwrap_or("?");
            let members = t["tools"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(|x| x["name"].as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            (name.to_string(), members)
        })
        .collect()
}

/// The last model request that offered tools (the turn's, not a side call's).
pub fn last_turn_request(mock: &mock_llm::MockLlm) -> RecordedRequest {
    mock.model_requests()
        .into_iter()
        .rev()
        .find(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .expect("a model request with tools")
}

/// Polls `check` every 50 ms until it holds or `limit` passes; returns whether it held.
pub async fn eventually(limit: Duration, check: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while !check() {
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

/// A minimal streamable-HTTP MCP server (JSON answers, no SSE stream) offering one tool; it
/// records the (lower-cased) headers of every request.
pub struct HttpMcp {
    pub url: String,
    headers: Arc<Mutex<Vec<BTreeMap<String, String>>>>,
    task: tokio::task::JoinHandle<()>,
}

impl HttpMcp {
    pub async fn start(tool: &str) -> HttpMcp {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let headers = Arc::new(Mutex::new(Vec::new()));
        let (seen, tool) = (headers.clone(), tool.to_string());
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (seen, tool) = (seen.clone(), tool.clone());
                tokio::spawn(async move {
                    let _ = serve(stream, &seen, &tool).await;
                });
            }
        });
        HttpMcp {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers,
            task,
        }
    }

    /// The headers of every request so far.
    pub fn requests(&self) -> Vec<BTreeMap<String, String>> {
        self.headers.lock().map(|h| h.clone()).unwrap_or_default()
    }
}

impl Drop for HttpMcp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One request per connection (answered with `connection: close`).
async fn serve(
    mut stream: TcpStream,
    seen: &Mutex<Vec<BTreeMap<String, String>>>,
    tool: &str,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 || buf.len() > 1 << 20 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let method = lines
        .next()
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("")
        .to_string();
    let headers: BTreeMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    if let Ok(mut s) = seen.lock() {
        s.push(headers);
    }
    let body: Value =
        serde_json::from_slice(buf.get(head_end..).unwrap_or_default()).unwrap_or(Value::Null);
    let (status, answer) = match (method.as_str(), &body["id"]) {
        ("POST", Value::Null) => ("202 Accepted", None),
        ("POST", id) => {
            let result = match body["method"].as_str() {
                Some("initialize") => json!({
                    "protocolVersion": body["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "http-mcp", "version": "1.0.0"},
                }),
                Some("tools/list") => json!({"tools": [{
                    "name": tool,
                    "description": "answers pong",
                    "inputSchema": {"type": "object", "properties": {}},
                }]}),
                _ => json!({}),
            };
            (
                "200 OK",
                Some(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()),
            )
        }
        _ => ("405 Method Not Allowed", None),
    };
    let body = answer.unwrap_or_default();
    let kind = if body.is_empty() {
        ""
    } else {
        "content-type: application/json\r\n"
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\n{kind}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(reply.as_bytes()).await?;
    stream.shutdown().await
}
