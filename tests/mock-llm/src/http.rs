//! A deliberately small HTTP/1.1 server side: request parsing (Content-Length or chunked
//! bodies, `Expect: 100-continue`), plain and chunked responses, and client-disconnect
//! detection while a response is being streamed. Enough for the CLIs' API clients and for
//! proxy `CONNECT`s; nothing more.

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// Largest accepted request head (request line + headers).
const MAX_HEAD: usize = 256 * 1024;
/// Largest accepted request body.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Errors while reading a request or writing a response.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    #[error("connection closed in the middle of a request")]
    UnexpectedEof,
    #[error("malformed request: {0}")]
    Malformed(String),
    #[error("request too large")]
    TooLarge,
}

/// One parsed HTTP request.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The request target as sent: a path with query, `host:port` for CONNECT, or an
    /// absolute URI for proxy requests.
    pub target: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// First header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The target's path without the query string.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The target's query string (without `?`), if any.
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, q)| q)
    }
}

/// A server-side HTTP connection with its read buffer.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn new(stream: TcpStream) -> Self {
        // Small SSE chunks must not wait for the client's delayed ACK (see the spec's
        // "Mock server gotcha for timing").
        let _ = stream.set_nodelay(true);
        Self {
            stream,
            buf: Vec::new(),
        }
    }

    async fn fill(&mut self) -> Result<usize, HttpError> {
        let mut tmp = [0u8; 16 * 1024];
        let n = self.stream.read(&mut tmp).await?;
        self.buf.extend_from_slice(&tmp[..n]);
        Ok(n)
    }

    /// Reads the next request; `Ok(None)` when the client closed the connection cleanly
    /// between requests.
    pub async fn read_request(&mut self) -> Result<Option<Request>, HttpError> {
        let head_end = loop {
            if let Some(pos) = find(&self.buf, b"\r\n\r\n") {
                break pos;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(HttpError::TooLarge);
            }
            if self.fill().await? == 0 {
                return if self.buf.iter().all(|b| b.is_ascii_whitespace()) {
                    Ok(None)
                } else {
                    Err(HttpError::UnexpectedEof)
                };
            }
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).into_owned();
        self.buf.drain(..head_end + 4);
        let mut lines = head.split("\r\n").skip_while(|l| l.is_empty());
        let request_line = lines
            .next()
            .ok_or_else(|| HttpError::Malformed("empty request".into()))?;
        let mut parts = request_line.split_whitespace();
        let (method, target) = match (parts.next(), parts.next(), parts.next()) {
            (Some(m), Some(t), Some(v)) if v.starts_with("HTTP/") => (m.to_string(), t.to_string()),
            _ => {
                return Err(HttpError::Malformed(format!(
                    "request line {request_line:?}"
                )))
            }
        };
        let mut headers = Vec::new();
        for line in lines {
            let (k, v) = line
                .split_once(':')
                .ok_or_else(|| HttpError::Malformed(format!("header line {line:?}")))?;
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
        let mut req = Request {
            method,
            target,
            headers,
            body: Vec::new(),
        };
        if req.method == "CONNECT" {
            return Ok(Some(req));
        }
        if req
            .header("expect")
            .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
        {
            self.stream
                .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                .await?;
        }
        let chunked = req
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        req.body = if chunked {
            self.read_chunked_body().await?
        } else {
            let len = match req.header("content-length") {
                Some(v) => v
                    .parse::<usize>()
                    .map_err(|_| HttpError::Malformed(format!("content-length {v:?}")))?,
                None => 0,
            };
            self.read_exact_body(len).await?
        };
        Ok(Some(req))
    }

    async fn read_exact_body(&mut self, len: usize) -> Result<Vec<u8>, HttpError> {
        if len > MAX_BODY {
            return Err(HttpError::TooLarge);
        }
        while self.buf.len() < len {
            if self.fill().await? == 0 {
                return Err(HttpError::UnexpectedEof);
            }
        }
        Ok(self.buf.drain(..len).collect())
    }

    async fn read_line(&mut self) -> Result<String, HttpError> {
        loop {
            if let Some(pos) = find(&self.buf, b"\r\n") {
                let line = String::from_utf8_lossy(&self.buf[..pos]).into_owned();
                self.buf.drain(..pos + 2);
                return Ok(line);
            }
            if self.buf.len() > MAX_HEAD {
                return Err(HttpError::TooLarge);
            }
            if self.fill().await? == 0 {
                return Err(HttpError::UnexpectedEof);
            }
        }
    }

    async fn read_chunked_body(&mut self) -> Result<Vec<u8>, HttpError> {
        let mut body = Vec::new();
        loop {
            let line = self.read_line().await?;
            let size_hex = line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_hex, 16)
                .map_err(|_| HttpError::Malformed(format!("chunk size {line:?}")))?;
            if size == 0 {
                // Trailers until the empty line.
                while !self.read_line().await?.is_empty() {}
                return Ok(body);
            }
            if body.len() + size > MAX_BODY {
                return Err(HttpError::TooLarge);
            }
            let chunk = self.read_exact_body(size + 2).await?;
            body.extend_from_slice(&chunk[..size]);
        }
    }

    /// Writes a complete response with a Content-Length body.
    pub async fn respond(
        &mut self,
        status: u16,
        content_type: &str,
        body: &[u8],
        close: bool,
    ) -> Result<(), HttpError> {
        let head = format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n{}\r\n",
            reason(status),
            body.len(),
            if close { "connection: close\r\n" } else { "" },
        );
        self.stream.write_all(head.as_bytes()).await?;
        self.stream.write_all(body).await?;
        self.stream.flush().await?;
        Ok(())
    }

    /// Starts a chunked response (used for SSE).
    pub async fn start_chunked(
        &mut self,
        status: u16,
        content_type: &str,
    ) -> Result<(), HttpError> {
        let head = format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n",
            reason(status)
        );
        self.stream.write_all(head.as_bytes()).await?;
        self.stream.flush().await?;
        Ok(())
    }

    /// Writes one chunk of a chunked response and flushes it.
    pub async fn write_chunk(&mut self, data: &[u8]) -> Result<(), HttpError> {
        if data.is_empty() {
            return Ok(());
        }
        let mut out = format!("{:x}\r\n", data.len()).into_bytes();
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
        self.stream.write_all(&out).await?;
        self.stream.flush().await?;
        Ok(())
    }

    /// Ends a chunked response.
    pub async fn end_chunked(&mut self) -> Result<(), HttpError> {
        self.stream.write_all(b"0\r\n\r\n").await?;
        self.stream.flush().await?;
        Ok(())
    }

    /// Waits `delay`, watching the socket: returns `true` as soon as the client closes the
    /// connection (or it fails), `false` when the delay elapsed with the client still there.
    /// Bytes the client sends meanwhile are kept for the next request.
    pub async fn sleep_or_disconnect(&mut self, delay: Duration) -> bool {
        let deadline = Instant::now() + delay;
        loop {
            let mut tmp = [0u8; 4096];
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => return false,
                read = self.stream.read(&mut tmp) => match read {
                    Ok(0) | Err(_) => return true,
                    Ok(n) => self.buf.extend_from_slice(&tmp[..n]),
                },
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reason phrase of the status codes the mock uses.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}
