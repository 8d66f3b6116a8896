//! A minimal MessagePack writer for the msgpack-encoded sensor payloads
//! (GNSS, IMU, collision, obstacle). Every function appends to a `Vec<u8>`
//! and never allocates when the vector already has the capacity.
//!
//! Encodings follow the MessagePack specification, as msgpack-c (the copy
//! bundled with rpclib that LibCarla uses) writes them: multi-byte numbers
//! are **big-endian**, unsigned integers use the smallest encoding, strings
//! use fixstr/str8/str16/str32 and byte vectors use bin8/bin16/bin32.
//!
//! Lengths above `u32::MAX` cannot be represented in MessagePack; the
//! functions taking a length panic in that case (a CARLA message is limited
//! to 4 GiB anyway, so this cannot happen for a sendable payload).

/// Appends an array header for `len` elements (fixarray, array16, array32).
///
/// # Panics
/// If `len > u32::MAX`.
pub(crate) fn write_array_len(out: &mut Vec<u8>, len: usize) {
    if len < 16 {
        out.push(0x90 | len as u8);
    } else {
        write_len(out, len, None, 0xdc, 0xdd);
    }
}

/// Appends an unsigned integer in its smallest encoding: positive fixint
/// (0..=127), uint8 (0xcc), uint16 (0xcd), uint32 (0xce), uint64 (0xcf).
pub(crate) fn write_uint(out: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        out.push(v as u8);
    } else if v <= 0xff {
        out.extend_from_slice(&[0xcc, v as u8]);
    } else if v <= 0xffff {
        out.push(0xcd);
        out.extend_from_slice(&(v as u16).to_be_bytes());
    } else if v <= 0xffff_ffff {
        out.push(0xce);
        out.extend_from_slice(&(v as u32).to_be_bytes());
    } else {
        out.push(0xcf);
        out.extend_from_slice(&v.to_be_bytes());
    }
}

/// Appends a float32 (0xca + 4 bytes big-endian), how msgpack-c writes a C++
/// `float`.
pub(crate) fn write_f32(out: &mut Vec<u8>, v: f32) {
    out.push(0xca);
    out.extend_from_slice(&v.to_be_bytes());
}

/// Appends a float64 (0xcb + 8 bytes big-endian), how msgpack-c writes a C++
/// `double`.
pub(crate) fn write_f64(out: &mut Vec<u8>, v: f64) {
    out.push(0xcb);
    out.extend_from_slice(&v.to_be_bytes());
}

/// Appends the header of a string of `len` bytes (fixstr, str8, str16,
/// str32); the caller appends the UTF-8 bytes.
///
/// # Panics
/// If `len > u32::MAX`.
pub(crate) fn write_str_header(out: &mut Vec<u8>, len: usize) {
    if len < 32 {
        out.push(0xa0 | len as u8);
    } else {
        write_len(out, len, Some(0xd9), 0xda, 0xdb);
    }
}

/// Appends a string.
///
/// # Panics
/// If `s.len() > u32::MAX`.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    write_str_header(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// Appends the header of a binary blob of `len` bytes (bin8, bin16, bin32).
///
/// # Panics
/// If `len > u32::MAX`.
pub(crate) fn write_bin_header(out: &mut Vec<u8>, len: usize) {
    write_len(out, len, Some(0xc4), 0xc5, 0xc6);
}

/// Appends a binary blob.
///
/// # Panics
/// If `bytes.len() > u32::MAX`.
pub(crate) fn write_bin(out: &mut Vec<u8>, bytes: &[u8]) {
    write_bin_header(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// Length prefix with an optional 8-bit form, then 16- and 32-bit forms.
fn write_len(out: &mut Vec<u8>, len: usize, m8: Option<u8>, m16: u8, m32: u8) {
    match (m8, len) {
        (Some(m), 0..=0xff) => out.extend_from_slice(&[m, len as u8]),
        (_, 0..=0xffff) => {
            out.push(m16);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ => {
            let len = u32::try_from(len).expect("MessagePack length exceeds u32::MAX");
            out.push(m32);
            out.extend_from_slice(&len.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = vec![0xee]; // appending keeps what was there
        f(&mut out);
        assert_eq!(out[0], 0xee);
        out.remove(0);
        out
    }

    #[test]
    fn scalars() {
        // 1.0f32 = 0x3f80_0000, -2.5f32 = 0xc020_0000; 1.0f64 = 0x3ff0...
        assert_eq!(with(|o| write_f32(o, 1.0)), [0xca, 0x3f, 0x80, 0, 0]);
        assert_eq!(with(|o| write_f32(o, -2.5)), [0xca, 0xc0, 0x20, 0, 0]);
        assert_eq!(
            with(|o| write_f64(o, 1.0)),
            [0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn unsigned_boundaries() {
        let cases: [(u64, &[u8]); 11] = [
            (0, &[0x00]),
            (127, &[0x7f]),
            (128, &[0xcc, 0x80]),
            (255, &[0xcc, 0xff]),
            (256, &[0xcd, 0x01, 0x00]),
            (65535, &[0xcd, 0xff, 0xff]),
            (65536, &[0xce, 0x00, 0x01, 0x00, 0x00]),
            (0xffff_ffff, &[0xce, 0xff, 0xff, 0xff, 0xff]),
            (0x1_0000_0000, &[0xcf, 0, 0, 0, 1, 0, 0, 0, 0]),
            (0x0102_0304_0506_0708, &[0xcf, 1, 2, 3, 4, 5, 6, 7, 8]),
            (
                u64::MAX,
                &[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            ),
        ];
        for (v, expected) in cases {
            assert_eq!(with(|o| write_uint(o, v)), expected, "{v}");
        }
    }

    #[test]
    fn array_headers() {
        assert_eq!(with(|o| write_array_len(o, 0)), [0x90]);
        assert_eq!(with(|o| write_array_len(o, 3)), [0x93]);
        assert_eq!(with(|o| write_array_len(o, 15)), [0x9f]);
        assert_eq!(with(|o| write_array_len(o, 16)), [0xdc, 0x00, 0x10]);
        assert_eq!(with(|o| write_array_len(o, 65535)), [0xdc, 0xff, 0xff]);
        assert_eq!(
            with(|o| write_array_len(o, 65536)),
            [0xdd, 0x00, 0x01, 0x00, 0x00]
        );
    }

    #[test]
    fn strings() {
        assert_eq!(with(|o| write_str(o, "")), [0xa0]);
        assert_eq!(with(|o| write_str(o, "ab")), [0xa2, b'a', b'b']);
        let s31 = "x".repeat(31);
        let out = with(|o| write_str(o, &s31));
        assert_eq!((out.len(), out[0], out[1]), (32, 0xbf, b'x'));
        let s32 = "y".repeat(32);
        let out = with(|o| write_str(o, &s32));
        assert_eq!((out.len(), &out[..3]), (34, &[0xd9, 0x20, b'y'][..]));
        let out = with(|o| write_str(o, &"z".repeat(255)));
        assert_eq!((out.len(), &out[..2]), (257, &[0xd9, 0xff][..]));
        let out = with(|o| write_str(o, &"z".repeat(256)));
        assert_eq!((out.len(), &out[..3]), (259, &[0xda, 0x01, 0x00][..]));
        let out = with(|o| write_str(o, &"z".repeat(65535)));
        assert_eq!(&out[..3], [0xda, 0xff, 0xff]);
        let out = with(|o| write_str(o, &"z".repeat(65536)));
        assert_eq!((out.len(), &out[..5]), (65541, &[0xdb, 0, 1, 0, 0][..]));
        // Length is in bytes, not characters: "é" is 2 bytes.
        assert_eq!(with(|o| write_str(o, "é")), [0xa2, 0xc3, 0xa9]);
        assert_eq!(with(|o| write_str_header(o, 40)), [0xd9, 40]);
    }

    #[test]
    fn binaries() {
        assert_eq!(with(|o| write_bin(o, &[])), [0xc4, 0x00]);
        assert_eq!(with(|o| write_bin(o, &[1, 2])), [0xc4, 0x02, 1, 2]);
        let out = with(|o| write_bin(o, &[7; 255]));
        assert_eq!((out.len(), &out[..3]), (257, &[0xc4, 0xff, 7][..]));
        let out = with(|o| write_bin(o, &[7; 256]));
        assert_eq!((out.len(), &out[..4]), (259, &[0xc5, 0x01, 0x00, 7][..]));
        let out = with(|o| write_bin(o, &[7; 65536]));
        assert_eq!((out.len(), &out[..5]), (65541, &[0xc6, 0, 1, 0, 0][..]));
        assert_eq!(with(|o| write_bin_header(o, 65535)), [0xc5, 0xff, 0xff]);
    }

    #[test]
    fn no_allocation_with_capacity() {
        let mut out = Vec::with_capacity(64);
        let ptr = out.as_ptr();
        write_array_len(&mut out, 3);
        write_uint(&mut out, 1 << 40);
        write_f64(&mut out, 2.0);
        write_str(&mut out, "sensor.other.gnss");
        write_bin(&mut out, &[0; 8]);
        assert_eq!(out.as_ptr(), ptr);
        assert_eq!(out.capacity(), 64);
    }
}
