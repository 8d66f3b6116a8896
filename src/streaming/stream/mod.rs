//! CARLA 0.9-style streams: one TCP port, many streams, many subscribers
//! per stream.
//!
//! A client connects and sends the 4-byte stream id (LibCarla's handshake;
//! the server sends no reply). From then on it receives every message of that
//! stream as `[u32 size][48-byte sensor header][payload]`, written as one
//! vectored write. One message is shared (`Arc`) by all subscribers; its
//! shell is reused and its payload buffer goes back to the stream's pool
//! once the last subscriber has sent it (`shells.rs`), so a steady stream
//! allocates nothing per message. Sends work from any thread. An unknown stream id, a
//! handshake that does not arrive within the time-out or a closed stream
//! closes the connection with a log line.

mod delivery;
mod session;
mod shells;
mod teardown;

use crate::net::fds::Class;
use crate::net::port::Port;
use crate::net::reactor::{Acceptor, Handshake};
use crate::net::Conn;
use crate::release::{Release, STREAM_ID_LIMIT};
use crate::sensor::header::HEADER_SIZE;
use crate::streaming::pool::{Buffer, Pool};
use crate::Error;
pub(crate) use delivery::{Delivery, MAX_QUEUE_DEPTH};
use parking_lot::Mutex;
use session::{Offer, Session};
use shells::Shells;
use std::collections::HashMap;
use std::io::IoSlice;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One message: length prefix, sensor header, pooled payload.
pub(crate) struct Message {
    prefix: [u8; 4],
    header: [u8; HEADER_SIZE],
    payload: Buffer,
}

/// The payload, for holders that know nothing of streams
/// ([`crate::sync::shared_bytes::SharedBytes`]).
impl AsRef<[u8]> for Message {
    fn as_ref(&self) -> &[u8] {
        &self.payload
    }
}

/// Sees every message a stream sends, on the sender's thread (it must
/// not wait): the ROS 2 publisher's tap.
pub(crate) type Tap = Arc<dyn Fn(&Arc<Message>) + Send + Sync>;

impl Message {
    /// Its 48-byte sensor header.
    pub(crate) fn header(&self) -> &[u8; HEADER_SIZE] {
        &self.header
    }

    /// Tops its stream's pool up to `idle` idle blocks of its payload's
    /// size ([`Buffer::reserve_in_pool`]).
    pub(crate) fn reserve_in_pool(&self, idle: usize) {
        self.payload.reserve_in_pool(idle);
    }

    /// The payload from byte `offset` on (empty past its end).
    #[cfg(test)]
    pub(crate) fn payload_from(&self, offset: usize) -> &[u8] {
        self.payload.get(offset..).unwrap_or_default()
    }

    /// The message as written: its length prefix, then `header` and
    /// `payload`, its own or (for a subscriber of another client release)
    /// rewritten copies of the same length.
    fn slices<'a>(&'a self, header: &'a [u8; HEADER_SIZE], payload: &'a [u8]) -> [IoSlice<'a>; 3] {
        debug_assert_eq!(payload.len(), self.payload.len());
        [
            IoSlice::new(&self.prefix),
            IoSlice::new(header),
            IoSlice::new(payload),
        ]
    }
}

/// Counters of one stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Messages sent by the host.
    pub messages: u64,
    /// Subscribers right now.
    pub subscribers: usize,
    /// Messages a slow subscriber never got, over the subscribers connected
    /// now: replaced by a newer one (asynchronous mode) or not queued
    /// because its queue was full (queued mode).
    pub dropped: u64,
    /// Messages written to subscribers, over the subscribers connected now.
    pub delivered: u64,
    /// Payload blocks allocated by the stream's pool.
    pub pool_allocations: u64,
}

struct StreamState {
    id: u32,
    pool: Pool,
    shells: Shells,
    sessions: Mutex<Vec<Arc<Session>>>,
    /// Synchronous sends park the subscribers they must wait for here, so
    /// the vector's capacity is reused from send to send.
    waiting: Mutex<Vec<(Arc<Session>, Arc<Message>)>>,
    closed: AtomicBool,
    /// The `Delivery`, encoded (one load per send sees a consistent mode).
    delivery: AtomicU64,
    messages: AtomicU64,
    /// Whether `tap` is set (a send reads it without a lock when not).
    tapped: AtomicBool,
    tap: parking_lot::RwLock<Option<Tap>>,
    /// Whether `awaited` is set (a send reads it without a lock when not).
    /// Invariant: announcing, sending and joining read or change
    /// `awaiting` and `awaited` only while holding `sessions`, so a send
    /// comes wholly before or after an announcement, and a message is
    /// either offered to a session by its send or held for it, never both.
    awaiting: AtomicBool,
    /// Subscribers a client announced; locked after `sessions`, never
    /// before.
    awaited: Mutex<Option<Awaited>>,
}

/// Subscribers announced but not yet joined (`Stream::expect_subscriber`),
/// and the newest message sent while they were on their way.
///
/// A 0.9.14+ client asks for a sensor's token (an RPC it waits for) and only
/// then connects to the streaming port, on its own thread; a synchronous
/// client's next call, the tick, often reaches the world first, so the
/// frame it renders would go to no one and the client, waiting for that
/// frame, stalls (ScenarioRunner: "A sensor took too long to send its
/// data"). CARLA's cameras arrive a frame late and so lose this race
/// rarely. A message sent after the announcement is held for the
/// announced subscribers; one sent before it never is, so a client that
/// listens after a tick does not get that tick's frame, as in CARLA.
struct Awaited {
    /// Announced joins still to come.
    joins: u32,
    /// Past this, a join is no longer waited for and nothing is held.
    until: Instant,
    held: Option<Arc<Message>>,
}

/// How long an announced subscriber is waited for.
const AWAIT_JOIN: Duration = Duration::from_secs(2);

struct Shared {
    streams: Mutex<HashMap<u32, Arc<StreamState>>>,
    next_id: AtomicU32,
    /// Subscriber threads and their sessions, for an orderly shutdown.
    subscribers: Mutex<Vec<(JoinHandle<()>, Weak<Session>)>>,
}

/// Idle blocks kept per stream. Blocks are only made when a send needs
/// one (never ahead of need); a stream has at most one being filled, two
/// per subscriber (one being written, one waiting) and two for a 0.8
/// mirror out at once, plus any whose message was freed just after the
/// last reclaim, so a steady stream stops allocating once it has met its
/// in-flight peak, and an idle one keeps what that peak needed. A stream
/// published on ROS 2 is topped up ahead of need to the blocks that
/// publishing holds (`ros2::HELD_BLOCKS`, 7), which this must exceed.
const POOL_SIZE: usize = 8;

/// The streaming port and its streams.
pub(crate) struct StreamServer {
    shared: Arc<Shared>,
    port: Port,
}

impl StreamServer {
    /// Binds the streaming port (0 picks one). `timeout` bounds the
    /// handshake and every write to a subscriber.
    pub(crate) fn bind(ip: IpAddr, port: u16, timeout: Duration) -> Result<StreamServer, Error> {
        let shared = Arc::new(Shared {
            streams: Mutex::new(HashMap::new()),
            next_id: AtomicU32::new(0),
            subscribers: Mutex::new(Vec::new()),
        });
        let weak = Arc::downgrade(&shared);
        let port = Port::bind_with(ip, port, "streaming", Class::Streams, move |_| Subscribe {
            server: weak,
            timeout,
        })?;
        crate::log_info!("streaming port listening on {}", port.addr());
        Ok(StreamServer { shared, port })
    }

    /// The bound address.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.port.addr()
    }

    /// A new stream; ids are sequential from 1, below 2^28 (the bits
    /// above tag a client release, see `Release::tag_stream`).
    pub(crate) fn create_stream(&self) -> Stream {
        // Ids stay below 2^28 (the bits above tag a client release) and
        // skip ids still open once they wrap.
        let mut streams = self.shared.streams.lock();
        let id = loop {
            let n = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
            let id = n % (STREAM_ID_LIMIT - 1) + 1;
            if !streams.contains_key(&id) {
                break id;
            }
        };
        let state = Arc::new(StreamState {
            id,
            pool: Pool::new(POOL_SIZE),
            shells: Shells::new(),
            sessions: Mutex::new(Vec::new()),
            waiting: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
            delivery: AtomicU64::new(Delivery::Asynchronous.encode()),
            messages: AtomicU64::new(0),
            tapped: AtomicBool::new(false),
            tap: parking_lot::RwLock::new(None),
            awaiting: AtomicBool::new(false),
            awaited: Mutex::new(None),
        });
        streams.insert(id, state.clone());
        Stream {
            state,
            server: Arc::downgrade(&self.shared),
        }
    }

    /// Number of open streams.
    #[cfg(test)]
    pub(crate) fn stream_count(&self) -> usize {
        self.shared.streams.lock().len()
    }
}

impl StreamState {
    fn close(&self, abort: bool) {
        self.closed.store(true, Ordering::Release);
        for session in self.sessions.lock().drain(..) {
            if abort {
                session.abort();
            } else {
                session.close();
            }
        }
        self.shells.clear();
        self.awaiting.store(false, Ordering::Release);
        *self.awaited.lock() = None;
    }

    /// Holds `msg` for the announced subscribers, or forgets them once
    /// their time is up. The caller holds `sessions`.
    fn hold_for_awaited(&self, msg: &Arc<Message>) {
        let mut awaited = self.awaited.lock();
        match awaited.as_mut() {
            Some(a) if Instant::now() < a.until => a.held = Some(msg.clone()),
            _ => {
                *awaited = None;
                self.awaiting.store(false, Ordering::Release);
            }
        }
    }

    /// The message held for an announced subscriber that joins now, if
    /// any. The caller holds `sessions`.
    fn join_awaited(&self) -> Option<Arc<Message>> {
        let mut awaited = self.awaited.lock();
        let a = awaited.as_mut()?;
        let live = Instant::now() < a.until;
        let held = if live { a.held.clone() } else { None };
        a.joins = a.joins.saturating_sub(1);
        if a.joins == 0 || !live {
            *awaited = None;
            self.awaiting.store(false, Ordering::Release);
        }
        held
    }
}

/// A handle to one stream: cheap to clone, usable from any thread.
#[derive(Clone)]
pub(crate) struct Stream {
    state: Arc<StreamState>,
    server: Weak<Shared>,
}

impl Stream {
    /// The id a client sends to subscribe.
    pub(crate) fn id(&self) -> u32 {
        self.state.id
    }

    /// A pooled payload buffer (fill it, then `send`).
    pub(crate) fn pop_buffer(&self) -> Buffer {
        self.state.shells.reclaim();
        self.state.pool.pop()
    }

    /// Asynchronous (None: newest wins per subscriber, drops counted) or
    /// synchronous (Some(bound): a send waits up to `bound` per slow
    /// subscriber and never drops). Ends queued delivery.
    pub(crate) fn set_synchronous(&self, bound: Option<Duration>) {
        let delivery = match bound {
            None => Delivery::Asynchronous,
            Some(b) => Delivery::Synchronous {
                wait_ms: b.as_millis().clamp(1, u32::MAX as u128) as u32,
            },
        };
        self.set_delivery(delivery);
    }

    /// Queued delivery: each subscriber gets every message in order
    /// through a FIFO of `depth` (1..=`MAX_QUEUE_DEPTH`); a send never
    /// waits; a subscriber with `depth` unsent messages misses the new one
    /// (counted dropped). 0 returns to asynchronous delivery.
    pub(crate) fn set_queued(&self, depth: u32) -> Result<(), Error> {
        if depth > MAX_QUEUE_DEPTH {
            return Err(Error::InvalidArgument(format!(
                "stream {}: a queue depth of {depth} is over the largest, {MAX_QUEUE_DEPTH}",
                self.state.id
            )));
        }
        self.set_delivery(match depth {
            0 => Delivery::Asynchronous,
            depth => Delivery::Queued { depth },
        });
        Ok(())
    }

    pub(crate) fn set_delivery(&self, delivery: Delivery) {
        // Enough reusable shells for a stalled subscriber's whole queue.
        self.state.shells.keep_at_least(delivery.capacity());
        self.state
            .delivery
            .store(delivery.encode(), Ordering::Relaxed);
    }

    /// Sends one message to every subscriber (none: it is discarded).
    /// Errors: `StreamClosed` after the stream was closed, `SubscriberBusy`
    /// if a synchronous subscriber stayed busy past the bound,
    /// `InvalidArgument` if the message exceeds 4 GiB. Only a synchronous
    /// stream's send waits.
    pub(crate) fn send(&self, header: &[u8; HEADER_SIZE], payload: Buffer) -> Result<(), Error> {
        self.send_then(header, payload, |_| {})
    }

    /// `send`, also handing the shared message to `keep` (before any
    /// subscriber is offered it), which may keep a clone: the 0.8 mirror
    /// writes the same block instead of a copy.
    pub(crate) fn send_then(
        &self,
        header: &[u8; HEADER_SIZE],
        payload: Buffer,
        keep: impl FnOnce(&Arc<Message>),
    ) -> Result<(), Error> {
        let s = &self.state;
        if s.closed.load(Ordering::Acquire) {
            return Err(Error::StreamClosed { stream: s.id });
        }
        let len = u32::try_from(HEADER_SIZE + payload.len()).map_err(|_| {
            Error::InvalidArgument(format!(
                "stream {}: a message of {} bytes does not fit its u32 length prefix",
                s.id,
                HEADER_SIZE + payload.len()
            ))
        })?;
        s.messages.fetch_add(1, Ordering::Relaxed);
        let msg = s.shells.message(len.to_le_bytes(), header, payload);
        keep(&msg);
        if s.tapped.load(Ordering::Acquire) {
            if let Some(tap) = &*s.tap.read() {
                tap(&msg);
            }
        }
        let delivery = Delivery::decode(s.delivery.load(Ordering::Relaxed));
        let sync_ms = match delivery {
            Delivery::Synchronous { wait_ms } => wait_ms,
            _ => 0,
        };
        // Another sender of this stream may hold the scratch vector; then
        // this one starts from an empty one (which allocates only if used).
        let mut waiting = std::mem::take(&mut *s.waiting.lock());
        {
            let sessions = s.sessions.lock();
            for session in sessions.iter() {
                if let Offer::Full(m) = session.offer(&msg, delivery) {
                    waiting.push((session.clone(), m));
                }
            }
            if s.awaiting.load(Ordering::Acquire) {
                s.hold_for_awaited(&msg);
            }
        }
        drop(msg);
        let mut result = Ok(());
        for (session, m) in waiting.drain(..) {
            if session
                .offer_waiting(m, Duration::from_millis(sync_ms.into()))
                .is_err()
            {
                result = Err(Error::SubscriberBusy { stream: s.id });
            }
        }
        *s.waiting.lock() = waiting;
        result
    }

    /// A client is about to subscribe (it asked for the stream's token):
    /// until it joins, or for [`AWAIT_JOIN`], the newest message sent is
    /// held for it and written to it first when it joins.
    pub(crate) fn expect_subscriber(&self) {
        let s = &self.state;
        let _sessions = s.sessions.lock();
        let mut awaited = s.awaited.lock();
        let until = Instant::now() + AWAIT_JOIN;
        match awaited.as_mut() {
            Some(a) if Instant::now() < a.until => {
                a.joins = a.joins.saturating_add(1);
                a.until = until;
            }
            _ => {
                *awaited = Some(Awaited {
                    joins: 1,
                    until,
                    held: None,
                });
            }
        }
        s.awaiting.store(true, Ordering::Release);
    }

    /// Sets (or removes) the tap that sees every message from now on.
    pub(crate) fn set_tap(&self, tap: Option<Tap>) {
        let mut slot = self.state.tap.write();
        self.state.tapped.store(tap.is_some(), Ordering::Release);
        *slot = tap;
    }

    /// Counters so far.
    pub(crate) fn stats(&self) -> StreamStats {
        let s = &self.state;
        let sessions = s.sessions.lock();
        StreamStats {
            messages: s.messages.load(Ordering::Relaxed),
            subscribers: sessions.len(),
            dropped: sessions
                .iter()
                .map(|x| x.dropped.load(Ordering::Relaxed))
                .sum(),
            delivered: sessions
                .iter()
                .map(|x| x.sent.load(Ordering::Relaxed))
                .sum(),
            pool_allocations: s.pool.stats().allocations,
        }
    }

    /// Closes the stream: subscribers get the message being written, then
    /// end of file; later sends fail. Never waits on a subscriber.
    pub(crate) fn close(&self) {
        if let Some(server) = self.server.upgrade() {
            server.streams.lock().remove(&self.state.id);
        }
        self.state.close(false);
    }
}

/// The streaming port's acceptor: a new connection's handshake is its
/// stream id (four bytes within the time-out, read on the accept thread);
/// a known id gets a subscriber thread, an unknown one is closed there.
struct Subscribe {
    server: Weak<Shared>,
    timeout: Duration,
}

impl Acceptor for Subscribe {
    fn handshake(&mut self) -> Option<Handshake> {
        Some(Handshake {
            timeout: self.timeout,
            bytes: 4,
            keep: false,
        })
    }

    fn accept(&mut self, conn: Conn, first: Option<[u8; 4]>) {
        let Some(shared) = self.server.upgrade() else {
            return;
        };
        let raw = u32::from_le_bytes(first.unwrap_or_default());
        // A client of release R subscribes with the id R's endpoint gave it.
        let (release, id) = Release::split_stream_id(raw).unwrap_or((Release::NATIVE, raw));
        let Some(state) = shared.streams.lock().get(&id).cloned() else {
            crate::log_warn!(
                "streaming: {} asked for unknown stream id {}; closing",
                conn.peer(),
                raw
            );
            return;
        };
        let session = Arc::new(Session::new(&conn, release));
        let (sess, timeout) = (session.clone(), self.timeout);
        let spawned = crate::threads::spawn("carla-subscriber", move || {
            subscriber(state, id, conn, sess, timeout)
        });
        match spawned {
            Ok(handle) => {
                let mut subs = shared.subscribers.lock();
                subs.retain(|(h, _)| !h.is_finished());
                subs.push((handle, Arc::downgrade(&session)));
            }
            Err(e) => crate::log_error!("streaming: cannot start a subscriber thread: {}", e),
        }
    }
}

/// A subscriber's thread: write stream `id` until the session ends.
fn subscriber(
    state: Arc<StreamState>,
    id: u32,
    conn: Conn,
    session: Arc<Session>,
    timeout: Duration,
) {
    {
        let mut sessions = state.sessions.lock();
        if state.closed.load(Ordering::Acquire) {
            return;
        }
        sessions.push(session.clone());
        if state.awaiting.load(Ordering::Acquire) {
            if let Some(held) = state.join_awaited() {
                // A new session's slot is empty: this is queued, never full.
                let delivery = Delivery::decode(state.delivery.load(Ordering::Relaxed));
                let _ = session.offer(&held, delivery);
            }
        }
    }
    crate::log_info!(
        "streaming: {} subscribed to stream {}{}",
        conn.peer(),
        id,
        session.release_note()
    );
    let closed_by_stream = session.run(&conn, timeout);
    state.sessions.lock().retain(|s| !Arc::ptr_eq(s, &session));
    drop((session, state, conn)); // its messages go back now
    if !closed_by_stream {
        // Cut subscribers come in bursts (a stalled crowd): see `trim`.
        crate::streaming::trim::trim_soon();
    }
}

#[cfg(test)]
mod awaited_tests;
#[cfg(test)]
mod tests;
