//! How many bytes of a connection the peer has acknowledged: what tells a
//! slow subscriber (acknowledging, slowly) from a stalled one at teardown.
//!
//! Linux says it in `TCP_INFO` (`tcpi_bytes_acked`, since 4.1). Elsewhere
//! the answer is "unknown" and the teardown falls back to its plain bound
//! (`streaming::stream`, `FLUSH_BOUND`).

/// Bytes of `stream` the peer has acknowledged, or None if the system does
/// not say.
#[cfg(target_os = "linux")]
pub(crate) fn bytes_acked(stream: &std::net::TcpStream) -> Option<u64> {
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
    let known = std::mem::offset_of!(libc::tcp_info, tcpi_bytes_acked) + 8;
    (rc == 0 && len as usize >= known).then_some(info.tcpi_bytes_acked)
}

/// Bytes of `stream` the peer has acknowledged: unknown on this system.
#[cfg(not(target_os = "linux"))]
pub(crate) fn bytes_acked(_stream: &std::net::TcpStream) -> Option<u64> {
    None
}
