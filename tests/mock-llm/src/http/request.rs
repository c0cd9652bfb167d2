//! [`Request`]: one request, collected (head and whole body) from hyper.

use http_body_util::BodyExt;
use hyper::body::{Body, Incoming};
use hyper::StatusCode;

/// Why a request body could not be collected.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("request body larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("cannot read the request body: {0}")]
    Read(#[from] hyper::Error),
}

impl BodyError {
    /// The status answering it.
    pub fn status(&self) -> StatusCode {
        match self {
            BodyError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            BodyError::Read(_) => StatusCode::BAD_REQUEST,
        }
    }
}

/// One HTTP request with its whole body.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The request target as sent: a path with query, `host:port` for CONNECT, or an
    /// absolute URI for proxy requests.
    pub target: String,
    /// Header names lower-cased, in arrival order (repeats of a name next to each other).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// Reads the whole body of `req` (at most `limit` bytes). Reading it is what sends the
    /// `100 Continue` a client may be waiting for.
    pub async fn collect(req: hyper::Request<Incoming>, limit: usize) -> Result<Self, BodyError> {
        let (parts, mut body) = req.into_parts();
        if body.size_hint().lower() > limit as u64 {
            return Err(BodyError::TooLarge { limit });
        }
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame?.into_data() {
                if bytes.len() + data.len() > limit {
                    return Err(BodyError::TooLarge { limit });
                }
                bytes.extend_from_slice(&data);
            }
        }
        Ok(Request {
            method: parts.method.as_str().to_string(),
            target: parts.uri.to_string(),
            headers: parts
                .headers
                .iter()
                .map(|(name, value)| {
                    (
                        name.as_str().to_string(),
                        String::from_utf8_lossy(value.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: bytes,
        })
    }

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
