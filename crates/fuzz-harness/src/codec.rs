//! The line codec: input = `[limit, chunking, stream...]`. The stream is decoded whole and in
//! chunks (sizes drawn from the second byte) with the limit the first byte picks (0..=127
//! bytes, or the real 16 MiB when its top bit is set). Both must give exactly the frames of a
//! reference splitter, every text frame fits the limit and holds no newline, and the buffer
//! never keeps more than the limit between reads.

use agent_bridge_core::codec::{BoundedLineCodec, Line, MAX_LINE};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

pub fn run(data: &[u8]) {
    let [pick, chunking, stream @ ..] = data else {
        return;
    };
    let max = if pick & 0x80 != 0 {
        MAX_LINE
    } else {
        usize::from(pick & 0x7f)
    };
    let expected = reference(max, stream);
    for frame in &expected {
        if let Line::Text(t) = frame {
            assert!(t.len() <= max && !t.contains('\n'));
        }
    }
    assert_eq!(decode(max, &[stream]), expected, "decoded whole");
    let chunks = chunks(stream, *chunking);
    assert_eq!(decode(max, &chunks), expected, "decoded in chunks");
}

/// What the codec must produce: the `\n`-separated segments (a last one without `\n` too),
/// each over the limit reported by length, else without one trailing `\r`, as text if UTF-8.
fn reference(max: usize, stream: &[u8]) -> Vec<Line> {
    let mut segments: Vec<&[u8]> = stream.split(|b| *b == b'\n').collect();
    if segments.last().is_some_and(|s| s.is_empty()) {
        segments.pop();
    }
    segments
        .into_iter()
        .map(|seg| {
            if seg.len() > max {
                return Line::Oversize { len: seg.len() };
            }
            let seg = seg.strip_suffix(b"\r").unwrap_or(seg);
            match std::str::from_utf8(seg) {
                Ok(s) => Line::Text(s.to_string()),
                Err(_) => Line::InvalidUtf8,
            }
        })
        .collect()
}

/// Splits `stream` into chunks of 1..=n bytes, n and the sizes drawn from `seed` (0: whole).
fn chunks(stream: &[u8], seed: u8) -> Vec<&[u8]> {
    if seed == 0 {
        return vec![stream];
    }
    let span = usize::from(seed % 64) + 1;
    let mut state = u32::from(seed) | 0x9e37_0000;
    let mut out = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let n = (state as usize % span + 1).min(rest.len());
        let (head, tail) = rest.split_at(n);
        out.push(head);
        rest = tail;
    }
    out
}

/// Feeds the chunks to one codec as a reader would, then ends the input.
fn decode(max: usize, chunks: &[&[u8]]) -> Vec<Line> {
    let mut codec = BoundedLineCodec::new(max);
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(line)) => out.push(line),
                Ok(None) => break,
                Err(e) => panic!("decode failed: {e}"),
            }
        }
        assert!(
            buf.len() <= max,
            "the codec holds {} bytes of an unfinished line over the limit {max}",
            buf.len()
        );
    }
    loop {
        match codec.decode_eof(&mut buf) {
            Ok(Some(line)) => out.push(line),
            Ok(None) => break,
            Err(e) => panic!("decode_eof failed: {e}"),
        }
    }
    assert!(buf.is_empty(), "bytes left after the end of input");
    assert!(
        matches!(codec.decode_eof(&mut buf), Ok(None)),
        "a frame after the end"
    );
    out
}
