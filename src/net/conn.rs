//! Connected sockets with deadlines.
//!
//! Every session socket is non-blocking and has a readiness poller of its
//! own (`mio`: epoll on Linux, kqueue on macOS, IOCP on Windows), where it
//! is registered for what the current wait needs (readable or writable;
//! re-registered only when that changes). Reads and writes wait there with
//! the remaining time to an optional deadline, so a server time-out of 0
//! means "only what is possible right now", and another thread can abort
//! any wait through an [`Aborter`] (the socket is shut down and the poller
//! woken). Writes are one vectored send per call (`sendmsg` / `WSASend`,
//! via `socket2`) of several buffers without concatenating them, and a peer
//! that went away never raises SIGPIPE in the host process: `MSG_NOSIGNAL`
//! per call on Linux and the other Unix systems that have it,
//! `SO_NOSIGPIPE` on the socket on macOS, and Windows has no such signal.

use crate::net::fds::Ticket;
use crate::Error;
use mio::{Events, Interest, Poll, Token, Waker};
use parking_lot::Mutex;
use std::io::{self, IoSlice, Read};
use std::net::{Shutdown, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When an operation must have finished; `None` waits forever.
pub(crate) type Deadline = Option<Instant>;

/// A deadline `timeout` from now.
pub(crate) fn deadline_in(timeout: Duration) -> Deadline {
    Some(Instant::now() + timeout)
}

/// The poller's time-out for `deadline`: whole milliseconds, rounded up so
/// a 0.4 ms remainder still waits instead of spinning.
fn poll_timeout(deadline: Deadline) -> Option<Duration> {
    let left = deadline?.saturating_duration_since(Instant::now());
    Some(Duration::from_millis(left.as_micros().div_ceil(1000) as u64))
}

/// The flags of every send: no SIGPIPE where a flag can say so.
#[cfg(all(unix, not(target_vendor = "apple")))]
const SEND_FLAGS: std::ffi::c_int = libc::MSG_NOSIGNAL;
/// macOS has no `MSG_NOSIGNAL`; the socket carries `SO_NOSIGPIPE` instead
/// (set in `Conn::from_mio`). Windows raises no signal.
#[cfg(not(all(unix, not(target_vendor = "apple"))))]
const SEND_FLAGS: std::ffi::c_int = 0;

/// Most slices one send takes (Linux's `IOV_MAX`); the rest go in the next.
const MAX_SLICES: usize = 1024;

const SOCKET: Token = Token(0);
const WAKE: Token = Token(1);

/// What a connection shares with its aborters.
#[derive(Debug)]
struct AbortState {
    /// A second handle to the socket, for `shutdown` from another thread.
    socket: std::net::TcpStream,
    /// Wakes the connection's poller (its owner may be waiting in it).
    waker: Waker,
    /// `abort` was called: every later wait fails at once.
    aborted: AtomicBool,
    /// The descriptors this connection counts against the budget, given
    /// back when the last handle (connection or aborter) drops.
    _ticket: Option<Ticket>,
}

/// A handle that aborts a connection's pending and future I/O from any
/// thread. It keeps the socket open (as the connection does) until dropped.
#[derive(Debug, Clone)]
pub(crate) struct Aborter(Arc<AbortState>);

impl Aborter {
    /// Shuts the connection down; blocked reads and writes return at once.
    pub(crate) fn abort(&self) {
        self.0.aborted.store(true, Ordering::Release);
        let _ = self.0.socket.shutdown(Shutdown::Both);
        let _ = self.0.waker.wake();
    }

    /// Bytes of this connection the peer has acknowledged so far (Linux:
    /// the kernel's `TCP_INFO`), or None where the system does not say.
    pub(crate) fn bytes_acked(&self) -> Option<u64> {
        super::tcp_info::bytes_acked(&self.0.socket)
    }

    fn aborted(&self) -> bool {
        self.0.aborted.load(Ordering::Acquire)
    }
}

/// The socket and its poller, used by the connection's own thread only.
#[derive(Debug)]
struct Io {
    stream: mio::net::TcpStream,
    poll: Poll,
    events: Events,
    /// What the socket is registered for: only what the current wait
    /// needs, so a writable socket never wakes a reader (Windows re-arms a
    /// registration at every operation that would block, and a writable
    /// socket would answer at once, for ever).
    registered: Option<Interest>,
    /// Bytes the port already read (a handshake's first bytes that belong
    /// to the protocol), served before the socket's.
    unread: Vec<u8>,
}

/// One accepted TCP session.
#[derive(Debug)]
pub(crate) struct Conn {
    /// Only the connection's own thread does I/O; never contended. Boxed:
    /// Windows' poller state is large and connections move between threads.
    io: Box<Mutex<Io>>,
    aborter: Aborter,
    peer: SocketAddr,
}

impl Conn {
    /// Prepares a connected stream: TCP_NODELAY on, non-blocking.
    #[cfg(any(test, fuzzing))]
    pub(crate) fn new(stream: std::net::TcpStream) -> io::Result<Conn> {
        stream.set_nonblocking(true)?;
        Conn::from_mio(mio::net::TcpStream::from_std(stream))
    }

    /// Prepares an accepted (already non-blocking) stream: TCP_NODELAY on,
    /// no SIGPIPE, a poller of its own.
    #[cfg(any(test, fuzzing))]
    pub(crate) fn from_mio(stream: mio::net::TcpStream) -> io::Result<Conn> {
        Conn::accepted(stream, None, Vec::new())
    }

    /// Prepares a connection a port accepted (already non-blocking):
    /// TCP_NODELAY on, no SIGPIPE, a poller of its own. It holds
    /// `ticket` (its descriptors in the budget) and reads `unread` first.
    pub(crate) fn accepted(
        stream: mio::net::TcpStream,
        ticket: Option<Ticket>,
        unread: Vec<u8>,
    ) -> io::Result<Conn> {
        stream.set_nodelay(true)?;
        #[cfg(target_vendor = "apple")]
        socket2::SockRef::from(&stream).set_nosigpipe(true)?;
        let peer = stream.peer_addr()?;
        let socket = socket2::SockRef::from(&stream).try_clone()?.into();
        let poll = Poll::new()?;
        let waker = Waker::new(poll.registry(), WAKE)?;
        Ok(Conn {
            io: Box::new(Mutex::new(Io {
                stream,
                poll,
                events: Events::with_capacity(4),
                registered: None,
                unread,
            })),
            aborter: Aborter(Arc::new(AbortState {
                socket,
                waker,
                aborted: AtomicBool::new(false),
                _ticket: ticket,
            })),
            peer,
        })
    }

    /// The client's address.
    pub(crate) fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Whether the client has already closed (or reset) this connection.
    pub(crate) fn peer_closed(&self) -> bool {
        super::tcp_info::peer_closed(&self.aborter.0.socket)
    }

    /// A handle to abort this connection from another thread.
    pub(crate) fn aborter(&self) -> Aborter {
        self.aborter.clone()
    }

    /// Fills `buf` completely. A closed peer is `END_OF_FILE`.
    pub(crate) fn read_exact(&self, buf: &mut [u8], deadline: Deadline) -> Result<(), Error> {
        let mut io = self.io.lock();
        let mut done = io.take_unread(buf);
        while done < buf.len() {
            match self.retry(&mut io, Interest::READABLE, deadline, |mut s| {
                s.read(&mut buf[done..])
            })? {
                0 => return Err(Error::PeerClosed),
                n => done += n,
            }
        }
        Ok(())
    }

    /// Reads what is available into `buf` (waiting up to the deadline for
    /// at least one byte). A closed peer is `END_OF_FILE`.
    pub(crate) fn read_some(&self, buf: &mut [u8], deadline: Deadline) -> Result<usize, Error> {
        let mut io = self.io.lock();
        if !io.unread.is_empty() {
            return Ok(io.take_unread(buf));
        }
        match self.retry(&mut io, Interest::READABLE, deadline, |mut s| s.read(buf))? {
            0 => Err(Error::PeerClosed),
            n => Ok(n),
        }
    }

    /// Writes every byte of every slice, in order, with as few vectored
    /// sends as the kernel allows.
    pub(crate) fn write_all_vectored(
        &self,
        mut bufs: &mut [IoSlice<'_>],
        deadline: Deadline,
    ) -> Result<(), Error> {
        let mut io = self.io.lock();
        IoSlice::advance_slices(&mut bufs, 0);
        while !bufs.is_empty() {
            let batch = &bufs[..bufs.len().min(MAX_SLICES)];
            // `try_io` lets mio re-arm the socket's readiness on Windows
            // when the send would block.
            let send = |s: &mio::net::TcpStream| {
                s.try_io(|| socket2::SockRef::from(s).send_vectored_with_flags(batch, SEND_FLAGS))
            };
            match self.retry(&mut io, Interest::WRITABLE, deadline, send)? {
                0 => return Err(Error::BrokenPipe),
                n => IoSlice::advance_slices(&mut bufs, n),
            }
        }
        Ok(())
    }

    /// Runs `op` until it does not block, waiting for `interest` between
    /// tries. After an abort, a wait or an error is what Linux reports for
    /// a shut-down socket: end of file for reads, a broken pipe for writes.
    fn retry<T>(
        &self,
        io: &mut Io,
        interest: Interest,
        deadline: Deadline,
        mut op: impl FnMut(&mio::net::TcpStream) -> io::Result<T>,
    ) -> Result<T, Error> {
        loop {
            match op(&io.stream) {
                Ok(v) => return Ok(v),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) if self.aborter.aborted() => {
                    return Err(if interest == Interest::WRITABLE {
                        Error::BrokenPipe
                    } else {
                        Error::PeerClosed
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => io.wait(interest, deadline)?,
                Err(e) => return Err(Error::from_io(&e)),
            }
        }
    }
}

impl Io {
    /// Moves unread bytes into `buf`; returns how many.
    fn take_unread(&mut self, buf: &mut [u8]) -> usize {
        let n = self.unread.len().min(buf.len());
        buf[..n].copy_from_slice(&self.unread[..n]);
        self.unread.drain(..n);
        n
    }

    /// Waits until the poller reports the socket (for `interest`) or a
    /// wake-up, or the deadline passes (`OPERATION_ABORTED`, the original's
    /// code for an expired deadline). Readiness is edge-triggered: the
    /// caller only waits after an operation would have blocked, so an
    /// event always follows.
    fn wait(&mut self, interest: Interest, deadline: Deadline) -> Result<(), Error> {
        if self.registered != Some(interest) {
            let registry = self.poll.registry();
            let done = match self.registered {
                None => registry.register(&mut self.stream, SOCKET, interest),
                Some(_) => registry.reregister(&mut self.stream, SOCKET, interest),
            };
            done.map_err(|e| Error::from_io(&e))?;
            self.registered = Some(interest);
        }
        loop {
            match self.poll.poll(&mut self.events, poll_timeout(deadline)) {
                Ok(()) if !self.events.is_empty() => return Ok(()),
                Ok(()) => {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return Err(Error::DeadlinePassed);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::from_io(&e)),
            }
        }
    }
}
