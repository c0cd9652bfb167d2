//! A bounded line codec: lines longer than the limit are discarded as they stream in (never
//! held whole in memory) and reported once; invalid UTF-8 is reported, not fatal.

use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;

/// 16 MiB, the transport limit of the wire contract.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// One decoded line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// A line over the limit was discarded; `len` is how many bytes it had.
    Oversize {
        len: usize,
    },
    /// A line that is not UTF-8.
    InvalidUtf8,
}

#[derive(Debug)]
pub struct BoundedLineCodec {
    max: usize,
    /// Where to resume scanning for '\n' in the buffer.
    scanned: usize,
    /// Bytes of an oversize line dropped so far; `Some` while discarding.
    discarding: Option<usize>,
}

impl BoundedLineCodec {
    pub fn new(max: usize) -> Self {
        Self {
            max,
            scanned: 0,
            discarding: None,
        }
    }
}

impl Default for BoundedLineCodec {
    fn default() -> Self {
        Self::new(MAX_LINE)
    }
}

fn finish_line(mut bytes: BytesMut) -> Line {
    if bytes.last() == Some(&b'\r') {
        bytes.truncate(bytes.len() - 1);
    }
    match String::from_utf8(bytes.to_vec()) {
        Ok(s) => Line::Text(s),
        Err(_) => Line::InvalidUtf8,
    }
}

impl Decoder for BoundedLineCodec {
    type Item = Line;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        loop {
            if let Some(dropped) = self.discarding {
                match buf.iter().position(|b| *b == b'\n') {
                    Some(pos) => {
                        let _ = buf.split_to(pos + 1);
                        self.discarding = None;
                        self.scanned = 0;
                        return Ok(Some(Line::Oversize { len: dropped + pos }));
                    }
                    None => {
                        self.discarding = Some(dropped + buf.len());
                        buf.clear();
                        return Ok(None);
                    }
                }
            }
            let start = self.scanned.min(buf.len());
            match buf[start..].iter().position(|b| *b == b'\n') {
                Some(off) => {
                    let pos = start + off;
                    self.scanned = 0;
                    if pos > self.max {
                        let _ = buf.split_to(pos + 1);
                        return Ok(Some(Line::Oversize { len: pos }));
                    }
                    let mut line = buf.split_to(pos + 1);
                    line.truncate(pos);
                    return Ok(Some(finish_line(line)));
                }
                None => {
                    if buf.len() > self.max {
                        self.discarding = Some(buf.len());
                        buf.clear();
                        self.scanned = 0;
                        continue;
                    }
                    self.scanned = buf.len();
                    return Ok(None);
                }
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        if let Some(line) = self.decode(buf)? {
            return Ok(Some(line));
        }
        if let Some(dropped) = self.discarding.take() {
            return Ok(Some(Line::Oversize { len: dropped }));
        }
        if buf.is_empty() {
            return Ok(None);
        }
        self.scanned = 0;
        let line = buf.split_to(buf.len());
        Ok(Some(finish_line(line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn decode_all(codec: &mut BoundedLineCodec, chunks: &[&[u8]]) -> Vec<Line> {
        let mut buf = BytesMut::new();
        let mut out = vec![];
        for chunk in chunks {
            buf.extend_from_slice(chunk);
            while let Some(line) = codec.decode(&mut buf).unwrap() {
                out.push(line);
            }
            assert!(
                buf.len() <= codec.max + 1,
                "buffer grew past the limit: {}",
                buf.len()
            );
        }
        while let Some(line) = codec.decode_eof(&mut buf).unwrap() {
            out.push(line);
        }
        out
    }

    #[test]
    fn splits_lines_across_chunks() {
        let mut c = BoundedLineCodec::new(10);
        let lines = decode_all(&mut c, &[b"ab", b"c\r\nde\n", b"f"]);
        assert_eq!(
            lines,
            vec![
                Line::Text("abc".into()),
                Line::Text("de".into()),
                Line::Text("f".into())
            ]
        );
    }

    #[test]
    fn oversize_line_is_discarded_without_buffering_and_next_line_survives() {
        let mut c = BoundedLineCodec::new(8);
        let lines = decode_all(&mut c, &[b"0123456789", b"abcdefghij", b"xyz\nok\n"]);
        assert_eq!(
            lines,
            vec![Line::Oversize { len: 23 }, Line::Text("ok".into())]
        );
    }

    #[test]
    fn invalid_utf8_is_reported_not_fatal() {
        let mut c = BoundedLineCodec::new(8);
        let lines = decode_all(&mut c, &[b"\xff\xfe\nok\n"]);
        assert_eq!(lines, vec![Line::InvalidUtf8, Line::Text("ok".into())]);
    }
}
