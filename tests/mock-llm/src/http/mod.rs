//! The mock's HTTP layer, on hyper's HTTP/1.1 server: keep-alive, pipelining, chunked
//! request bodies, `Expect: 100-continue` and malformed requests (400) are hyper's; this
//! module collects each request into a [`Request`] for the router, and answers with an
//! [`Answer`] body (complete, or a paced SSE stream that notices a client hang-up).

mod body;
mod request;
mod response;
mod serve;

pub use body::Answer;
pub use request::{BodyError, Request};
pub(crate) use response::{closing, event_stream, respond, respond_with};
pub(crate) use serve::accept_loop;
