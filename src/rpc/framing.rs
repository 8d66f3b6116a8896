//! Finding where one msgpack object ends in a byte stream, before any of it
//! is decoded.
//!
//! rpclib sends requests back to back with no length prefix, so a server
//! must know when a whole object has arrived. [`Framer`] walks the bytes
//! once (it resumes where it stopped when more arrive, so a request trickled
//! in one byte at a time costs linear time), checks the nesting depth and
//! counts elements, and only then is the object handed to the decoder:
//! whatever the peer declares, the decoder sees a complete object of at most
//! `max_bytes` bytes with at most `max_elements` values in it.

use std::fmt;

/// Why a byte stream was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FrameError {
    /// The object is (or would be) larger than the bound.
    TooLarge { limit: usize },
    /// Containers nested deeper than the bound.
    TooDeep { limit: usize },
    /// More values than the bound.
    TooManyElements { limit: usize },
    /// A byte that starts no msgpack value (0xc1).
    BadMarker { at: usize, byte: u8 },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::TooLarge { limit } => {
                write!(f, "a msgpack object larger than {limit} bytes")
            }
            FrameError::TooDeep { limit } => {
                write!(f, "msgpack containers nested more than {limit} deep")
            }
            FrameError::TooManyElements { limit } => {
                write!(f, "a msgpack object with more than {limit} values")
            }
            FrameError::BadMarker { at, byte } => {
                write!(
                    f,
                    "byte 0x{byte:02x} at offset {at} starts no msgpack value"
                )
            }
        }
    }
}

/// Bounds of one object.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) max_bytes: usize,
    pub(crate) max_depth: usize,
    pub(crate) max_elements: usize,
}

/// A resumable scan of the object at the start of a buffer.
#[derive(Debug)]
pub(crate) struct Framer {
    limits: Limits,
    /// Bytes of the object accepted so far.
    pos: usize,
    /// Values still expected by each open container (innermost last).
    open: Vec<u64>,
    elements: usize,
}

/// What the value at one offset needs.
enum Item {
    /// A scalar of this many bytes (marker included).
    Scalar(usize),
    /// A container header of `header` bytes opening `values` values.
    Container { header: usize, values: u64 },
}

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

/// The item starting at `buf[0]`, or `None` if its header is incomplete.
fn item(buf: &[u8], at: usize) -> Result<Option<Item>, FrameError> {
    let Some(&m) = buf.first() else {
        return Ok(None);
    };
    // Length-prefixed scalars: (prefix bytes, extra fixed bytes).
    let prefixed = |n: usize, extra: usize| -> Option<Item> {
        let len = be(buf.get(1..1 + n)?);
        Some(Item::Scalar(1 + n + extra + len as usize))
    };
    let container = |n: usize, per: u64| -> Option<Item> {
        let len = be(buf.get(1..1 + n)?);
        Some(Item::Container {
            header: 1 + n,
            values: len * per,
        })
    };
    Ok(match m {
        0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => Some(Item::Scalar(1)),
        0x80..=0x8f => Some(Item::Container {
            header: 1,
            values: u64::from(m & 0x0f) * 2,
        }),
        0x90..=0x9f => Some(Item::Container {
            header: 1,
            values: u64::from(m & 0x0f),
        }),
        0xa0..=0xbf => Some(Item::Scalar(1 + usize::from(m & 0x1f))),
        0xc1 => return Err(FrameError::BadMarker { at, byte: m }),
        0xc4 | 0xd9 => prefixed(1, 0),
        0xc5 | 0xda => prefixed(2, 0),
        0xc6 | 0xdb => prefixed(4, 0),
        0xc7 => prefixed(1, 1),
        0xc8 => prefixed(2, 1),
        0xc9 => prefixed(4, 1),
        0xca => Some(Item::Scalar(5)),
        0xcb => Some(Item::Scalar(9)),
        0xcc | 0xd0 => Some(Item::Scalar(2)),
        0xcd | 0xd1 => Some(Item::Scalar(3)),
        0xce | 0xd2 => Some(Item::Scalar(5)),
        0xcf | 0xd3 => Some(Item::Scalar(9)),
        0xd4 => Some(Item::Scalar(3)),
        0xd5 => Some(Item::Scalar(4)),
        0xd6 => Some(Item::Scalar(6)),
        0xd7 => Some(Item::Scalar(10)),
        0xd8 => Some(Item::Scalar(18)),
        0xdc => container(2, 1),
        0xdd => container(4, 1),
        0xde => container(2, 2),
        0xdf => container(4, 2),
    })
}

impl Framer {
    pub(crate) fn new(limits: Limits) -> Framer {
        Framer {
            limits,
            pos: 0,
            open: Vec::new(),
            elements: 0,
        }
    }

    /// Continues the scan over `buf` (the same buffer as before, maybe
    /// longer). `Ok(Some(n))`: the first `n` bytes are one whole object, and
    /// the framer is reset for the next one; `Ok(None)`: more bytes needed.
    pub(crate) fn advance(&mut self, buf: &[u8]) -> Result<Option<usize>, FrameError> {
        let l = self.limits;
        loop {
            let rest = &buf[self.pos.min(buf.len())..];
            let Some(found) = item(rest, self.pos)? else {
                return self.need(buf.len());
            };
            self.elements += 1;
            if self.elements > l.max_elements {
                return Err(FrameError::TooManyElements {
                    limit: l.max_elements,
                });
            }
            let size = match found {
                Item::Scalar(n) => n,
                Item::Container { header, .. } => header,
            };
            if self.pos.saturating_add(size) > l.max_bytes {
                return Err(FrameError::TooLarge { limit: l.max_bytes });
            }
            if let Item::Container { values, .. } = found {
                // Each declared value is one more value and at least one
                // more byte: a header declaring too many is refused at once.
                let values = usize::try_from(values).unwrap_or(usize::MAX);
                if self.elements.saturating_add(values) > l.max_elements {
                    return Err(FrameError::TooManyElements {
                        limit: l.max_elements,
                    });
                }
                if self.pos.saturating_add(size).saturating_add(values) > l.max_bytes {
                    return Err(FrameError::TooLarge { limit: l.max_bytes });
                }
            }
            if rest.len() < size {
                self.elements -= 1;
                return self.need(buf.len());
            }
            self.pos += size;
            if let Item::Container { values, .. } = found {
                if values > 0 {
                    if self.open.len() >= l.max_depth {
                        return Err(FrameError::TooDeep { limit: l.max_depth });
                    }
                    self.open.push(values);
                    continue;
                }
            }
            // One value complete: close every container it completes.
            loop {
                match self.open.last_mut() {
                    None => {
                        let n = self.pos;
                        (self.pos, self.elements) = (0, 0);
                        return Ok(Some(n));
                    }
                    Some(left) => {
                        *left -= 1;
                        if *left > 0 {
                            break;
                        }
                        self.open.pop();
                    }
                }
            }
        }
    }

    /// Gives up the object being scanned after [`FrameError::TooLarge`]:
    /// where its offending value starts (the bytes before it are the
    /// object's head, already in the buffer) and a [`Skipper`] that reads
    /// the rest of it from there without keeping it, refusing the object
    /// if it is (or declares to be) longer than `most` bytes in all. The
    /// framer is reset for the object after.
    pub(crate) fn give_up(&mut self, most: u64) -> (usize, Skipper) {
        let at = self.pos;
        let skipper = Skipper {
            open: std::mem::take(&mut self.open),
            skip: 0,
            max_depth: self.limits.max_depth,
            budget: most.saturating_sub(at as u64),
            most,
        };
        (self.pos, self.elements) = (0, 0);
        (at, skipper)
    }

    fn need(&self, have: usize) -> Result<Option<usize>, FrameError> {
        if have > self.limits.max_bytes {
            return Err(FrameError::TooLarge {
                limit: self.limits.max_bytes,
            });
        }
        Ok(None)
    }
}

/// Walks the rest of an object too large to keep, dropping its bytes as
/// they come: it holds only the open containers' counts (at most
/// `max_depth`) and the bytes left of the value being dropped, whatever
/// the object declares. A value that declares more bytes than the
/// object's budget has left is refused from its header.
#[derive(Debug)]
pub(crate) struct Skipper {
    open: Vec<u64>,
    /// Bytes of the current value still to drop.
    skip: u64,
    max_depth: usize,
    /// Bytes the object may still have, of `most` in all.
    budget: u64,
    most: u64,
}

impl Skipper {
    /// Drops what of the object `buf` holds: `(n, done)`, the first `n`
    /// bytes are the object's (done: its last byte is the `n`th). Bytes
    /// after `n` when not done are a value's header cut short: keep them
    /// and call again with more.
    pub(crate) fn advance(&mut self, buf: &[u8]) -> Result<(usize, bool), FrameError> {
        let mut at = 0;
        loop {
            if self.skip > 0 {
                let n = self.skip.min((buf.len() - at) as u64);
                at += n as usize;
                self.skip -= n;
                self.budget -= n;
                if self.skip > 0 {
                    return Ok((at, false));
                }
                if self.close_value() {
                    return Ok((at, true));
                }
                continue;
            }
            let too_large = FrameError::TooLarge {
                limit: usize::try_from(self.most).unwrap_or(usize::MAX),
            };
            match item(&buf[at..], at)? {
                None => return Ok((at, false)),
                Some(Item::Scalar(n)) => {
                    // Checked here, before any of it is read.
                    if n as u64 > self.budget {
                        return Err(too_large);
                    }
                    self.skip = n as u64;
                }
                Some(Item::Container { header, values }) => {
                    // Each declared value is at least one byte more.
                    if (header as u64).saturating_add(values) > self.budget {
                        return Err(too_large);
                    }
                    at += header;
                    self.budget -= header as u64;
                    if values > 0 {
                        if self.open.len() >= self.max_depth {
                            return Err(FrameError::TooDeep {
                                limit: self.max_depth,
                            });
                        }
                        self.open.push(values);
                    } else if self.close_value() {
                        return Ok((at, true));
                    }
                }
            }
        }
    }

    /// One value ended: closes the containers it completes; true when the
    /// object itself did.
    fn close_value(&mut self) -> bool {
        loop {
            match self.open.last_mut() {
                None => return true,
                Some(left) => {
                    *left -= 1;
                    if *left > 0 {
                        return false;
                    }
                    self.open.pop();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::hex;

    const LIMITS: Limits = Limits {
        max_bytes: 1 << 20,
        max_depth: 16,
        max_elements: 10_000,
    };

    fn whole(bytes: &[u8]) -> Result<Option<usize>, FrameError> {
        Framer::new(LIMITS).advance(bytes)
    }

    #[test]
    fn finds_the_end_of_the_clients_version_request() {
        let req = hex("94 00 01 a7 76 65 72 73 69 6f 6e 91 91 c2");
        assert_eq!(whole(&req), Ok(Some(req.len())));
        let mut two = req.clone();
        two.extend_from_slice(&req);
        assert_eq!(whole(&two), Ok(Some(req.len())));
        for cut in 0..req.len() {
            assert_eq!(whole(&req[..cut]), Ok(None), "cut at {cut}");
        }
    }

    #[test]
    fn resumes_byte_by_byte() {
        let mut v = Vec::new();
        let value = rmpv::Value::Array(vec![
            0.into(),
            7.into(),
            "spawn_actor".into(),
            rmpv::Value::Array(vec![rmpv::Value::Binary(vec![1; 300]), 1.5f32.into()]),
        ]);
        rmpv::encode::write_value(&mut v, &value).unwrap();
        let mut f = Framer::new(LIMITS);
        for n in 1..v.len() {
            assert_eq!(f.advance(&v[..n]), Ok(None), "{n}");
        }
        assert_eq!(f.advance(&v), Ok(Some(v.len())));
    }

    #[test]
    fn refuses_what_breaks_a_bound() {
        // A bin32 declaring 4 GiB: refused from its 5-byte header.
        let huge = hex("c6 ff ff ff ff");
        assert_eq!(whole(&huge), Err(FrameError::TooLarge { limit: 1 << 20 }));
        // An array32 declaring 4 G nils: refused from its header too.
        let limit = LIMITS.max_elements;
        let many = hex("dd ff ff ff ff");
        assert_eq!(whole(&many), Err(FrameError::TooManyElements { limit }));
        let map = hex("92 01 df 80 00 00 00");
        assert_eq!(whole(&map), Err(FrameError::TooManyElements { limit }));
        // Declared values within the count bound but not the byte bound.
        let wide = Limits {
            max_elements: usize::MAX,
            ..LIMITS
        };
        let bytes = hex("dd 00 10 00 00");
        let too_large = Err(FrameError::TooLarge { limit: 1 << 20 });
        assert_eq!(Framer::new(wide).advance(&bytes), too_large);
        // The header check is exact: 9 999 values and their array are
        // 10 000; an array inside another counts with it.
        assert_eq!(whole(&hex("dc 27 0f")), Ok(None));
        assert_eq!(
            whole(&hex("dc 27 10")),
            Err(FrameError::TooManyElements { limit })
        );
        let mut nested = hex("92 dc 27 0e");
        nested.extend(std::iter::repeat_n(0xc0, 9_998));
        assert_eq!(whole(&nested), Ok(None));
        nested.push(0x91);
        assert_eq!(whole(&nested), Err(FrameError::TooManyElements { limit }));
        let deep = vec![0x91; 100];
        assert_eq!(whole(&deep), Err(FrameError::TooDeep { limit: 16 }));
        let bad = hex("93 01 c1 02");
        assert_eq!(
            whole(&bad),
            Err(FrameError::BadMarker { at: 2, byte: 0xc1 })
        );
        // Many small objects are fine one at a time.
        let small = Limits {
            max_bytes: 8,
            ..LIMITS
        };
        let mut f = Framer::new(small);
        let stream = hex("93 01 02 03 93 04 05 06");
        assert_eq!(f.advance(&stream), Ok(Some(4)));
        assert_eq!(f.advance(&stream[4..]), Ok(Some(4)));
        let big = hex("99 01 02 03 04 05 06 07 08 09");
        assert_eq!(
            Framer::new(small).advance(&big),
            Err(FrameError::TooLarge { limit: 8 })
        );
    }

    /// A skipper at the start of a value inside containers with `open`
    /// values left, `budget` of its `most` bytes left and at most 16 levels.
    fn new_skipper(open: &[u64], budget: u64, most: u64) -> Skipper {
        Skipper {
            open: open.to_vec(),
            skip: 0,
            max_depth: 16,
            budget,
            most,
        }
    }

    /// Drops an object fed in pieces of `step` bytes, keeping only what
    /// `advance` leaves (a cut header); returns the bytes it took and the
    /// most it ever kept.
    fn skip_all(skipper: &mut Skipper, bytes: &[u8], step: usize) -> (usize, usize) {
        let (mut kept, mut taken, mut most) = (Vec::new(), 0, 0);
        for piece in bytes.chunks(step) {
            kept.extend_from_slice(piece);
            let (n, done) = skipper.advance(&kept).unwrap();
            taken += n;
            kept.drain(..n);
            if done {
                return (taken, most);
            }
            most = most.max(kept.len());
        }
        panic!("the object never ended ({taken} bytes taken)");
    }

    #[test]
    fn an_object_too_large_is_skipped_to_its_end_without_keeping_it() {
        // [0, 7, "copy_opendrive_to_file", [[false], <2 MiB str>, [1.0, true]]]
        // and then the next request.
        let big = "x".repeat(2 << 20);
        let value = rmpv::Value::Array(vec![
            0.into(),
            7.into(),
            "copy_opendrive_to_file".into(),
            rmpv::Value::Array(vec![
                rmpv::Value::Array(vec![false.into()]),
                big.as_str().into(),
                rmpv::Value::Array(vec![1.0f64.into(), true.into()]),
            ]),
        ]);
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &value).unwrap();
        let object = bytes.len();
        bytes.extend_from_slice(&hex("94 00 08 a7 76 65 72 73 69 6f 6e 91 91 c2"));
        let mut f = Framer::new(LIMITS);
        // The str32 header declares more than the 1 MiB bound: refused at
        // once, before its bytes are there.
        let head = 1 + 1 + 1 + 1 + 22 + 1 + 2;
        assert_eq!(
            f.advance(&bytes[..head + 5]),
            Err(FrameError::TooLarge { limit: 1 << 20 })
        );
        let (at, mut skipper) = f.give_up(1 << 30);
        assert_eq!(at, head, "the head ends where the text starts");
        for step in [1, 3, 7, 4096, 65536] {
            let mut s = new_skipper(&skipper.open, skipper.budget, skipper.most);
            let (taken, most) = skip_all(&mut s, &bytes[at..], step);
            assert_eq!(at + taken, object, "step {step}");
            assert!(most < 10, "kept {most} bytes (step {step})");
        }
        let (taken, _) = skip_all(&mut skipper, &bytes[at..], 1000);
        // The framer goes on with the next request.
        assert_eq!(
            f.advance(&bytes[at + taken..]),
            Ok(Some(bytes.len() - object))
        );
    }

    #[test]
    fn a_skipped_object_of_many_values_or_too_deep() {
        // An array32 declaring 2 M nils: over the byte bound from its header.
        let wide = Limits {
            max_elements: usize::MAX,
            ..LIMITS
        };
        let mut bytes = hex("92 01 dd 00 20 00 00");
        bytes.extend(std::iter::repeat_n(0xc0, 2 << 20));
        bytes.push(0x07);
        let mut f = Framer::new(wide);
        assert_eq!(
            f.advance(&bytes),
            Err(FrameError::TooLarge { limit: 1 << 20 })
        );
        let (at, mut skipper) = f.give_up(1 << 30);
        assert_eq!(at, 2);
        assert_eq!(skipper.advance(&bytes[at..]), Ok((bytes.len() - 3, true)));
        // With a budget of 2 MiB, the same array is refused from its
        // header: its 2 Mi values and the 7 bytes before them are more.
        let mut f = Framer::new(wide);
        assert!(f.advance(&bytes).is_err());
        let (at, mut skipper) = f.give_up(2 << 20);
        let limit = 2 << 20;
        assert_eq!(
            skipper.advance(&bytes[at..at + 5]),
            Err(FrameError::TooLarge { limit })
        );
        // A str32 declaring 4 GiB, refused from its 5-byte header.
        let mut s = new_skipper(&[1], 1 << 30, 1 << 30);
        assert_eq!(
            s.advance(&hex("db ff ff ff ff")),
            Err(FrameError::TooLarge { limit: 1 << 30 })
        );
        // Exactly the budget is fine; one byte more is not.
        let mut s = new_skipper(&[1], 6, 6);
        assert_eq!(s.advance(&hex("a5 01 02 03 04 05")), Ok((6, true)));
        let mut s = new_skipper(&[2], 6, 6);
        assert_eq!(s.advance(&hex("a5 01 02 03 04 05")), Ok((6, false)));
        assert_eq!(
            s.advance(&hex("c0")),
            Err(FrameError::TooLarge { limit: 6 })
        );
        // Nesting past the bound while skipping is refused.
        let mut s = new_skipper(&[1], 1 << 20, 1 << 20);
        assert_eq!(
            s.advance(&[0x91; 40]),
            Err(FrameError::TooDeep { limit: 16 })
        );
        let mut s = new_skipper(&[2], 1 << 20, 1 << 20);
        assert!(matches!(
            s.advance(&[0x01, 0xc1]),
            Err(FrameError::BadMarker { byte: 0xc1, .. })
        ));
    }

    #[test]
    fn maps_and_ext_types_are_walked() {
        // {1: "a", 2: [ext8 len 2]} then a trailing byte.
        let v = hex("82 01 a1 61 02 91 c7 02 05 aa bb 07");
        assert_eq!(whole(&v), Ok(Some(v.len() - 1)));
        let empty = hex("90");
        assert_eq!(whole(&empty), Ok(Some(1)));
    }
}
