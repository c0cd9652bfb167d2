//! The daemon's wire input: every line of the input goes through the server's own parsing
//! ([`agent_bridge_core::host_input`]). Each line is blank, a message, or refused with the
//! contract's code for it (`-32700` not UTF-8 / not JSON with `id: null`, `-32600` a bad
//! envelope); each request's params parse into the method's typed params or are refused with
//! `-32601` (unknown method), `-32600` (`shutdown` with an id) or `-32602`. Params that parse
//! serialize back into params that parse to the same value, and every error answer is one
//! JSON-RPC line.

use crate::check;
use agent_bridge_core::codec::MAX_LINE;
use agent_bridge_core::host_input::{
    parse_line, parse_request, HostLine, HostRequest, REQUEST_METHODS,
};
use agent_bridge_protocol::jsonrpc::{Incoming, RpcErrorCode};
use agent_bridge_protocol::wire::{METHOD_INITIALIZE, METHOD_SHUTDOWN};
use serde_json::Value;

pub fn run(data: &[u8]) {
    for line in crate::lines(MAX_LINE, data) {
        match parse_line(line) {
            HostLine::Blank => {}
            HostLine::Refused(id, err) => {
                check::rpc_error(
                    id.clone(),
                    &err,
                    &[RpcErrorCode::ParseError, RpcErrorCode::InvalidRequest],
                );
                if err.code == RpcErrorCode::ParseError.code() {
                    assert_eq!(id, None, "a parse error names an id");
                }
            }
            HostLine::Message(Incoming::Request { id, method, params }) => {
                match parse_request(&method, params) {
                    Ok(request) => parsed(&method, &request),
                    Err(err) => {
                        let expected = if method == METHOD_SHUTDOWN {
                            RpcErrorCode::InvalidRequest
                        } else if method == METHOD_INITIALIZE
                            || REQUEST_METHODS.contains(&method.as_str())
                        {
                            RpcErrorCode::InvalidParams
                        } else {
                            RpcErrorCode::MethodNotFound
                        };
                        check::rpc_error(Some(id), &err, &[expected]);
                    }
                }
            }
            HostLine::Message(Incoming::Notification { .. } | Incoming::Response { .. }) => {}
        }
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    match serde_json::to_value(v) {
        Ok(v) => v,
        Err(e) => panic!("parsed params do not serialize: {e}"),
    }
}

/// Parsed params: what they say is what they parse back to; an input's derived facts work.
fn parsed(method: &str, request: &HostRequest) {
    let value = match request {
        HostRequest::Initialize(p) => to_value(p),
        HostRequest::Availability(p) => to_value(p),
        HostRequest::CatalogCacheKey(p) => to_value(p),
        HostRequest::Connect(p) => to_value(p),
        HostRequest::Send(p) => {
            let input = &p.input;
            assert!(!input.kind().is_empty());
            let _ = input.session_id();
            for cap in input.required_capabilities() {
                assert!(!cap.as_str().is_empty());
            }
            to_value(p)
        }
        HostRequest::Close(p) => to_value(p),
        HostRequest::ReadSessionHistory(p) => to_value(p),
    };
    match parse_request(method, value.clone()) {
        Ok(again) => assert_eq!(&again, request, "params do not round-trip: {value}"),
        Err(e) => panic!("serialized params are refused ({}): {value}", e.message),
    }
}
