//! Connected sockets with deadlines.
//!
//! Every session socket is non-blocking; reads and writes wait in `poll(2)`
//! with the remaining time to an optional deadline, so a server time-out of
//! 0 means "only what is possible right now", and another thread can abort
//! any wait by calling `shutdown` on an `Aborter` (the blocked `poll` wakes
//! with POLLHUP). Writes use `sendmsg` with `MSG_NOSIGNAL`: a peer that went
//! away never raises SIGPIPE in the host process, and several buffers go out
//! in one vectored call without being concatenated.

use crate::Error;
use std::io::{self, IoSlice, Read};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::time::{Duration, Instant};

/// When an operation must have finished; `None` waits forever.
pub(crate) type Deadline = Option<Instant>;

/// A deadline `timeout` from now.
pub(crate) fn deadline_in(timeout: Duration) -> Deadline {
    Some(Instant::now() + timeout)
}

/// Waits until `fd` is ready for `events` or the deadline passes
/// (`OPERATION_ABORTED`, the original's code for an expired deadline).
pub(crate) fn wait_fd(fd: RawFd, events: libc::c_short, deadline: Deadline) -> Result<(), Error> {
    loop {
        let timeout_ms: libc::c_int = match deadline {
            None => -1,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                // Round up so a 0.4 ms remainder still waits instead of spinning.
                left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int
            }
        };
        let mut pfd = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: `pfd` is a valid pollfd for the duration of the call; nfds = 1.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
        if n > 0 {
            return Ok(());
        }
        if n == 0 {
            return Err(Error::DeadlinePassed);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(Error::from_io(&err));
        }
    }
}

/// A handle that aborts a connection's pending and future I/O from any thread.
#[derive(Debug)]
pub(crate) struct Aborter(TcpStream);

impl Aborter {
    /// Shuts the connection down; blocked reads and writes return at once.
    pub(crate) fn abort(&self) {
        let _ = self.0.shutdown(Shutdown::Both);
    }

    /// Bytes of this connection the peer has acknowledged so far (the
    /// kernel's `TCP_INFO`), or None if the kernel does not say.
    pub(crate) fn bytes_acked(&self) -> Option<u64> {
        // SAFETY: `tcp_info` is plain integers; all zeroes is a valid value.
        let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        // SAFETY: `info` and `len` are valid for the call and the kernel
        // writes at most `len` bytes.
        let rc = unsafe {
            libc::getsockopt(
                self.0.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_INFO,
                (&mut info as *mut libc::tcp_info).cast(),
                &mut len,
            )
        };
        let known = std::mem::offset_of!(libc::tcp_info, tcpi_bytes_acked) + 8;
        (rc == 0 && len as usize >= known).then_some(info.tcpi_bytes_acked)
    }
}

/// One accepted TCP session.
#[derive(Debug)]
pub(crate) struct Conn {
    stream: TcpStream,
    peer: SocketAddr,
}

impl Conn {
    /// Prepares an accepted stream: TCP_NODELAY on, non-blocking.
    pub(crate) fn new(stream: TcpStream) -> io::Result<Conn> {
        stream.set_nodelay(true)?;
        stream.set_nonblocking(true)?;
        let peer = stream.peer_addr()?;
        Ok(Conn { stream, peer })
    }

    /// The client's address.
    pub(crate) fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// A handle to abort this connection from another thread.
    pub(crate) fn aborter(&self) -> io::Result<Aborter> {
        self.stream.try_clone().map(Aborter)
    }

    /// Fills `buf` completely. A closed peer is `END_OF_FILE`.
    pub(crate) fn read_exact(&self, buf: &mut [u8], deadline: Deadline) -> Result<(), Error> {
        let mut done = 0;
        while done < buf.len() {
            match (&self.stream).read(&mut buf[done..]) {
                Ok(0) => return Err(Error::PeerClosed),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_fd(self.stream.as_raw_fd(), libc::POLLIN, deadline)?
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::from_io(&e)),
            }
        }
        Ok(())
    }

    /// Reads what is available into `buf` (waiting up to the deadline for
    /// at least one byte). A closed peer is `END_OF_FILE`.
    pub(crate) fn read_some(&self, buf: &mut [u8], deadline: Deadline) -> Result<usize, Error> {
        loop {
            match (&self.stream).read(buf) {
                Ok(0) => return Err(Error::PeerClosed),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_fd(self.stream.as_raw_fd(), libc::POLLIN, deadline)?
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::from_io(&e)),
            }
        }
    }

    /// Copies what is queued into `buf` without consuming it (waiting up to
    /// the deadline for at least one byte). A closed peer is `END_OF_FILE`.
    pub(crate) fn peek(&self, buf: &mut [u8], deadline: Deadline) -> Result<usize, Error> {
        loop {
            match self.stream.peek(buf) {
                Ok(0) => return Err(Error::PeerClosed),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_fd(self.stream.as_raw_fd(), libc::POLLIN, deadline)?
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::from_io(&e)),
            }
        }
    }

    /// Writes every byte of every slice, in order, with as few `sendmsg`
    /// calls as the kernel allows.
    pub(crate) fn write_all_vectored(
        &self,
        mut bufs: &mut [IoSlice<'_>],
        deadline: Deadline,
    ) -> Result<(), Error> {
        IoSlice::advance_slices(&mut bufs, 0);
        while !bufs.is_empty() {
            match send_vectored(self.stream.as_raw_fd(), bufs) {
                Ok(0) => return Err(Error::BrokenPipe),
                Ok(n) => IoSlice::advance_slices(&mut bufs, n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_fd(self.stream.as_raw_fd(), libc::POLLOUT, deadline)?
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::from_io(&e)),
            }
        }
        Ok(())
    }
}

/// One `sendmsg(MSG_NOSIGNAL)` of up to `IOV_MAX` slices.
fn send_vectored(fd: RawFd, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
    const IOV_MAX: usize = 1024;
    let count = bufs.len().min(IOV_MAX);
    // SAFETY: zeroed msghdr is a valid "no name, no control" header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    // IoSlice is guaranteed ABI-compatible with `struct iovec` on Unix.
    msg.msg_iov = bufs.as_ptr() as *mut libc::iovec;
    msg.msg_iovlen = count as _;
    // SAFETY: msg points at `count` valid iovecs borrowed for this call only;
    // the kernel only reads them.
    let n = unsafe { libc::sendmsg(fd, &msg, libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}
