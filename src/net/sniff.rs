//! Telling the two protocols apart on one port, from the first four bytes a
//! client sends (both protocols are client-first).
//!
//! - CARLA 0.8.4: a little-endian `u32` length, then a protobuf message. Every
//!   message this server accepts is shorter than 16 MiB, so byte 3 is 0.
//! - CARLA 0.9.16 (rpclib): a msgpack array of four, `0x94`, then the request
//!   type 0, then the message id — 0 on a new connection, and a positive
//!   fixint below 128 for any request a client sends first — then the method
//!   name, a fixstr (`0xa0..=0xbf`) or a str8 (`0xd9`).
//!
//! So `94 00 xx yy` with `yy != 0` is 0.9 and everything else is 0.8. A 0.8
//! message of length 148 also starts with `94 00`, but its byte 3 is 0.

/// Which protocol a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// CARLA 0.8.4's length-prefixed protobuf.
    Legacy,
    /// CARLA 0.9.16's msgpack-RPC.
    Rpc,
}

/// The protocol of a connection whose first bytes are `first`.
pub(crate) fn classify(first: [u8; 4]) -> Protocol {
    match first {
        [0x94, 0x00, id, name] if id <= 0x7f || (0xcc..=0xce).contains(&id) => {
            if name != 0 {
                Protocol::Rpc
            } else {
                Protocol::Legacy
            }
        }
        _ => Protocol::Legacy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_09_request_is_rpc() {
        // [0, 0, "version", []]
        assert_eq!(classify([0x94, 0x00, 0x00, 0xa7]), Protocol::Rpc);
        assert_eq!(classify([0x94, 0x00, 0x05, 0xb0]), Protocol::Rpc);
        assert_eq!(classify([0x94, 0x00, 0x7f, 0xd9]), Protocol::Rpc);
    }

    #[test]
    fn every_08_length_below_16_mib_is_legacy() {
        for len in [0u32, 4, 148, 148 + 256, 0x94 + 0x7f00, 0x00ff_ff94, 1 << 20] {
            assert_eq!(classify(len.to_le_bytes()), Protocol::Legacy, "{len}");
        }
    }

    #[test]
    fn other_bytes_are_legacy() {
        assert_eq!(classify(*b"GET "), Protocol::Legacy);
        assert_eq!(classify([0x93, 0x00, 0x00, 0xa7]), Protocol::Legacy);
        assert_eq!(classify([0x94, 0x01, 0x00, 0xa7]), Protocol::Legacy);
    }
}
