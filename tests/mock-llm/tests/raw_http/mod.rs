//! A raw HTTP/1.1 client over one TCP connection, for testing the mock's HTTP layer byte by
//! byte: it sends exactly what a test writes and parses responses (Content-Length or
//! chunked) from a buffer kept across responses, so pipelined answers are not lost.

#![allow(dead_code)]

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One parsed response.
pub struct Response {
    pub status: u16,
    /// Status line and headers, as sent.
    pub head: String,
    pub body: String,
}

impl Response {
    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }
}

pub struct Client {
    stream: TcpStream,
    /// Received, not yet parsed bytes.
    buf: Vec<u8>,
}

impl Client {
    pub async fn connect(port: u16) -> Client {
        Client {
            stream: TcpStream::connect(("127.0.0.1", port)).await.unwrap(),
            buf: Vec::new(),
        }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// Reads more bytes into the buffer; returns how many (0 at end of stream).
    pub async fn fill(&mut self) -> usize {
        let mut tmp = [0u8; 16 * 1024];
        let n = self.stream.read(&mut tmp).await.unwrap_or(0);
        self.buf.extend_from_slice(&tmp[..n]);
        n
    }

    /// Everything received and not parsed yet, as text.
    pub fn pending(&self) -> String {
        String::from_utf8_lossy(&self.buf).into_owned()
    }

    /// Reads until the buffer holds `needle`.
    pub async fn read_until(&mut self, needle: &str) {
        while !self.pending().contains(needle) {
            assert!(
                self.fill().await > 0,
                "eof before {needle:?}: {}",
                self.pending()
            );
        }
    }

    /// Whether the server closed the connection (after sending what is buffered).
    pub async fn closed(&mut self) -> bool {
        self.fill().await == 0
    }

    async fn line(&mut self) -> String {
        loop {
            if let Some(p) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8_lossy(&self.buf[..p]).into_owned();
                self.buf.drain(..p + 2);
                return line;
            }
            assert!(self.fill().await > 0, "eof inside a line");
        }
    }

    async fn exactly(&mut self, len: usize) -> Vec<u8> {
        while self.buf.len() < len {
            assert!(self.fill().await > 0, "eof inside a body");
        }
        self.buf.drain(..len).collect()
    }

    /// Reads one response (a `1xx` is a response of its own, without body).
    pub async fn response(&mut self) -> Response {
        let head_end = loop {
            if let Some(p) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break p;
            }
            assert!(self.fill().await > 0, "eof before a response head");
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).into_owned();
        self.buf.drain(..head_end + 4);
        let status: u16 = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut response = Response {
            status,
            head,
            body: String::new(),
        };
        let chunked = response
            .header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
        let body = if chunked {
            let mut body = Vec::new();
            loop {
                let size = usize::from_str_radix(&self.line().await, 16).unwrap();
                body.extend_from_slice(&self.exactly(size + 2).await[..size]);
                if size == 0 {
                    break body;
                }
            }
        } else {
            let len = response
                .header("content-length")
                .map_or(0, |v| v.parse().unwrap());
            self.exactly(len).await
        };
        response.body = String::from_utf8(body).unwrap();
        response
    }
}

/// Sends a JSON POST (with Content-Length) on `client` and reads the response.
pub async fn post(client: &mut Client, path: &str, body: &Value) -> Response {
    client.send(post_request(path, body).as_bytes()).await;
    client.response().await
}

/// A JSON POST with Content-Length.
pub fn post_request(path: &str, body: &Value) -> String {
    let body = body.to_string();
    format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// `data:` payloads of an SSE body.
pub fn sse_data(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap_or(Value::String(d.to_string())))
        .collect()
}
