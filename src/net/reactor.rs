//! A port's accept thread: it accepts while the descriptor budget allows
//! ([`fds`](super::fds)) and reads the first bytes of every new connection
//! itself, all of them on one poller, before a connection gets a thread or
//! a poller of its own.
//!
//! A connection waiting for its first bytes costs one descriptor and a few
//! bytes of memory, and has one deadline for the whole handshake, counted
//! from its accept: a client that sends one byte at a time cannot stretch
//! it. A port holds at most [`MAX_PENDING`] such connections, and at most
//! half of its class's descriptors ([`pending_share`]). Past that, or past
//! the budget, a new connection takes over the place of the oldest one that
//! has sent nothing for [`IDLE_EVICT`] (closed at once): a flood of idle
//! connections cycles through the port in a fraction of a second, and a
//! real client behind it, whose first bytes come with its connection, is
//! served instead of waiting for the flood's deadlines. With no such idle
//! connection, new connections wait in the kernel's backlog.

use super::fds::{pending_share, Class, Ticket, CONN_FDS};
use super::Conn;
use mio::{Events, Interest, Poll, Token};
use std::collections::HashMap;
use std::io::{self, Read};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Connections waiting for their first bytes on one port, at most.
pub(crate) const MAX_PENDING: usize = 1024;

/// How long a pending connection must have sent nothing before a new one
/// may take its place (a real client's first bytes are on their way by
/// then).
const IDLE_EVICT: Duration = Duration::from_millis(100);

/// How often a port that is out of descriptors (or whose `accept` failed)
/// tries again.
const RETRY: Duration = Duration::from_millis(20);

pub(super) const LISTENER: Token = Token(0);
pub(super) const STOP: Token = Token(1);
const FIRST_PENDING: usize = 2;

/// What a port reads from a new connection before handing it over.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Handshake {
    /// The whole handshake's deadline, from the accept.
    pub(crate) timeout: Duration,
    /// How many first bytes (1 to 4).
    pub(crate) bytes: usize,
    /// The bytes belong to the protocol: the connection reads them again.
    pub(crate) keep: bool,
}

/// What a port does with its connections.
pub(crate) trait Acceptor: Send + 'static {
    /// The handshake a new connection gets (None: handed over at once).
    fn handshake(&mut self) -> Option<Handshake>;
    /// Takes a connection; `first` holds its handshake bytes (zeros past
    /// the handshake's `bytes`).
    fn accept(&mut self, conn: Conn, first: Option<[u8; 4]>);
}

struct Pending {
    stream: mio::net::TcpStream,
    peer: SocketAddr,
    ticket: Ticket,
    first: [u8; 4],
    got: usize,
    since: Instant,
    handshake: Handshake,
}

/// The accept thread's state.
pub(super) struct Reactor<A: Acceptor> {
    pub(super) poll: Poll,
    pub(super) listener: mio::net::TcpListener,
    pub(super) name: &'static str,
    pub(super) class: Class,
    pub(super) acceptor: A,
    pending: HashMap<Token, Pending>,
    next_token: usize,
    /// The listener may have connections queued (edge-triggered: only an
    /// accept that would block clears it).
    backlog: bool,
    port: u16,
}

impl<A: Acceptor> Reactor<A> {
    pub(super) fn new(
        poll: Poll,
        listener: mio::net::TcpListener,
        name: &'static str,
        class: Class,
        acceptor: A,
    ) -> Self {
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        Reactor {
            poll,
            listener,
            name,
            class,
            acceptor,
            pending: HashMap::new(),
            next_token: FIRST_PENDING,
            backlog: true,
            port,
        }
    }

    /// Runs until `stop()` says so (checked after every wake-up).
    pub(super) fn run(mut self, stop: impl Fn() -> bool) {
        let mut events = Events::with_capacity(256);
        while !stop() {
            let mut retry_soon = false;
            if self.backlog {
                retry_soon = self.accept_queued();
            }
            let now = Instant::now();
            self.expire(now);
            let mut timeout = self
                .pending
                .values()
                .map(|p| (p.since + p.handshake.timeout).saturating_duration_since(now))
                .min();
            if retry_soon {
                timeout = Some(timeout.map_or(RETRY, |t| t.min(RETRY)));
            }
            // Round up so a sub-millisecond remainder still sleeps.
            let timeout = timeout.map(|t| t + Duration::from_micros(999));
            match self.poll.poll(&mut events, timeout) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    crate::log_error!("{} port {}: poll failed: {}", self.name, self.port, e);
                    return;
                }
            }
            for event in events.iter() {
                match event.token() {
                    LISTENER => self.backlog = true,
                    STOP => {}
                    token => self.progress(token),
                }
            }
        }
    }

    /// Accepts queued connections while the budget allows. Returns whether
    /// it stopped for lack of descriptors (try again soon).
    fn accept_queued(&mut self) -> bool {
        loop {
            let full = self.pending.len() >= MAX_PENDING.min(pending_share(self.class));
            let ticket = if full {
                None
            } else {
                Ticket::take(self.class, CONN_FDS)
            };
            // Out of room: the oldest idle connection's place, if any.
            let victim = match ticket {
                Some(_) => None,
                None => match self.oldest_idle(Instant::now()) {
                    Some(token) => Some(token),
                    None => return true,
                },
            };
            let (stream, peer) = match self.listener.accept() {
                Ok(pair) => pair,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.backlog = false;
                    return false;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // EMFILE and friends: the connection stays queued.
                    crate::log_warn!("{} port {}: accept failed: {}", self.name, self.port, e);
                    return true;
                }
            };
            let Some(ticket) = ticket.or_else(|| victim.and_then(|v| self.take_over(v))) else {
                return true;
            };
            match self.acceptor.handshake() {
                None => self.hand_over(stream, peer, ticket, None, None),
                Some(handshake) => self.start_handshake(stream, peer, ticket, handshake),
            }
        }
    }

    fn start_handshake(
        &mut self,
        mut stream: mio::net::TcpStream,
        peer: SocketAddr,
        ticket: Ticket,
        handshake: Handshake,
    ) {
        let token = Token(self.next_token);
        self.next_token = self.next_token.checked_add(1).unwrap_or(FIRST_PENDING);
        if let Err(e) = self
            .poll
            .registry()
            .register(&mut stream, token, Interest::READABLE)
        {
            crate::log_warn!(
                "{} port {}: cannot watch {}: {}",
                self.name,
                self.port,
                peer,
                e
            );
            return;
        }
        let pending = Pending {
            stream,
            peer,
            ticket,
            first: [0; 4],
            got: 0,
            since: Instant::now(),
            handshake,
        };
        self.pending.insert(token, pending);
        // Bytes may be there already.
        self.progress(token);
    }

    /// Reads what a pending connection sent; hands it over when complete,
    /// drops it if it left or failed.
    fn progress(&mut self, token: Token) {
        let Some(p) = self.pending.get_mut(&token) else {
            return;
        };
        let gone = loop {
            let want = p.handshake.bytes.clamp(1, 4);
            match (&p.stream).read(&mut p.first[p.got..want]) {
                Ok(0) => break Some("left".to_owned()),
                Ok(n) => {
                    p.got += n;
                    if p.got == want {
                        break None;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Some(e.to_string()),
            }
        };
        if let Some(why) = gone {
            // Gone before its first bytes: a debug line only (a refusal
            // of ours is logged where it is decided).
            crate::log_debug!(
                "{} port {}: {} {} after {} of its first {} bytes",
                self.name,
                self.port,
                p.peer,
                why,
                p.got,
                p.handshake.bytes
            );
            self.drop_pending(token);
            return;
        }
        let Some(mut p) = self.pending.remove(&token) else {
            return;
        };
        let _ = self.poll.registry().deregister(&mut p.stream);
        let keep = p.handshake.keep.then_some(p.got);
        self.hand_over(p.stream, p.peer, p.ticket, Some(p.first), keep);
    }

    /// The pending connection that has sent nothing for the longest, if
    /// that is [`IDLE_EVICT`] or more.
    fn oldest_idle(&self, now: Instant) -> Option<Token> {
        self.pending
            .iter()
            .filter(|(_, p)| p.got == 0 && now.duration_since(p.since) >= IDLE_EVICT)
            .min_by_key(|(_, p)| p.since)
            .map(|(t, _)| *t)
    }

    /// Closes pending connection `token` for a new one; its ticket.
    fn take_over(&mut self, token: Token) -> Option<Ticket> {
        let mut p = self.pending.remove(&token)?;
        let _ = self.poll.registry().deregister(&mut p.stream);
        crate::log_debug!(
            "{} port {}: {} closed: sent nothing for {} ms while the port was full; a new connection takes its place",
            self.name,
            self.port,
            p.peer,
            p.since.elapsed().as_millis()
        );
        Some(p.ticket)
    }

    fn drop_pending(&mut self, token: Token) {
        if let Some(mut p) = self.pending.remove(&token) {
            let _ = self.poll.registry().deregister(&mut p.stream);
        }
    }

    /// Closes pending connections whose handshake deadline passed.
    fn expire(&mut self, now: Instant) {
        let late: Vec<Token> = self
            .pending
            .iter()
            .filter(|(_, p)| now >= p.since + p.handshake.timeout)
            .map(|(t, _)| *t)
            .collect();
        for token in late {
            if let Some(p) = self.pending.get(&token) {
                crate::log_warn!(
                    "{} port {}: {} closed: sent {} of its first {} bytes within {} ms (the server time-out)",
                    self.name,
                    self.port,
                    p.peer,
                    p.got,
                    p.handshake.bytes,
                    p.handshake.timeout.as_millis()
                );
            }
            self.drop_pending(token);
        }
    }

    fn hand_over(
        &mut self,
        stream: mio::net::TcpStream,
        peer: SocketAddr,
        ticket: Ticket,
        first: Option<[u8; 4]>,
        keep: Option<usize>,
    ) {
        let unread = match (first, keep) {
            (Some(f), Some(n)) => f[..n].to_vec(),
            _ => Vec::new(),
        };
        match Conn::accepted(stream, Some(ticket), unread) {
            Ok(conn) => self.acceptor.accept(conn, first),
            Err(e) => {
                crate::log_warn!(
                    "{} port {}: cannot set up {}: {}",
                    self.name,
                    self.port,
                    peer,
                    e
                )
            }
        }
    }
}
