//! Reading a transcript for the session list without reading it whole: its head (the first
//! line says whether it is a sidechain; the first entries hold the cwd and the first prompt)
//! and its tail (the CLI appends titles and the last prompt, and appends them again at the
//! end of a session, so a tail read finds the latest ones).

use serde_json::Value;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Bytes of the head read in any case.
pub const HEAD_BYTES: u64 = 64 * 1024;
/// The head is read further, up to this, while it holds no prompt yet (a first prompt with a
/// pasted image can be a long line).
pub const HEAD_MAX_BYTES: u64 = 1024 * 1024;
/// Bytes of the tail.
pub const TAIL_BYTES: u64 = 64 * 1024;

/// The entries of a transcript's head and tail (each entry once, in file order).
#[derive(Debug, Default)]
pub struct Peek {
    pub head: Vec<Value>,
    pub tail: Vec<Value>,
    /// Bytes read from the file.
    pub bytes_read: u64,
}

/// Reads the head of `path` (at least [`HEAD_BYTES`], on to [`HEAD_MAX_BYTES`] until an
/// entry satisfies `enough`) and its last [`TAIL_BYTES`]. Lines that are not JSON (cut
/// ones, garbage, invalid UTF-8) are skipped.
pub fn peek(path: &Path, enough: impl Fn(&Value) -> bool) -> io::Result<Peek> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut out = Peek::default();
    let mut head = BufReader::new((&mut file).take(HEAD_MAX_BYTES));
    let mut line = Vec::new();
    let mut satisfied = false;
    let mut offset = 0u64;
    loop {
        line.clear();
        let n = head.read_until(b'\n', &mut line)? as u64;
        if n == 0 {
            break;
        }
        let whole = line.last() == Some(&b'\n') || offset + n == len;
        if !whole {
            // Cut by the head limit: the tail read may still cover it.
            break;
        }
        offset += n;
        if let Ok(entry) = serde_json::from_slice::<Value>(&line) {
            satisfied = satisfied || enough(&entry);
            out.head.push(entry);
        }
        if offset >= HEAD_BYTES && satisfied {
            break;
        }
    }
    drop(head);
    out.bytes_read = offset;
    if offset >= len {
        return Ok(out);
    }
    let start = offset.max(len.saturating_sub(TAIL_BYTES));
    file.seek(SeekFrom::Start(start))?;
    let mut rest = Vec::new();
    file.take(len - start).read_to_end(&mut rest)?;
    out.bytes_read += rest.len() as u64;
    let mut lines = rest.split(|b| *b == b'\n');
    if start > offset {
        // The first line is the end of one that starts before the tail.
        lines.next();
    }
    out.tail = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use std::io::Write;

    fn write_lines(path: &Path, lines: &[Value], filler_lines: usize) {
        let mut f = File::create(path).expect("create");
        let filler = format!(
            "{}\n",
            json!({"type": "assistant", "text": "z".repeat(1000)})
        );
        for (i, l) in lines.iter().enumerate() {
            writeln!(f, "{l}").expect("write");
            if i == 0 {
                for _ in 0..filler_lines {
                    f.write_all(filler.as_bytes()).expect("write");
                }
            }
        }
    }

    #[test]
    fn a_small_file_is_read_once_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        write_lines(&path, &[json!({"n": 1}), json!({"n": 2})], 0);
        let p = peek(&path, |_| true).expect("peek");
        assert_eq!(p.head, vec![json!({"n": 1}), json!({"n": 2})]);
        assert!(p.tail.is_empty());
        assert_eq!(p.bytes_read, std::fs::metadata(&path).expect("stat").len());
    }

    #[test]
    fn a_large_file_is_read_at_both_ends_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("l.jsonl");
        // ~10 MB between the first and the last entry.
        write_lines(
            &path,
            &[json!({"first": true}), json!({"last": true})],
            10_000,
        );
        let p = peek(&path, |e| e.get("first").is_some()).expect("peek");
        assert_eq!(p.head.first(), Some(&json!({"first": true})));
        assert_eq!(p.tail.last(), Some(&json!({"last": true})));
        assert!(
            p.bytes_read <= HEAD_BYTES + 2048 + TAIL_BYTES,
            "read {} bytes",
            p.bytes_read
        );
        // Every tail entry is whole (the cut first line is dropped).
        assert!(p
            .tail
            .iter()
            .all(|e| e.get("type").is_some() || e.get("last").is_some()));
    }

    #[test]
    fn the_head_goes_on_until_enough_but_not_past_its_maximum() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("h.jsonl");
        write_lines(&path, &[json!({"start": 1}), json!({"late": true})], 200);
        let p = peek(&path, |e| e.get("late").is_some()).expect("peek");
        assert_eq!(
            p.head.last(),
            Some(&json!({"late": true})),
            "found past 64 KB"
        );
        let never = peek(&path, |_| false).expect("peek");
        assert!(never.bytes_read <= HEAD_MAX_BYTES + TAIL_BYTES);
        assert!(std::fs::metadata(&path).expect("stat").len() < HEAD_MAX_BYTES);
        assert_eq!(
            never.head.len(),
            202,
            "a file under the maximum is read whole"
        );
    }
}
