//! The request log: what each client sent and what the mock answered.

use serde::Serialize;
use std::collections::BTreeMap;

/// Which API (or trap) a request hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Anthropic Messages: `POST /v1/messages` (and `/v1/messages/count_tokens`).
    Anthropic,
    /// OpenAI Responses: `POST /v1/responses`.
    OpenaiResponses,
    /// OpenAI Chat Completions: `POST /v1/chat/completions`.
    OpenaiChat,
    /// Gemini: `POST /v1beta/models/<model>:{streamGenerateContent,generateContent,countTokens}`.
    Gemini,
    /// `GET /npm/...`: OpenCode's plugin install, redirected here via `npm_config_registry`.
    NpmRegistry,
    /// A proxy request (`CONNECT host:port` or an absolute URI): refused with 403.
    ProxyRefused,
    /// Anything else (answered 404).
    Unknown,
}

impl Family {
    /// The kebab-case name used in logs (`proxy-refused`, `openai-chat`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Anthropic => "anthropic",
            Family::OpenaiResponses => "openai-responses",
            Family::OpenaiChat => "openai-chat",
            Family::Gemini => "gemini",
            Family::NpmRegistry => "npm-registry",
            Family::ProxyRefused => "proxy-refused",
            Family::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One request as the mock saw it.
#[derive(Debug, Clone, Serialize)]
pub struct RecordedRequest {
    /// Position in the log (0-based).
    pub seq: usize,
    /// Milliseconds since the mock started, when the request arrived.
    pub at_ms: u64,
    /// Microseconds since the Unix epoch when the request (its whole body) arrived: benchmarks
    /// in another process compare it with their own clock.
    pub at_unix_us: u64,
    /// Microseconds since the Unix epoch when the answer was finished with (its last chunk
    /// handed to the connection, or dropped); `None` until then.
    pub done_unix_us: Option<u64>,
    pub method: String,
    /// The request target as sent (path + query, `host:port` for CONNECT, absolute URI for
    /// proxy requests).
    pub path: String,
    /// Header names lower-cased; repeated headers joined with ", ".
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON; a JSON string holding the raw (lossy UTF-8) text when it is not
    /// JSON; `null` when empty.
    pub body: serde_json::Value,
    pub family: Family,
    /// Short description of the answer: `text`, `slow-text`, `tool-call:Bash`, `json`,
    /// `error:500`, `status:404`, ...
    pub reply: String,
    /// True when the client went away before the (streamed) answer was complete.
    pub client_disconnected: bool,
}

impl RecordedRequest {
    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The path without the query string.
    pub fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or("")
    }

    /// Names of the function tools the request declared (any API family).
    pub fn tool_names(&self) -> Vec<String> {
        crate::conversation::extract(self.family, &self.body)
            .tools
            .into_iter()
            .map(|t| t.name)
            .collect()
    }

    /// The output of the tool result this request carries as its last message, if any.
    pub fn tool_result(&self) -> Option<String> {
        crate::conversation::extract(self.family, &self.body).tool_result
    }

    /// The latest user prompt text of this request, if any.
    pub fn prompt(&self) -> Option<String> {
        crate::conversation::extract(self.family, &self.body).prompt
    }

    /// True for requests that hit one of the model APIs.
    pub fn is_model_call(&self) -> bool {
        matches!(
            self.family,
            Family::Anthropic | Family::OpenaiResponses | Family::OpenaiChat | Family::Gemini
        )
    }
}

/// Headers as a map (lower-cased names, repeated values joined).
pub fn header_map(headers: &[(String, String)]) -> BTreeMap<String, String> {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in headers {
        map.entry(k.clone())
            .and_modify(|old| {
                old.push_str(", ");
                old.push_str(v);
            })
            .or_insert_with(|| v.clone());
    }
    map
}

/// Parses a body for the log: JSON, else the raw text as a JSON string, `null` when empty.
pub fn body_value(body: &[u8]) -> serde_json::Value {
    if body.is_empty() {
        return serde_json::Value::Null;
    }
    serde_json::from_slice(body)
        .unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(body).into_owned()))
}
