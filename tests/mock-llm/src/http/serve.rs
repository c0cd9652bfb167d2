//! The listener: accepts connections and serves each with hyper's HTTP/1.1 connection,
//! handing every collected request to the router.

use super::body::Answer;
use super::request::Request;
use super::response::{closing, respond};
use crate::server::Shared;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Response;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Largest accepted request head (request line + headers).
const MAX_HEAD: usize = 256 * 1024;
/// Most headers accepted in one request (hyper's default is 100).
const MAX_HEADERS: usize = 512;
/// Largest accepted request body.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Accepts connections until `cancel`; each is served on its own task, which `cancel` also
/// ends (closing the connection).
pub(crate) async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    cancel: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            _ = cancel.cancelled() => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, _)) => {
                tokio::spawn(connection(stream, shared.clone(), cancel.clone()));
            }
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
    }
}

/// Serves one connection: any number of requests (keep-alive, pipelined), until the client
/// closes it, a response closes it, or `cancel`.
async fn connection(stream: TcpStream, shared: Arc<Shared>, cancel: CancellationToken) {
    // Small SSE chunks must not wait for the client's delayed ACK (see the spec's "Mock
    // server gotcha for timing"); the latency benchmarks depend on it.
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "cannot set TCP_NODELAY");
    }
    let service = service_fn(move |req| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(answer(&shared, req).await) }
    });
    let served = http1::Builder::new()
        .max_header_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = cancel.cancelled() => {}
        result = served => if let Err(e) = result {
            tracing::debug!(error = %e, "connection ended with an error");
        }
    }
}

/// Collects the request and routes it; a body that cannot be read gets a closing 400/413.
async fn answer(shared: &Arc<Shared>, req: hyper::Request<Incoming>) -> Response<Answer> {
    match Request::collect(req, MAX_BODY).await {
        Ok(req) => crate::routes::handle(shared, req),
        Err(e) => {
            tracing::debug!(error = %e, "bad request body");
            closing(respond(e.status().as_u16(), "text/plain", e.to_string()))
        }
    }
}
