//! Listening ports: one accept thread per port, handing connections to the
//! port's worker through a `Rendezvous`.
//!
//! A port is bound once (at connect) and stays bound until the server is
//! disconnected, so clients can come back without the host restarting.
//! While the worker is busy with a session (or no worker wants a client,
//! e.g. the agent ports between episodes), a new connection is closed at
//! once with a log line instead of hanging in the kernel backlog.

use crate::net::sniff::{self, Protocol};
use crate::net::Conn;
use crate::Error;
use mio::{Events, Interest, Poll, Token, Waker};
use parking_lot::{Condvar, Mutex, RwLock};
use std::io;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
    /// is kept, not closed).
    pub(crate) fn arm(&self) {
        let mut s = self.state.lock();
        s.cancelled = false;
        s.wanted = true;
        s.ready = None;
    }

    /// Makes waiting workers return `None`, closes a connection not yet
    /// taken, and refuses clients until the next `arm`.
    pub(crate) fn cancel(&self) {
        let mut s = self.state.lock();
        s.cancelled = true;
        s.wanted = false;
        s.ready = None;
        self.cv.notify_all();
    }

    /// Waits for the next client; `None` once cancelled.
    pub(crate) fn take(&self) -> Option<Conn> {
        self.take_until(None).ok()
    }

    /// Waits for the next client until `deadline` (None: no deadline).
    /// Past it, no client is wanted any more (a late one is surplus).
    pub(crate) fn take_until(&self, deadline: Option<Instant>) -> Result<Conn, Missed> {
        let mut s = self.state.lock();
        loop {
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
    /// close.
    fn offer(&self, conn: Conn, grace: Duration) -> Result<(), Conn> {
        let deadline = Instant::now() + grace;
        let mut s = self.state.lock();
        loop {
            if s.cancelled {
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

/// Connections on a shared port waiting to be classified, at most; more are
/// closed on arrival.
pub(crate) const MAX_SNIFFING: usize = 64;
/// How long a new connection on a shared port has to send its first four
/// bytes.
pub(crate) const SNIFF_TIMEOUT: Duration = Duration::from_secs(10);

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

const LISTENER: Token = Token(0);
const STOP: Token = Token(1);

impl Port {
    /// Binds `ip:port` and starts accepting into `clients`. `name` is used in
    /// log lines ("world", "stream", "control").
    pub(crate) fn bind(
        ip: IpAddr,
        port: u16,
        name: &'static str,
        clients: Arc<Rendezvous>,
    ) -> Result<Port, Error> {
        Port::bind_shared(ip, port, name, clients, Divert::default())
    }

    /// [`Port::bind`], for a port another protocol may share: while
    /// `divert` holds a handler, each new connection is classified by its
    /// first bytes on a thread of its own ([`sniff`]) and a CARLA 0.9
    /// client is handed to the handler; 0.8 clients go to `clients` as
    /// usual. While it is empty nothing changes (no sniffing).
    pub(crate) fn bind_shared(
        ip: IpAddr,
        port: u16,
        name: &'static str,
        clients: Arc<Rendezvous>,
        divert: Divert,
    ) -> Result<Port, Error> {
        let mut window = GraceWindow::default();
        let sniffing = Arc::new(AtomicUsize::new(0));
        Port::bind_with(ip, port, name, move |conn| {
            let Some(other) = divert.read().clone() else {
                let grace = window.grace(Instant::now());
                return offer(&clients, conn, grace, name, port, &mut || window.reset());
            };
            if sniffing.fetch_add(1, Ordering::Relaxed) >= MAX_SNIFFING {
                sniffing.fetch_sub(1, Ordering::Relaxed);
                crate::log_warn!(
                    "{} port {}: {} closed: {} connections have not said which protocol they speak yet",
                    name,
                    port,
                    conn.peer(),
                    MAX_SNIFFING
                );
                return;
            }
            let (clients, sniffing2) = (clients.clone(), sniffing.clone());
            let spawned = crate::threads::spawn(format!("carla-{name}-sniff"), move || {
                match sniff::sniff(&conn, SNIFF_TIMEOUT) {
                    Ok(Protocol::Rpc) => other(conn),
                    Ok(Protocol::Legacy) => {
                        offer(&clients, conn, SURPLUS_GRACE, name, port, &mut || {})
                    }
                    Err(e) => crate::log_warn!(
                        "{} port {}: {} closed: no first request ({})",
                        name,
                        port,
                        conn.peer(),
                        e
                    ),
                }
                sniffing2.fetch_sub(1, Ordering::Relaxed);
            });
            if let Err(e) = spawned {
                sniffing.fetch_sub(1, Ordering::Relaxed);
                crate::log_error!("{} port {}: cannot start a thread: {}", name, port, e);
            }
        })
    }

    /// Binds `ip:port` (0 picks a free port) and hands every accepted
    /// connection to `on_accept`, on the accept thread.
    pub(crate) fn bind_with(
        ip: IpAddr,
        port: u16,
        name: &'static str,
        on_accept: impl FnMut(Conn) + Send + 'static,
    ) -> Result<Port, Error> {
        let listener = TcpListener::bind((ip, port)).map_err(|e| {
            crate::log_error!("{} port {}: cannot bind: {}", name, port, e);
            Error::from_io(&e)
        })?;
        listener
            .set_nonblocking(true)
            .map_err(|e| Error::from_io(&e))?;
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
        let thread = crate::threads::spawn(format!("carla-{name}-accept"), move || {
            accept_loop(poll, listener, &stop_rx, name, on_accept)
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

/// Accepts until the port is dropped. Readiness is edge-triggered, so
/// every wait follows an accept that would have blocked.
fn accept_loop(
    mut poll: Poll,
    listener: mio::net::TcpListener,
    stop: &Stop,
    name: &str,
    mut on_accept: impl FnMut(Conn),
) {
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    let mut events = Events::with_capacity(4);
    while !stop.requested.load(Ordering::Acquire) {
        let (stream, peer) = match listener.accept() {
            Ok(pair) => pair,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => match poll.poll(&mut events, None) {
                Ok(()) => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    crate::log_error!("{} port {}: poll failed: {}", name, port, e);
                    return;
                }
            },
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                // EMFILE and friends: back off briefly instead of spinning.
                crate::log_warn!("{} port {}: accept failed: {}", name, port, e);
                std::thread::sleep(std::time::Duration::from_millis(10));
                continue;
            }
        };
        let conn = match Conn::from_mio(stream) {
            Ok(c) => c,
            Err(e) => {
                crate::log_warn!("{} port {}: cannot set up {}: {}", name, port, peer, e);
                continue;
            }
        };
        on_accept(conn);
    }
}
