//! What the host sends, parsed: one line becomes a JSON-RPC message or the contract's error,
//! and a request's method and params become typed params or the contract's error. Params are
//! parsed liberally ([`agent_bridge_protocol::liberal`]): a field the bridge does not know is
//! ignored and its path returned (the server logs it), a known field of the wrong type is
//! `-32602` naming the field. Pure (no state, no I/O): the server and the fuzz harness run the
//! same code.

use crate::codec::Line;
use agent_bridge_protocol::jsonrpc::{Incoming, RequestId, RpcError, RpcErrorCode};
use agent_bridge_protocol::liberal::{self, Liberal};
use agent_bridge_protocol::wire::*;
use serde_json::Value;

/// One host line, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum HostLine {
    /// A blank line: ignored.
    Blank,
    /// A JSON-RPC 2.0 message.
    Message(Incoming),
    /// The line is refused: answer this error (with the request's id when it is known).
    Refused(Option<RequestId>, RpcError),
}

/// A request of the bridge's methods, with its params parsed.
#[derive(Debug, Clone, PartialEq)]
// Parsed once and moved once; boxing would only complicate matching.
#[allow(clippy::large_enum_variant)]
pub enum HostRequest {
    Initialize(InitializeParams),
    Availability(AvailabilityParams),
    CatalogCacheKey(CatalogCacheKeyParams),
    Connect(ConnectParams),
    Send(SendParams),
    Close(CloseParams),
    ReadSessionHistory(ReadSessionHistoryParams),
}

/// The request methods that exist besides `initialize` (refused `-32002` before it).
pub const REQUEST_METHODS: [&str; 6] = [
    METHOD_AVAILABILITY,
    METHOD_CATALOG_CACHE_KEY,
    METHOD_CONNECT,
    METHOD_SEND,
    METHOD_CLOSE,
    METHOD_READ_SESSION_HISTORY,
];

/// Parses one line as the transport rules say: over the limit `-32600`, not UTF-8 or not JSON
/// `-32700` (both with `id: null`), a bad envelope `-32600`.
pub fn parse_line(line: Line) -> HostLine {
    let text = match line {
        Line::Text(t) => t,
        Line::Oversize { len } => {
            let msg = format!("line of {len} bytes exceeds the 16 MiB limit; discarded");
            return HostLine::Refused(None, RpcError::new(RpcErrorCode::InvalidRequest, msg));
        }
        Line::InvalidUtf8 => {
            return HostLine::Refused(
                None,
                RpcError::new(RpcErrorCode::ParseError, "line is not valid UTF-8"),
            )
        }
    };
    if text.trim().is_empty() {
        return HostLine::Blank;
    }
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            let err = RpcError::new(RpcErrorCode::ParseError, format!("line is not JSON: {e}"));
            return HostLine::Refused(None, err);
        }
    };
    match Incoming::from_value(value) {
        Ok(message) => HostLine::Message(message),
        Err((id, err)) => HostLine::Refused(id, err),
    }
}

/// A request's typed params and the fields of them the bridge ignored (their paths).
type Typed = (HostRequest, Vec<String>);

fn params<T: Liberal>(
    method: &str,
    params: Value,
    wrap: fn(T) -> HostRequest,
) -> Result<Typed, RpcError> {
    match liberal::parse::<T>(params) {
        Ok(parsed) => Ok((wrap(parsed.value), parsed.ignored)),
        Err(e) => Err(RpcError::new(
            RpcErrorCode::InvalidParams,
            format!("invalid params for `{method}`: {e}"),
        )),
    }
}

/// Parses a request's params by its method: an unknown method is `-32601`, `shutdown` sent as
/// a request `-32600`, params that do not fit the method's schema `-32602`.
pub fn parse_request(method: &str, raw: Value) -> Result<HostRequest, RpcError> {
    parse_request_noting_ignored(method, raw).map(|(request, _)| request)
}

/// [`parse_request`], with the paths of the unknown fields it ignored
/// (`input.config.futureField`).
pub fn parse_request_noting_ignored(method: &str, raw: Value) -> Result<Typed, RpcError> {
    match method {
        METHOD_INITIALIZE => params(method, raw, HostRequest::Initialize),
        METHOD_AVAILABILITY => params(method, raw, HostRequest::Availability),
        METHOD_CATALOG_CACHE_KEY => params(method, raw, HostRequest::CatalogCacheKey),
        METHOD_CONNECT => params(method, raw, HostRequest::Connect),
        METHOD_SEND => params(method, raw, HostRequest::Send),
        METHOD_CLOSE => params(method, raw, HostRequest::Close),
        METHOD_READ_SESSION_HISTORY => params(method, raw, HostRequest::ReadSessionHistory),
        METHOD_SHUTDOWN => Err(RpcError::new(
            RpcErrorCode::InvalidRequest,
            "`shutdown` is a notification; send it without an id",
        )),
        other => Err(RpcError::new(
            RpcErrorCode::MethodNotFound,
            format!("unknown method `{other}`"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn line(s: &str) -> HostLine {
        parse_line(Line::Text(s.into()))
    }

    fn code(l: &HostLine) -> Option<i64> {
        match l {
            HostLine::Refused(_, e) => Some(e.code),
            _ => None,
        }
    }

    #[test]
    fn lines_follow_the_transport_rules() {
        assert_eq!(line("  "), HostLine::Blank);
        assert_eq!(code(&line("{")), Some(-32700));
        assert_eq!(code(&parse_line(Line::InvalidUtf8)), Some(-32700));
        assert_eq!(code(&parse_line(Line::Oversize { len: 9 })), Some(-32600));
        assert_eq!(code(&line("[1]")), Some(-32600));
        assert_eq!(
            line(r#"{"jsonrpc":"2.0","id":7,"method":"m"}"#),
            HostLine::Message(Incoming::Request {
                id: RequestId::Number(7.into()),
                method: "m".into(),
                params: Value::Null
            })
        );
    }

    #[test]
    fn requests_parse_by_method() {
        let init = parse_request(
            "initialize",
            json!({"apiVersion": 1, "host": {"name": "h", "version": "1"}}),
        );
        assert!(matches!(init, Ok(HostRequest::Initialize(p)) if p.api_version == 1));
        let code = |r: Result<HostRequest, RpcError>| r.err().map(|e| e.code);
        assert_eq!(code(parse_request("nope", Value::Null)), Some(-32601));
        assert_eq!(code(parse_request("shutdown", Value::Null)), Some(-32600));
        assert_eq!(
            code(parse_request(
                "provider/send",
                json!({"connectionId": "c1"})
            )),
            Some(-32602)
        );
    }
}
