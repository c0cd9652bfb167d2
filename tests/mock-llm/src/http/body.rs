//! [`Answer`]: the body of every response the mock sends. A queue of byte chunks, each sent
//! after an optional delay (SSE pacing), that reports once whether the client took all of it.

use hyper::body::{Body, Bytes, Frame, SizeHint};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;
use tokio::time::Sleep;

/// Told once per answer whether it was sent completely (`true`), or dropped before its end
/// because the client went away or the server stopped (`false`).
type OnDone = Box<dyn FnOnce(bool) + Send>;

/// A response body: chunks handed to hyper one by one, each after its delay. hyper writes
/// (and, with TCP_NODELAY, sends) whatever it holds whenever the body is waiting, so every
/// delayed chunk leaves at once. A client hang-up makes hyper drop the body mid-delay.
pub struct Answer {
    /// Chunks not handed out yet, each with the delay before it; none is empty.
    chunks: VecDeque<(Duration, Bytes)>,
    /// `Some(len)` for a complete body (sent with Content-Length), `None` for a stream
    /// (sent chunked).
    len: Option<u64>,
    /// The running delay of the first chunk.
    sleep: Option<Pin<Box<Sleep>>>,
    on_done: Option<OnDone>,
}

impl Answer {
    /// A complete body, sent with Content-Length.
    pub fn full(data: impl Into<Bytes>) -> Answer {
        let data: Bytes = data.into();
        let len = data.len() as u64;
        let mut answer = Answer::streamed([(Duration::ZERO, data)]);
        answer.len = Some(len);
        answer
    }

    /// A streamed body (chunked transfer encoding): each chunk after its delay.
    pub fn streamed(chunks: impl IntoIterator<Item = (Duration, Bytes)>) -> Answer {
        Answer {
            chunks: chunks
                .into_iter()
                .filter(|(_, data)| !data.is_empty())
                .collect(),
            len: None,
            sleep: None,
            on_done: None,
        }
    }

    /// The same body, its first chunk sent only after `delay` (a non-streamed answer that takes
    /// as long as its stream would have).
    pub fn after(mut self, delay: Duration) -> Answer {
        if let Some((first, _)) = self.chunks.front_mut() {
            *first = delay;
        }
        self
    }

    /// Calls `f` once the body is finished with: `true` when every chunk was handed to the
    /// connection, `false` when it was dropped before.
    pub fn on_done(mut self, f: impl FnOnce(bool) + Send + 'static) -> Answer {
        self.on_done = Some(Box::new(f));
        self
    }
}

impl Body for Answer {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        let Some(delay) = this.chunks.front().map(|(delay, _)| *delay) else {
            return Poll::Ready(None);
        };
        if !delay.is_zero() {
            let sleep = this
                .sleep
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(delay)));
            ready!(sleep.as_mut().poll(cx));
            this.sleep = None;
        }
        Poll::Ready(
            this.chunks
                .pop_front()
                .map(|(_, data)| Ok(Frame::data(data))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        match self.len {
            Some(len) => SizeHint::with_exact(len),
            None => SizeHint::default(),
        }
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        if let Some(on_done) = self.on_done.take() {
            on_done(self.chunks.is_empty());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;
    use std::sync::{Arc, Mutex};

    fn outcome() -> (Arc<Mutex<Option<bool>>>, impl FnOnce(bool) + Send + 'static) {
        let seen = Arc::new(Mutex::new(None));
        let store = seen.clone();
        (seen, move |complete| {
            *store.lock().unwrap_or_else(|e| e.into_inner()) = Some(complete)
        })
    }

    #[tokio::test]
    async fn yields_the_chunks_in_order_and_reports_completion() {
        let (seen, on_done) = outcome();
        let answer = Answer::streamed([
            (Duration::ZERO, Bytes::from_static(b"a")),
            (Duration::ZERO, Bytes::new()),
            (Duration::from_millis(1), Bytes::from_static(b"b")),
        ])
        .on_done(on_done);
        assert_eq!(answer.size_hint().exact(), None);
        let body = answer.collect().await.map(|c| c.to_bytes());
        assert_eq!(body.ok().as_deref(), Some(&b"ab"[..]));
        assert_eq!(*seen.lock().unwrap(), Some(true));
    }

    #[test]
    fn full_bodies_have_an_exact_length_and_empty_ones_end_at_once() {
        assert_eq!(Answer::full("four").size_hint().exact(), Some(4));
        assert!(Answer::full("").is_end_stream());
    }

    #[tokio::test(start_paused = true)]
    async fn a_delayed_full_body_waits_before_its_data_and_keeps_its_length() {
        let answer = Answer::full("late").after(Duration::from_secs(6));
        assert_eq!(answer.size_hint().exact(), Some(4));
        let mut body = std::pin::pin!(answer);
        let early = tokio::time::timeout(Duration::from_secs(5), body.frame()).await;
        assert!(early.is_err(), "the data came before its delay");
        let frame = body
            .frame()
            .await
            .and_then(|f| f.ok())
            .and_then(|f| f.into_data().ok());
        assert_eq!(frame.as_deref(), Some(&b"late"[..]));
    }

    #[test]
    fn dropping_before_the_end_reports_an_incomplete_answer() {
        let (seen, on_done) = outcome();
        drop(Answer::full("never sent").on_done(on_done));
        assert_eq!(*seen.lock().unwrap(), Some(false));
    }
}
