//! Plain CDR (XCDR1, little endian), the encoding ROS 2 messages travel in
//! on DDS: primitives aligned to their size from the start of the payload
//! (after the 4-byte encapsulation header, which the DDS layer writes),
//! strings as a u32 length counting a closing NUL, sequences as a u32
//! count then the elements, fixed arrays without a count.

/// Writes one message.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) out: Vec<u8>,
}

impl Writer {
    pub(crate) fn with_capacity(n: usize) -> Writer {
        Writer {
            out: Vec::with_capacity(n),
        }
    }

    fn align(&mut self, n: usize) {
        let pad = (n - self.out.len() % n) % n;
        self.out.extend(std::iter::repeat_n(0u8, pad));
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    pub(crate) fn u16(&mut self, v: u16) {
        self.align(2);
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.align(4);
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn i32(&mut self, v: i32) {
        self.u32(v as u32);
    }

    pub(crate) fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }

    pub(crate) fn f64(&mut self, v: f64) {
        self.align(8);
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn string(&mut self, s: &str) {
        self.u32(s.len() as u32 + 1);
        self.out.extend_from_slice(s.as_bytes());
        self.out.push(0);
    }

    /// A `sequence<uint8>`'s count; the caller appends the bytes.
    pub(crate) fn byte_count(&mut self, n: usize) {
        self.u32(n as u32);
    }
}

/// Reads one message; every read is bounds-checked (a short or malformed
/// message is an error, never a panic).
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

/// Why a message could not be read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Short;

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, at: 0 }
    }

    fn take(&mut self, align: usize, n: usize) -> Result<&'a [u8], Short> {
        let start = self
            .at
            .checked_add((align - self.at % align) % align)
            .ok_or(Short)?;
        let end = start.checked_add(n).ok_or(Short)?;
        let bytes = self.data.get(start..end).ok_or(Short)?;
        self.at = end;
        Ok(bytes)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, Short> {
        Ok(self.take(1, 1)?[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, Short> {
        Ok(u32::from_le_bytes(
            self.take(4, 4)?.try_into().map_err(|_| Short)?,
        ))
    }

    pub(crate) fn i32(&mut self) -> Result<i32, Short> {
        Ok(self.u32()? as i32)
    }

    pub(crate) fn f32(&mut self) -> Result<f32, Short> {
        Ok(f32::from_bits(self.u32()?))
    }

    /// A string, skipped (its length is bounded by the message).
    pub(crate) fn skip_string(&mut self) -> Result<(), Short> {
        let n = self.u32()? as usize;
        self.take(1, n).map(|_| ())
    }

    #[cfg(test)]
    pub(crate) fn f64(&mut self) -> Result<f64, Short> {
        Ok(f64::from_le_bytes(
            self.take(8, 8)?.try_into().map_err(|_| Short)?,
        ))
    }

    /// A string, its NUL dropped.
    #[cfg(test)]
    pub(crate) fn string(&mut self) -> Result<String, Short> {
        let n = self.u32()? as usize;
        let bytes = self.take(1, n)?;
        Ok(String::from_utf8_lossy(&bytes[..n.saturating_sub(1)]).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_align_to_their_size_and_strings_count_their_nul() {
        let mut w = Writer::default();
        w.u8(1);
        w.u32(2);
        w.string("ab");
        w.f64(1.0);
        let mut expected = vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, b'a', b'b', 0, 0];
        expected.extend_from_slice(&1.0f64.to_le_bytes());
        assert_eq!(w.out, expected);
        let mut r = Reader::new(&w.out);
        assert_eq!((r.u8(), r.u32()), (Ok(1), Ok(2)));
        assert_eq!(r.skip_string(), Ok(()));
    }

    #[test]
    fn a_short_or_lying_message_is_an_error() {
        assert_eq!(Reader::new(&[1, 0]).u32(), Err(Short));
        // A string claiming 4 GiB.
        assert_eq!(Reader::new(&[0xff; 8]).skip_string(), Err(Short));
    }
}
