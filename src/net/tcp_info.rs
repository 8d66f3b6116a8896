//! What the kernel knows about a connection that its reads do not say yet:
//!
//! - how many bytes the peer has acknowledged: what tells a slow subscriber
//!   (acknowledging, slowly) from a stalled one at teardown. Linux says it
//!   in `TCP_INFO` (`tcpi_bytes_acked`, since 4.1). Elsewhere the answer is
//!   "unknown" and the teardown falls back to its plain bound
//!   (`streaming::stream`, `FLUSH_BOUND`);
//! - whether the peer has already closed its end: a connection that waited
//!   in a port's backlog while its client left (an earlier episode's) must
//!   not become a new episode's. Linux says it in `tcpi_state` even when
//!   unread bytes come before the end of file; elsewhere a peek says it
//!   when nothing is left to read.

/// The kernel's `TCP_INFO` of `stream` and how many of its bytes it
/// filled (older kernels fill fewer fields), or None if it failed.
#[cfg(target_os = "linux")]
fn read_tcp_info(stream: &std::net::TcpStream) -> Option<(libc::tcp_info, usize)> {
    use std::os::fd::AsRawFd;
    // SAFETY: `tcp_info` is plain integers; all zeroes is a valid value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: `info` and `len` are valid for the call and the kernel
    // writes at most `len` bytes.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    (rc == 0).then_some((info, len as usize))
}

/// Bytes of `stream` the peer has acknowledged, or None if the system does
/// not say.
#[cfg(target_os = "linux")]
pub(crate) fn bytes_acked(stream: &std::net::TcpStream) -> Option<u64> {
    let (info, len) = read_tcp_info(stream)?;
    let known = std::mem::offset_of!(libc::tcp_info, tcpi_bytes_acked) + 8;
    (len >= known).then_some(info.tcpi_bytes_acked)
}

/// Bytes of `stream` the peer has acknowledged: unknown on this system.
#[cfg(not(target_os = "linux"))]
pub(crate) fn bytes_acked(_stream: &std::net::TcpStream) -> Option<u64> {
    None
}

/// Whether the peer of `stream` (non-blocking) has closed its end or reset
/// the connection: nothing more will ever come from it.
pub(crate) fn peer_closed(stream: &std::net::TcpStream) -> bool {
    closed_state(stream) || {
        let mut byte = [0u8; 1];
        match stream.peek(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
            ),
        }
    }
}

/// Linux: the connection's TCP state is one a closed peer leaves it in
/// (`include/net/tcp_states.h`: CLOSE 7, CLOSE_WAIT 8, LAST_ACK 9).
#[cfg(target_os = "linux")]
fn closed_state(stream: &std::net::TcpStream) -> bool {
    const CLOSE: u8 = 7;
    const CLOSE_WAIT: u8 = 8;
    const LAST_ACK: u8 = 9;
    read_tcp_info(stream).is_some_and(|(info, len)| {
        len > 0 && matches!(info.tcpi_state, CLOSE | CLOSE_WAIT | LAST_ACK)
    })
}

/// Elsewhere the state is not asked (the peek decides).
#[cfg(not(target_os = "linux"))]
fn closed_state(_stream: &std::net::TcpStream) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::peer_closed;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::time::{Duration, Instant};

    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        server.set_nonblocking(true).unwrap();
        (server, client)
    }

    fn becomes_closed(server: &TcpStream) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if peer_closed(server) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    #[test]
    fn a_connection_is_closed_once_its_peer_closes_it_not_before() {
        let (server, client) = pair();
        assert!(!peer_closed(&server), "an open, idle peer");
        drop(client);
        assert!(becomes_closed(&server), "the peer closed");
        // Bytes sent before the close: Linux still knows the peer left.
        let (server, mut client) = pair();
        client.write_all(&[1, 2, 3]).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(!peer_closed(&server), "an open peer that sent bytes");
        drop(client);
        if cfg!(target_os = "linux") {
            assert!(becomes_closed(&server), "closed after sending bytes");
        }
    }
}
