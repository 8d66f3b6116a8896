//! Target `rpc`: the 0.9 RPC port's reading of a byte stream
//! (`crate::rpc::Framer`, then `crate::rpc::parse_request` on each object
//! it delimits), fed the way `endpoint::serve_requests` feeds it.
//!
//! Input: one byte of flags (bit 0: the endpoint's limits, or tiny ones that
//! the fuzzer can break), two chunk sizes `a` and `b` (the stream arrives in
//! chunks of `a`, `b`, `a`, ... bytes; 0 means "everything left"), then the
//! bytes the client sends. Invariants:
//!
//! - every framed length is at least 1, at most what is buffered and at most
//!   the byte bound, and the framer never asks to buffer more than the byte
//!   bound of one object;
//! - the framing does not depend on how the bytes were split: chunk by
//!   chunk gives the same objects and the same end as all at once;
//! - each framed object is exactly one msgpack value for the decoder (it
//!   decodes, at the endpoint's depth, and uses every framed byte), and
//!   `parse_request` never panics on it; an unfinished tail is not a whole
//!   value for the decoder either;
//! - a request that parses has a method and its arguments, nothing made up.

use super::Input;
use crate::rpc::{parse_request, FrameError, Framer, Limits, DECODE_DEPTH, LIMITS};

/// Bounds a fuzzer can reach with a few hundred bytes.
const TINY: Limits = Limits {
    max_bytes: 64,
    max_depth: 4,
    max_elements: 16,
};

/// How a stream ended.
#[derive(Debug, PartialEq)]
enum End {
    /// Every byte was in whole objects.
    Clean,
    /// The last object was unfinished (`n` bytes of it buffered).
    Partial(usize),
    /// The framer refused the stream (the endpoint closes the connection).
    Refused(FrameError),
}

pub fn rpc_stream(data: &[u8]) {
    let mut input = Input::new(data);
    let flags = input.u8();
    let limits = if flags & 1 == 0 { LIMITS } else { TINY };
    let sizes = [usize::from(input.u8()), usize::from(input.u8())];
    let stream = input.rest();

    let (whole, whole_end) = frame_whole(stream, limits);
    let (chunked, chunked_end) = frame_chunked(stream, limits, sizes);
    assert_eq!(chunked, whole, "objects depend on the chunking");
    assert_eq!(chunked_end, whole_end, "the end depends on the chunking");

    let mut at = 0;
    for &n in &whole {
        check_object(&stream[at..at + n]);
        at += n;
    }
    if let End::Partial(n) = whole_end {
        assert_eq!(at + n, stream.len());
        let mut tail = &stream[at..];
        assert!(
            rmpv::decode::read_value(&mut tail).is_err(),
            "the framer waits for more, but the decoder finds a whole value in {:02x?}",
            &stream[at..]
        );
    }
}

/// All the stream in one buffer, as a client that sent it at once.
fn frame_whole(stream: &[u8], limits: Limits) -> (Vec<usize>, End) {
    let mut framer = Framer::new(limits);
    let mut objects = Vec::new();
    let mut start = 0;
    loop {
        let rest = &stream[start..];
        match framer.advance(rest) {
            Ok(Some(n)) => {
                check_length(n, rest.len(), limits);
                objects.push(n);
                start += n;
            }
            Ok(None) => {
                assert!(rest.len() <= limits.max_bytes, "buffers past the bound");
                let end = if rest.is_empty() {
                    End::Clean
                } else {
                    End::Partial(rest.len())
                };
                return (objects, end);
            }
            Err(e) => return (objects, End::Refused(e)),
        }
    }
}

/// The endpoint's loop: append a chunk, take every whole object, drop
/// their bytes, read the next chunk.
fn frame_chunked(stream: &[u8], limits: Limits, sizes: [usize; 2]) -> (Vec<usize>, End) {
    let mut framer = Framer::new(limits);
    let mut objects = Vec::new();
    let mut buf: Vec<u8> = Vec::new();
    let mut left = stream;
    for k in 0.. {
        let mut start = 0;
        loop {
            let rest = &buf[start..];
            match framer.advance(rest) {
                Ok(Some(n)) => {
                    check_length(n, rest.len(), limits);
                    objects.push(n);
                    start += n;
                }
                Ok(None) => break,
                Err(e) => return (objects, End::Refused(e)),
            }
        }
        buf.drain(..start);
        assert!(buf.len() <= limits.max_bytes, "buffers past the bound");
        if left.is_empty() {
            break;
        }
        let size = match sizes[k % 2] {
            0 => left.len(),
            n => n.min(left.len()),
        };
        let (chunk, tail) = left.split_at(size);
        buf.extend_from_slice(chunk);
        left = tail;
    }
    let end = if buf.is_empty() {
        End::Clean
    } else {
        End::Partial(buf.len())
    };
    (objects, end)
}

fn check_length(n: usize, buffered: usize, limits: Limits) {
    assert!(n >= 1, "an empty object");
    assert!(n <= buffered, "framed {n} bytes of {buffered} buffered");
    assert!(n <= limits.max_bytes, "framed {n} bytes past the bound");
}

/// One framed object: a single whole msgpack value, and a request or a
/// clear refusal.
fn check_object(bytes: &[u8]) {
    let mut rest = bytes;
    let decoded = rmpv::decode::read_value_with_max_depth(&mut rest, DECODE_DEPTH);
    if let Err(e) = &decoded {
        panic!("the framer delimits {bytes:02x?}, which the endpoint's decoder refuses: {e}");
    }
    assert!(
        rest.is_empty(),
        "the framer delimits {} bytes, the decoder uses {}",
        bytes.len(),
        bytes.len() - rest.len()
    );
    match parse_request(bytes) {
        Ok(req) => {
            // The arguments came from the request's params array.
            let value = decoded.expect("decoded above");
            let fields = value.as_array().expect("a request is an array");
            let params = fields.last().and_then(|p| p.as_array());
            let params = params.expect("a request ends with its params");
            assert!(req.args.len() <= params.len());
            // Compared as msgpack: a NaN is not equal to itself as a value.
            let tail = &params[params.len() - req.args.len()..];
            assert_eq!(encoded(&req.args), encoded(tail));
            assert_eq!(fields[fields.len() - 2].as_str(), Some(&req.method[..]));
            assert_eq!(req.msgid.is_some(), fields.len() == 4);
        }
        Err(e) => assert!(e.to_string().contains("connection closed"), "{e}"),
    }
}

fn encoded(values: &[rmpv::Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        rmpv::encode::write_value(&mut out, v).expect("encoding into a vector");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::hex;

    const VERSION: &str = "94 00 01 a7 76 65 72 73 69 6f 6e 91 91 c2";

    fn input(flags: u8, a: u8, b: u8, stream: &[u8]) -> Vec<u8> {
        [&[flags, a, b][..], stream].concat()
    }

    #[test]
    fn frames_the_same_however_the_stream_is_split() {
        let req = hex(VERSION);
        let two = [&req[..], &req[..], &req[..5]].concat();
        let (objects, end) = frame_whole(&two, LIMITS);
        assert_eq!(objects, [req.len(), req.len()]);
        assert_eq!(end, End::Partial(5));
        for (a, b) in [(1, 1), (3, 7), (0, 0), (14, 1)] {
            assert_eq!(
                frame_chunked(&two, LIMITS, [a, b]),
                (objects.clone(), End::Partial(5))
            );
            rpc_stream(&input(0, a as u8, b as u8, &two));
        }
    }

    #[test]
    fn parses_the_clients_version_request() {
        let req = parse_request(&hex(VERSION)).unwrap();
        assert_eq!(
            (req.msgid, &req.method[..], req.is_async),
            (Some(1), "version", false)
        );
        assert!(req.args.is_empty());
        check_object(&hex(VERSION));
    }

    #[test]
    fn the_decoder_takes_what_the_framer_takes() {
        // The request and its params, then arrays down to the framer's
        // bound, then a string (what costs the decoder most).
        let head = hex("94 00 01 a7 76 65 72 73 69 6f 6e 92 91 c2");
        let deep = |levels| [&head[..], &vec![0x91; levels], &hex("a1 78")].concat();
        let bytes = deep(LIMITS.max_depth - 2);
        assert_eq!(Framer::new(LIMITS).advance(&bytes), Ok(Some(bytes.len())));
        check_object(&bytes);
        assert_eq!(parse_request(&bytes).unwrap().args.len(), 1);
        let limit = LIMITS.max_depth;
        let too_deep = Framer::new(LIMITS).advance(&deep(LIMITS.max_depth - 1));
        assert_eq!(too_deep, Err(FrameError::TooDeep { limit }));
    }

    #[test]
    fn tiny_limits_refuse() {
        let (objects, end) = frame_whole(&[0x91; 10], TINY);
        assert!(objects.is_empty());
        assert_eq!(end, End::Refused(FrameError::TooDeep { limit: 4 }));
        rpc_stream(&input(1, 2, 0, &[0x91; 10]));
        rpc_stream(&input(1, 0, 0, &hex("c6 ff ff ff ff")));
    }
}
