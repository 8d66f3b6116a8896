//! The 24-byte stream token of the 0.9.16 client (`streaming::Token`):
//!
//! | off | size | field |
//! |---:|---:|---|
//! | 0 | 4 | stream id, u32 LE |
//! | 4 | 2 | port, u16 LE |
//! | 6 | 1 | protocol: 1 = TCP |
//! | 7 | 1 | address type: 0 = not set |
//! | 8 | 16 | address (unused when not set) |
//!
//! The library always leaves the address unset: the client then connects
//! to the host it dialled for the RPC port (an address of 0.0.0.0 would be
//! used literally).

/// Size of a token.
pub const TOKEN_SIZE: usize = 24;

/// The token of stream `stream_id` on the streaming port `port`.
pub fn token(stream_id: u32, port: u16) -> [u8; TOKEN_SIZE] {
    let mut t = [0u8; TOKEN_SIZE];
    t[0..4].copy_from_slice(&stream_id.to_le_bytes());
    t[4..6].copy_from_slice(&port.to_le_bytes());
    t[6] = 1;
    t
}

/// The stream id inside a token.
pub fn stream_id(token: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(token.get(0..4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::hex;

    #[test]
    fn golden_token_of_the_spec() {
        let expected = hex("02000000 d107 01 00 00000000000000000000000000000000");
        assert_eq!(token(2, 2001).to_vec(), expected);
        assert_eq!(stream_id(&expected), Some(2));
        assert_eq!(stream_id(&[1, 2]), None);
    }
}
