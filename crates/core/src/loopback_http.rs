//! A small HTTP/1.1 client for the server an agent runs beside its stdio protocol on the
//! loopback interface (OpenCode's, inside `opencode acp`): JSON in and out, one connection per
//! request (a loopback connect costs next to nothing, and no idle connection outlives a call),
//! HTTP basic auth, a time limit and a size limit on every answer. Never logs the credentials.

use base64::Engine;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::Method;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::time::Duration;
use tokio::net::TcpStream;

/// Largest answer read (an OpenCode session's messages with every part can be large).
const ANSWER_LIMIT: usize = 32 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("cannot reach the agent's server on 127.0.0.1:{port}: {source}")]
    Connect { port: u16, source: std::io::Error },
    #[error("{what}: no answer within {limit:?}")]
    Timeout { what: String, limit: Duration },
    #[error("{what}: HTTP {status}: {body}")]
    Status {
        what: String,
        status: u16,
        body: String,
    },
    #[error("{what}: {detail}")]
    Protocol { what: String, detail: String },
}

impl HttpError {
    /// The HTTP status of a refused request.
    pub fn status(&self) -> Option<u16> {
        match self {
            HttpError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// A client of `http://127.0.0.1:{port}`.
#[derive(Clone)]
pub struct LoopbackHttp {
    port: u16,
    authorization: Option<String>,
    timeout: Duration,
}

impl std::fmt::Debug for LoopbackHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackHttp")
            .field("port", &self.port)
            .field(
                "authorization",
                &self.authorization.as_ref().map(|_| "<set>"),
            )
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl LoopbackHttp {
    pub fn new(port: u16, timeout: Duration) -> Self {
        LoopbackHttp {
            port,
            authorization: None,
            timeout,
        }
    }

    /// Every request with HTTP basic auth as `user` / `password`.
    pub fn basic_auth(mut self, user: &str, password: &str) -> Self {
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        self.authorization = Some(format!("Basic {token}"));
        self
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub async fn get(&self, path: &str) -> Result<Value, HttpError> {
        self.request(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, HttpError> {
        self.request(Method::POST, path, Some(body)).await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Result<Value, HttpError> {
        self.request(Method::PATCH, path, Some(body)).await
    }

    /// One request; the answer's JSON body (`null` when empty).
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, HttpError> {
        let what = format!("{method} {path}");
        match tokio::time::timeout(self.timeout, self.exchange(&what, method, path, body)).await {
            Ok(answer) => answer,
            Err(_) => Err(HttpError::Timeout {
                what,
                limit: self.timeout,
            }),
        }
    }

    async fn exchange(
        &self,
        what: &str,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, HttpError> {
        let protocol = |detail: String| HttpError::Protocol {
            what: what.to_string(),
            detail,
        };
        let stream = TcpStream::connect(SocketAddrV4::new(Ipv4Addr::LOCALHOST, self.port))
            .await
            .map_err(|source| HttpError::Connect {
                port: self.port,
                source,
            })?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| protocol(e.to_string()))?;
        // The connection is driven until the answer is read; it ends with this call.
        let driver = tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("loopback HTTP connection: {e}");
            }
        });
        let payload = body.map(|b| b.to_string()).unwrap_or_default();
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header(hyper::header::HOST, format!("127.0.0.1:{}", self.port))
            .header(hyper::header::ACCEPT, "application/json");
        if body.is_some() {
            request = request.header(hyper::header::CONTENT_TYPE, "application/json");
        }
        if let Some(auth) = &self.authorization {
            request = request.header(hyper::header::AUTHORIZATION, auth);
        }
        let request = request
            .body(Full::new(Bytes::from(payload)))
            .map_err(|e| protocol(e.to_string()))?;
        let result = async {
            let answer = sender
                .send_request(request)
                .await
                .map_err(|e| protocol(e.to_string()))?;
            let status = answer.status();
            let bytes = Limited::new(answer.into_body(), ANSWER_LIMIT)
                .collect()
                .await
                .map_err(|e| protocol(format!("reading the answer: {e}")))?
                .to_bytes();
            if !status.is_success() {
                let text = String::from_utf8_lossy(&bytes);
                return Err(HttpError::Status {
                    what: what.to_string(),
                    status: status.as_u16(),
                    body: text.chars().take(300).collect(),
                });
            }
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok(Value::Null);
            }
            serde_json::from_slice(&bytes).map_err(|e| protocol(format!("not JSON: {e}")))
        }
        .await;
        driver.abort();
        result
    }
}

/// A port on 127.0.0.1 that was free a moment ago (bound, then released), for an agent told
/// which port its server takes. Another process may take it meanwhile: a caller starts again
/// with a new one when the agent cannot bind it.
pub fn free_port() -> std::io::Result<u16> {
    let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A one-request server: returns the request it read; answers `status` and `body`.
    async fn serve_once(
        status: &'static str,
        body: &'static str,
    ) -> (u16, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let task = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                let n = s.read(&mut buf).await.unwrap();
                seen.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&seen).to_string();
                if let Some(head_end) = text.find("\r\n\r\n") {
                    let length = text
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length: "))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if seen.len() >= head_end + 4 + length {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            let answer = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            s.write_all(answer.as_bytes()).await.unwrap();
            String::from_utf8_lossy(&seen).to_string()
        });
        (port, task)
    }

    #[tokio::test]
    async fn a_post_sends_json_with_basic_auth_and_reads_json() {
        let (port, server) = serve_once("200 OK", r#"{"id":"ses_1"}"#).await;
        let http = LoopbackHttp::new(port, Duration::from_secs(5)).basic_auth("opencode", "pw");
        let answer = http
            .post("/session/ses_1/revert", &json!({"messageID": "msg_1"}))
            .await
            .unwrap();
        assert_eq!(answer, json!({"id": "ses_1"}));
        let request = server.await.unwrap();
        assert!(
            request.starts_with("POST /session/ses_1/revert HTTP/1.1"),
            "{request}"
        );
        // base64("opencode:pw")
        assert!(
            request.contains("authorization: Basic b3BlbmNvZGU6cHc="),
            "{request}"
        );
        assert!(request.ends_with(r#"{"messageID":"msg_1"}"#), "{request}");
        assert!(!format!("{http:?}").contains("b3BlbmNvZGU6cHc="));
    }

    #[tokio::test]
    async fn a_refusal_names_the_status_and_a_dead_port_the_port() {
        let (port, _server) = serve_once("401 Unauthorized", "Unauthorized").await;
        let http = LoopbackHttp::new(port, Duration::from_secs(5));
        let e = http.get("/session").await.unwrap_err();
        assert_eq!(e.status(), Some(401), "{e}");
        assert!(e.to_string().contains("GET /session"), "{e}");

        let port = free_port().unwrap();
        let e = LoopbackHttp::new(port, Duration::from_secs(5))
            .get("/session")
            .await
            .unwrap_err();
        assert!(matches!(e, HttpError::Connect { .. }), "{e}");
    }

    #[tokio::test]
    async fn a_server_that_never_answers_times_out() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let _held = tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(s);
        });
        let e = LoopbackHttp::new(port, Duration::from_millis(200))
            .get("/session")
            .await
            .unwrap_err();
        assert!(matches!(e, HttpError::Timeout { .. }), "{e}");
    }
}
