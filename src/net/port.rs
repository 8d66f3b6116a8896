//! Listening ports: one accept thread per port, handing connections to the
//! port's worker through a `Rendezvous`.
//!
//! A port is bound once (at connect) and stays bound until the server is
//! disconnected, so clients can come back without the host restarting.
//! While the worker is busy with a session (or no worker wants a client,
//! e.g. the agent ports between episodes), a new connection is closed at
//! once with a log line instead of hanging in the kernel backlog.

use crate::net::fds::Class;
use crate::net::reactor::{Acceptor, Handshake, Reactor, LISTENER, STOP};
use crate::net::sniff::{self, Protocol};
use crate::net::Conn;
use crate::Error;
use mio::{Interest, Poll, Waker};
use parking_lot::{Condvar, Mutex, RwLock};
use std::io;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a connection that finds its port busy waits for the port to
/// free up before it is closed.
pub(crate) const SURPLUS_GRACE: Duration = Duration::from_millis(250);

#[derive(Default)]
struct RendezvousState {
    /// A worker is waiting for a client.
    wanted: bool,
    /// A connection accepted for the waiting worker.
    ready: Option<Conn>,
    /// Waiting workers must give up (teardown).
    cancelled: bool,
    /// Bumped by every `arm`: a connection offered under one generation
    /// is never given to a worker of the next.
    generation: u64,
}

impl RendezvousState {
    fn arm(&mut self) -> u64 {
        self.cancelled = false;
        self.wanted = true;
        self.ready = None;
        self.generation += 1;
        self.generation
    }

    fn cancel(&mut self) {
        self.cancelled = true;
        self.wanted = false;
        self.ready = None;
    }
}

/// Why `Rendezvous::take_until` returned without a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Missed {
    /// `cancel` was called (teardown).
    Cancelled,
    /// The deadline passed.
    TimedOut,
}

/// Where the accept thread leaves a connection for the port's worker.
#[derive(Default)]
pub(crate) struct Rendezvous {
    state: Mutex<RendezvousState>,
    cv: Condvar,
}

impl Rendezvous {
    /// Re-arms the rendezvous for a new worker and marks a client as wanted
    /// right away (so a client that connects before the worker thread runs
    /// is kept, not closed). Returns this arming's number, for
    /// [`Rendezvous::cancel_armed`].
    pub(crate) fn arm(&self) -> u64 {
        let generation = self.state.lock().arm();
        // Workers of an earlier arming give up (see `take_until`).
        self.cv.notify_all();
        generation
    }

    /// Makes waiting workers return `None`, closes a connection not yet
    /// taken, and refuses clients until the next `arm`.
    pub(crate) fn cancel(&self) {
        self.state.lock().cancel();
        self.cv.notify_all();
    }

    /// [`Rendezvous::cancel`] if arming `generation` is still the current
    /// one: a worker that ends late (an episode's teardown running after
    /// the next episode armed the same ports) cannot refuse the clients of
    /// the one after it.
    pub(crate) fn cancel_armed(&self, generation: u64) {
        let mut s = self.state.lock();
        if s.generation == generation {
            s.cancel();
            drop(s);
            self.cv.notify_all();
        }
    }

    /// Waits for the next client; `None` once cancelled.
    pub(crate) fn take(&self) -> Option<Conn> {
        self.take_until(None, None).ok()
    }

    /// Waits for the next client until `deadline` (None: no deadline).
    /// Past it, no client is wanted any more (a late one is surplus). A
    /// worker of arming `armed` gives up (`Cancelled`) once the rendezvous
    /// is armed again: that client is the next worker's.
    pub(crate) fn take_until(
        &self,
        armed: Option<u64>,
        deadline: Option<Instant>,
    ) -> Result<Conn, Missed> {
        let mut s = self.state.lock();
        loop {
            if armed.is_some_and(|g| g != s.generation) {
                return Err(Missed::Cancelled);
            }
            if s.cancelled {
                s.wanted = false;
                return Err(Missed::Cancelled);
            }
            if let Some(conn) = s.ready.take() {
                s.wanted = false;
                return Ok(conn);
            }
            s.wanted = true;
            self.cv.notify_all();
            match deadline {
                None => self.cv.wait(&mut s),
                Some(d) => {
                    if self.cv.wait_until(&mut s, d).timed_out() && s.ready.is_none() {
                        s.wanted = false;
                        return Err(Missed::TimedOut);
                    }
                }
            }
        }
    }

    /// Gives a connection to a worker that wants one within `grace`, or
    /// hands it back. The grace covers a client that reconnects at once:
    /// its new connection can arrive before the worker noticed the old one
    /// close. A connection offered under one arming is refused once the
    /// rendezvous is armed again: an episode's late connection (its client
    /// already gone) must not become the next episode's.
    pub(crate) fn offer(&self, conn: Conn, grace: Duration) -> Result<(), Conn> {
        let deadline = Instant::now() + grace;
        let mut s = self.state.lock();
        let generation = s.generation;
        loop {
            if s.cancelled || s.generation != generation {
                return Err(conn);
            }
            if s.wanted && s.ready.is_none() {
                s.ready = Some(conn);
                s.wanted = false;
                self.cv.notify_all();
                return Ok(());
            }
            if self.cv.wait_until(&mut s, deadline).timed_out() {
                return Err(conn);
            }
        }
    }
}

/// The grace surplus connections get, shared by a burst: connections
/// offered while a window is open, or within one grace after it closed
/// (they queued behind it), only get what is left of it. Without this the
/// accept thread waited one whole grace per connection, so the last of a
/// burst of N (and any client queued behind them) waited N × 250 ms.
#[derive(Default)]
struct GraceWindow {
    end: Option<Instant>,
}

impl GraceWindow {
    fn grace(&mut self, now: Instant) -> Duration {
        match self.end {
            Some(end) if now < end + SURPLUS_GRACE => end.saturating_duration_since(now),
            _ => {
                self.end = Some(now + SURPLUS_GRACE);
                SURPLUS_GRACE
            }
        }
    }

    /// A worker took a connection: the next surplus one opens a new window.
    fn reset(&mut self) {
        self.end = None;
    }
}

/// Gives `conn` to the port's worker (see [`Rendezvous::offer`]) or closes
/// it with a log line; `accepted` runs when the worker took it.
fn offer(
    clients: &Rendezvous,
    conn: Conn,
    grace: Duration,
    name: &str,
    port: u16,
    accepted: &mut dyn FnMut(),
) {
    match clients.offer(conn, grace) {
        Ok(()) => accepted(),
        Err(conn) => crate::log_warn!(
            "{} port {}: surplus connection from {} closed (the port is busy or no episode is running)",
            name,
            port,
            conn.peer()
        ),
    }
}

/// Where a shared port sends the connections of the other protocol: a
/// handler, set while that protocol's endpoint shares the port.
pub(crate) type Divert = Arc<RwLock<Option<Arc<dyn Fn(Conn) + Send + Sync>>>>;

/// The shortest first-bytes deadline: a server time-out of 0 means "host
/// calls never wait", not "clients get no time".
pub(crate) const MIN_FIRST_BYTES: Duration = Duration::from_secs(1);

/// How long a new connection has to send its first bytes, for a server
/// time-out `timeout`.
pub(crate) fn first_bytes_deadline(timeout: Duration) -> Duration {
    timeout.max(MIN_FIRST_BYTES)
}

/// A bound port with its accept thread.
pub(crate) struct Port {
    addr: SocketAddr,
    stop: Arc<Stop>,
    thread: Option<JoinHandle<()>>,
}

/// How a port's owner stops its accept thread: the flag, then a wake-up
/// of the thread's poller.
struct Stop {
    requested: AtomicBool,
    waker: Waker,
}

/// A plain port (0.8's agent ports): no handshake, surplus connections
/// share a grace window.
struct Offering {
    clients: Arc<Rendezvous>,
    window: GraceWindow,
    name: &'static str,
    port: u16,
}

impl Offering {
    fn offer(&mut self, conn: Conn) {
        let grace = self.window.grace(Instant::now());
        let window = &mut self.window;
        offer(
            &self.clients,
            conn,
            grace,
            self.name,
            self.port,
            &mut || window.reset(),
        );
    }
}

impl Acceptor for Offering {
    fn handshake(&mut self) -> Option<Handshake> {
        None
    }
    fn accept(&mut self, conn: Conn, _: Option<[u8; 4]>) {
        self.offer(conn)
    }
}

/// The 0.8 world port, shared with the 0.9 RPC endpoint while `divert`
/// holds one: each connection's first four bytes say which protocol it
/// speaks ([`sniff`]), within the first-bytes deadline.
struct Shared {
    plain: Offering,
    divert: Divert,
    first_bytes: Duration,
}

impl Acceptor for Shared {
    fn handshake(&mut self) -> Option<Handshake> {
        self.divert.read().is_some().then_some(Handshake {
            timeout: self.first_bytes,
            bytes: 4,
            keep: true,
        })
    }
    fn accept(&mut self, conn: Conn, first: Option<[u8; 4]>) {
        if let Some(Protocol::Rpc) = first.map(sniff::classify) {
            if let Some(rpc) = self.divert.read().clone() {
                return rpc(conn);
            }
        }
        self.plain.offer(conn)
    }
}

impl Port {
    /// Binds `ip:port` and starts accepting into `clients`. `name` is used in
    /// log lines ("world", "stream", "control").
    pub(crate) fn bind(
        ip: IpAddr,
        port: u16,
        name: &'static str,
        clients: Arc<Rendezvous>,
    ) -> Result<Port, Error> {
        Port::bind_with(ip, port, name, Class::World, move |bound| Offering {
            clients,
            window: GraceWindow::default(),
            name,
            port: bound,
        })
    }

    /// [`Port::bind`], for a port another protocol may share: while
    /// `divert` holds a handler, each new connection is classified by its
    /// first four bytes, which it must send within `first_bytes` of its
    /// accept, and a CARLA 0.9 client is handed to the handler; 0.8 clients
    /// go to `clients` as usual. While it is empty nothing changes.
    pub(crate) fn bind_shared(
        ip: IpAddr,
        port: u16,
        name: &'static str,
        clients: Arc<Rendezvous>,
        divert: Divert,
        first_bytes: Duration,
    ) -> Result<Port, Error> {
        Port::bind_with(ip, port, name, Class::World, move |bound| Shared {
            plain: Offering {
                clients,
                window: GraceWindow::default(),
                name,
                port: bound,
            },
            divert,
            first_bytes,
        })
    }

    /// Binds `ip:port` (0 picks a free port) and serves it with the
    /// acceptor `make` builds for the bound port number, on the port's
    /// accept thread ([`Reactor`]); its connections count in `class`.
    pub(crate) fn bind_with<A: Acceptor>(
        ip: IpAddr,
        port: u16,
        name: &'static str,
        class: Class,
        make: impl FnOnce(u16) -> A,
    ) -> Result<Port, Error> {
        let listener = listen(ip, port).map_err(|e| {
            crate::log_error!("{} port {}: cannot bind: {}", name, port, e);
            Error::from_io(&e)
        })?;
        let addr = listener.local_addr().map_err(|e| Error::from_io(&e))?;
        let io_err = |e: io::Error| Error::from_io(&e);
        let mut listener = mio::net::TcpListener::from_std(listener);
        let poll = Poll::new().map_err(io_err)?;
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)
            .map_err(io_err)?;
        let stop = Arc::new(Stop {
            requested: AtomicBool::new(false),
            waker: Waker::new(poll.registry(), STOP).map_err(io_err)?,
        });
        let stop_rx = stop.clone();
        let reactor = Reactor::new(poll, listener, name, class, make(addr.port()));
        let thread = crate::threads::spawn(format!("carla-{name}-accept"), move || {
            reactor.run(|| stop_rx.requested.load(Ordering::Acquire))
        })
        .map_err(io_err)?;
        Ok(Port {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The bound address.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// Connections the kernel queues for a port before it refuses more (the
/// system may cap it lower: Linux's `net.core.somaxconn`).
const BACKLOG: i32 = 1024;

/// A non-blocking listener on `ip:port` with a backlog of [`BACKLOG`]
/// (std's is 128), so a flood waits in the kernel rather than being reset.
fn listen(ip: IpAddr, port: u16) -> io::Result<TcpListener> {
    let addr = SocketAddr::new(ip, port);
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    // As std does: on Unix a port in TIME_WAIT can be bound again at once
    // (on Windows the option would let another process share the port).
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

impl Drop for Port {
    /// Stops the accept thread and closes the listener (the port is free
    /// again when this returns).
    fn drop(&mut self) {
        self.stop.requested.store(true, Ordering::Release);
        let _ = self.stop.waker.wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};

    fn conn() -> (Conn, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        (Conn::new(server).unwrap(), client)
    }

    /// An episode ends (cancel) while its late connection waits in its
    /// grace, and the next episode arms at once: the late connection is
    /// refused, not handed to the next episode (a CI flake: the next
    /// episode read the old client's end of file and ended).
    #[test]
    fn a_connection_offered_before_a_new_arming_is_not_given_to_it() {
        let r = Arc::new(Rendezvous::default());
        r.arm();
        // The worker of this arming is not taking yet.
        {
            r.state.lock().wanted = false;
        }
        let (stale, _peer) = conn();
        let r2 = r.clone();
        let offer = std::thread::spawn(move || r2.offer(stale, Duration::from_secs(5)).is_ok());
        std::thread::sleep(Duration::from_millis(50));
        {
            // The episode ends and the next arms before the offer runs
            // again (what a busy machine does to the offering thread).
            let mut s = r.state.lock();
            s.cancel();
            s.arm();
        }
        r.cv.notify_all();
        let taken = r.take_until(None, Some(Instant::now() + Duration::from_millis(300)));
        assert!(taken.is_err(), "the next arming got the stale connection");
        assert!(!offer.join().unwrap(), "the stale connection was refused");
        // A connection offered under the current arming is taken.
        let (fresh, _peer2) = conn();
        let r3 = r.clone();
        let offer = std::thread::spawn(move || r3.offer(fresh, Duration::from_secs(5)).is_ok());
        assert!(r
            .take_until(None, Some(Instant::now() + Duration::from_secs(5)))
            .is_ok());
        assert!(offer.join().unwrap());
    }
}
