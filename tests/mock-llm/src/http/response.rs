//! Building the mock's responses.

use super::body::Answer;
use hyper::body::Bytes;
use hyper::ext::ReasonPhrase;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONNECTION, CONTENT_TYPE};
use hyper::{Response, StatusCode};

/// A complete response (sent with Content-Length).
pub(crate) fn respond(status: u16, content_type: &str, body: impl Into<Bytes>) -> Response<Answer> {
    respond_with(status, content_type, Answer::full(body))
}

/// A `200 text/event-stream` response streaming `answer` (chunked, not cached).
pub(crate) fn event_stream(answer: Answer) -> Response<Answer> {
    let mut response = respond_with(200, "text/event-stream", answer);
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Marks `response` as the last on its connection (`connection: close`).
pub(crate) fn closing(mut response: Response<Answer>) -> Response<Answer> {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A response with `body` (complete or streamed).
pub(crate) fn respond_with(status: u16, content_type: &str, body: Answer) -> Response<Answer> {
    let mut response = Response::new(body);
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    *response.status_mut() = status;
    if status.canonical_reason().is_none() {
        if let Some(reason) = reason(status.as_u16()) {
            response
                .extensions_mut()
                .insert(ReasonPhrase::from_static(reason));
        }
    }
    let content_type = HeaderValue::from_str(content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"));
    response.headers_mut().insert(CONTENT_TYPE, content_type);
    response
}

/// Reason phrases of the non-standard statuses the APIs use (hyper knows the standard ones).
fn reason(status: u16) -> Option<&'static [u8]> {
    match status {
        529 => Some(b"Overloaded"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_standard_statuses_keep_a_reason_phrase() {
        let r = respond(529, "application/json", "{}");
        assert_eq!(r.status().as_u16(), 529);
        let reason = r.extensions().get::<ReasonPhrase>().map(|p| p.as_bytes());
        assert_eq!(reason, Some(&b"Overloaded"[..]));
        assert!(respond(404, "text/plain", "")
            .extensions()
            .get::<ReasonPhrase>()
            .is_none());
    }

    #[test]
    fn invalid_statuses_become_500() {
        assert_eq!(respond(42, "text/plain", "").status(), 500);
    }

    #[test]
    fn event_streams_are_not_cached_and_closing_closes() {
        let r = closing(event_stream(Answer::streamed([])));
        assert_eq!(r.headers()[CONTENT_TYPE], "text/event-stream");
        assert_eq!(r.headers()[CACHE_CONTROL], "no-cache");
        assert_eq!(r.headers()[CONNECTION], "close");
    }
}
