//! Helpers for the unit tests.

/// Bytes from hex text; whitespace is ignored (golden-byte tests write
/// their expected bytes grouped by field).
pub(crate) fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digits"))
        .collect()
}

/// A server on loopback with its streaming port listening (any free port)
/// and a 5 s stream time-out.
pub(crate) fn streaming_server() -> crate::Server {
    let server = crate::Server::with_config(crate::Config {
        bind_ip: "127.0.0.1".parse().unwrap(),
        stream_timeout: std::time::Duration::from_secs(5),
        ..crate::Config::default()
    });
    server.listen_streaming(0).unwrap();
    server
}
