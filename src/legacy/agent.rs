//! The agent server of one episode: the stream port (P+1) and the control
//! port (P+2), each served by its own thread, fed through lock-free slots.
//!
//! - measurements: game thread -> `Latest` slot -> stream thread (woken with
//!   `Thread::unpark`, which never blocks the writer and never loses a wake-up:
//!   an unpark before the park makes the park return at once);
//! - sensor data: any thread -> one `Latest` slot per sensor id -> stream thread
//!   (only sensors with new data go into a frame);
//! - controls: control thread -> `Latest` slot -> game thread (each delivered
//!   once; the reader waits on a condition variable the writer signals while
//!   holding its mutex, so no wake-up is lost).
//!
//! A frame goes out as one vectored write: `[N][Measurements]`, every new
//! sensor record `[N][id][header][data]` straight from its slot, and the
//! empty terminator, with no concatenation copy.

use crate::legacy::encode;
use crate::legacy::episode_end::{AgentPort, EndCause, EndsEpisode};
use crate::legacy::framing::{read_message, TERMINATOR};
use crate::legacy::proto;
use crate::legacy::world_port::NetConfig;
use crate::legacy::world_port::WorldShared;
use crate::net::port::{Missed, Rendezvous};
use crate::net::{deadline_in, Aborter, Conn};
use crate::sync::shared_bytes::SharedBytes;
use crate::sync::slot::Latest;
use crate::types::{Agent, Control, MeasurementsHeader};
use crate::Error;
use parking_lot::{Condvar, Mutex};
use prost::Message as _;
use std::collections::HashMap;
use std::io::IoSlice;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// One sensor's newest record `[N][id][header][data]`: `bytes` holds the
/// prefix, id and header, and the data too when the host handed a copy;
/// `shared` is data written straight from bytes another part holds (the
/// camera mirror: a 0.9 message's payload), so a mirrored image is not
/// copied.
#[derive(Default)]
pub(crate) struct Record {
    bytes: Vec<u8>,
    shared: Option<SharedBytes>,
}

/// One measurement as copied from the host (the agents vector only grows).
#[derive(Default)]
pub(crate) struct MeasurementCell {
    pub header: MeasurementsHeader,
    pub agents: Vec<Agent>,
}

/// Counters of one agent server, for status lines and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgentStats {
    /// Frames written to a stream client.
    pub frames_sent: u64,
    /// Bytes written to stream clients (frames including records).
    pub bytes_sent: u64,
    /// Measurements the host wrote that were replaced before being sent.
    pub measurements_overwritten: u64,
    /// Controls received from the client.
    pub controls_received: u64,
}

struct AgentShared {
    cfg: NetConfig,
    stop: AtomicBool,
    measurements: Latest<MeasurementCell>,
    stream_thread: OnceLock<Thread>,
    stream_error: ErrorSlot,
    control: Latest<Control>,
    control_lock: Mutex<()>,
    control_cv: Condvar,
    control_error: ErrorSlot,
    sensor_index: HashMap<u32, usize>,
    sensor_slots: Box<[Latest<Record>]>,
    /// Aborters of the live sessions, one slot per role.
    sessions: Mutex<[Option<Aborter>; 2]>,
    stream_clients: Arc<Rendezvous>,
    control_clients: Arc<Rendezvous>,
    /// This episode's armings of the two handoffs (the handoffs outlive
    /// episodes: only this episode's arming is cancelled by its end).
    armed: [u64; 2],
    /// Set once, by the first `end`.
    ended: AtomicBool,
    /// The control thread has finished (no control can come any more).
    control_finished: AtomicBool,
    /// The world port and the session this episode belongs to, which `end`
    /// closes when the client misbehaved.
    world: Weak<WorldShared>,
    world_session: u64,
    frames_sent: AtomicU64,
    bytes_sent: AtomicU64,
    overwritten: AtomicU64,
    controls: AtomicU64,
}

/// A running agent server.
pub(crate) struct AgentServer {
    shared: Arc<AgentShared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl AgentServer {
    /// Starts the stream and control threads; the two handoffs accept
    /// clients for them from now on.
    pub(crate) fn start(
        cfg: NetConfig,
        sensor_ids: &[u32],
        stream_clients: Arc<Rendezvous>,
        control_clients: Arc<Rendezvous>,
        world: Weak<WorldShared>,
    ) -> Result<AgentServer, Error> {
        let mut sensor_index = HashMap::with_capacity(sensor_ids.len());
        for &id in sensor_ids {
            let next = sensor_index.len();
            sensor_index.entry(id).or_insert(next);
        }
        let sensor_slots = (0..sensor_index.len()).map(|_| Latest::new()).collect();
        let armed = [stream_clients.arm(), control_clients.arm()];
        let shared = Arc::new(AgentShared {
            cfg,
            stop: AtomicBool::new(false),
            measurements: Latest::new(),
            stream_thread: OnceLock::new(),
            stream_error: ErrorSlot::default(),
            control: Latest::new(),
            control_lock: Mutex::new(()),
            control_cv: Condvar::new(),
            control_error: ErrorSlot::default(),
            sensor_index,
            sensor_slots,
            sessions: Mutex::new([None, None]),
            stream_clients,
            control_clients,
            armed,
            ended: AtomicBool::new(false),
            control_finished: AtomicBool::new(false),
            world_session: world.upgrade().map_or(0, |w| w.session_number()),
            world,
            frames_sent: AtomicU64::new(0),
            bytes_sent: AtomicU64::new(0),
            overwritten: AtomicU64::new(0),
            controls: AtomicU64::new(0),
        });
        let spawn = |name: &str, body: fn(Arc<AgentShared>)| {
            let s = shared.clone();
            crate::threads::spawn(name, move || body(s)).map_err(|e| Error::from_io(&e))
        };
        let agent = AgentServer {
            shared: shared.clone(),
            threads: Mutex::new(Vec::new()),
        };
        let stream = spawn("carla-stream", stream_loop)?;
        let _ = shared.stream_thread.set(stream.thread().clone());
        agent.threads.lock().push(stream);
        let control = spawn("carla-control", control_loop)?;
        agent.threads.lock().push(control);
        Ok(agent)
    }

    /// Stores the newest measurement for the stream thread. Reports a stream
    /// failure once (without storing), like 0.8.4.
    pub(crate) fn write_measurements(
        &self,
        header: &MeasurementsHeader,
        agents: &[Agent],
    ) -> Result<(), Error> {
        let s = &self.shared;
        if let Some(err) = s.stream_error.take() {
            return Err(err);
        }
        if s.ended() {
            return Err(Error::Aborted);
        }
        if s.measurements.has_new() {
            s.overwritten.fetch_add(1, Ordering::Relaxed);
        }
        let mut w = s.measurements.writer().map_err(|_| Error::Busy)?;
        w.with_mut(|cell| {
            cell.header = *header;
            cell.agents.clear();
            cell.agents.extend_from_slice(agents);
        });
        w.publish();
        drop(w);
        if let Some(t) = s.stream_thread.get() {
            t.unpark();
        }
        Ok(())
    }

    /// Stores the newest record `[N][id][header][data]` of sensor `id`
    /// (a copy of `data`).
    pub(crate) fn write_sensor_data(
        &self,
        id: u32,
        header: &[u8],
        data: &[u8],
    ) -> Result<(), Error> {
        self.write_record(id, header, data.len(), |cell| {
            cell.bytes.extend_from_slice(data);
        })
    }

    /// Stores the newest record of sensor `id` whose data is `data`,
    /// shared rather than copied.
    pub(crate) fn write_sensor_shared(
        &self,
        id: u32,
        header: &[u8],
        data: SharedBytes,
    ) -> Result<(), Error> {
        let len = data.as_slice().len();
        self.write_record(id, header, len, |cell| {
            cell.shared = Some(data);
        })
    }

    fn write_record(
        &self,
        id: u32,
        header: &[u8],
        data_len: usize,
        fill: impl FnOnce(&mut Record),
    ) -> Result<(), Error> {
        let s = &self.shared;
        let Some(&index) = s.sensor_index.get(&id) else {
            crate::log_warn!("sensor data for unknown sensor id {} dropped", id);
            return Err(Error::UnknownSensor(id));
        };
        let len = 4 + header.len() as u64 + data_len as u64;
        let Ok(len) = u32::try_from(len) else {
            crate::log_error!(
                "sensor {}: record of {} bytes does not fit the u32 length prefix",
                id,
                len
            );
            return Err(Error::InvalidArgument(format!(
                "sensor {id}: a record of {len} bytes does not fit the u32 length prefix"
            )));
        };
        let mut w = s.sensor_slots[index].writer().map_err(|_| Error::Busy)?;
        w.with_mut(|cell| {
            cell.bytes.clear();
            cell.shared = None;
            cell.bytes.extend_from_slice(&len.to_le_bytes());
            cell.bytes.extend_from_slice(&id.to_le_bytes());
            cell.bytes.extend_from_slice(header);
            fill(cell);
        });
        w.publish();
        // The cell the writer got back holds a value already sent or just
        // replaced: let go of its shared block now, not at the next write.
        w.with_mut(|cell| cell.shared = None);
        Ok(())
    }

    /// The newest control not yet read, waiting up to `timeout`. Reports a
    /// control-stream failure once; never returns a stale or phantom value.
    pub(crate) fn read_control(&self, timeout: Duration) -> Result<Control, Error> {
        let s = &self.shared;
        let take_error = || match s.control_error.take() {
            None => Ok(()),
            Some(err) => Err(err),
        };
        let mut reader = s.control.reader().map_err(|_| Error::Busy)?;
        // A control received before the connection failed comes first.
        if reader.update() {
            return Ok(*reader.get());
        }
        take_error()?;
        if s.control_finished.load(Ordering::Acquire) {
            return Err(Error::Aborted);
        }
        if timeout.is_zero() {
            return Err(Error::TryAgain);
        }
        let deadline = Instant::now() + timeout;
        let mut guard = s.control_lock.lock();
        loop {
            if reader.update() {
                return Ok(*reader.get());
            }
            take_error()?;
            if s.stop.load(Ordering::Acquire) || s.control_finished.load(Ordering::Acquire) {
                return Err(Error::Aborted);
            }
            if s.control_cv.wait_until(&mut guard, deadline).timed_out() {
                return if reader.update() {
                    Ok(*reader.get())
                } else {
                    Err(Error::TryAgain)
                };
            }
        }
    }

    /// A handle the world thread uses to end the episode when its client
    /// leaves.
    pub(crate) fn handle(&self) -> EpisodeHandle {
        EpisodeHandle(Arc::downgrade(&self.shared))
    }

    /// Counters so far.
    pub(crate) fn stats(&self) -> AgentStats {
        let s = &self.shared;
        AgentStats {
            frames_sent: s.frames_sent.load(Ordering::Relaxed),
            bytes_sent: s.bytes_sent.load(Ordering::Relaxed),
            measurements_overwritten: s.overwritten.load(Ordering::Relaxed),
            controls_received: s.controls.load(Ordering::Relaxed),
        }
    }

    /// Stops both threads without waiting on any client: sockets are shut
    /// down so blocked reads and writes return at once, then threads joined.
    pub(crate) fn shutdown(&self) {
        let s = &self.shared;
        s.stop.store(true, Ordering::Release);
        s.cancel_armings();
        for a in s.sessions.lock().iter().flatten() {
            a.abort();
        }
        if let Some(t) = s.stream_thread.get() {
            t.unpark();
        }
        drop(s.control_lock.lock());
        s.control_cv.notify_all();
        for t in self.threads.lock().drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for AgentServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// An error waiting to be reported to the host once. The flag keeps the
/// game thread's per-frame check to one atomic load.
#[derive(Default)]
struct ErrorSlot {
    set: AtomicBool,
    error: Mutex<Option<Error>>,
}

impl ErrorSlot {
    /// Stores `error` unless one is already waiting.
    fn report(&self, error: &Error) {
        let mut slot = self.error.lock();
        if slot.is_none() {
            *slot = Some(error.clone());
            self.set.store(true, Ordering::Release);
        }
    }

    /// The waiting error, once.
    fn take(&self) -> Option<Error> {
        if !self.set.load(Ordering::Acquire) {
            return None;
        }
        let mut slot = self.error.lock();
        self.set.store(false, Ordering::Release);
        slot.take()
    }
}

/// Ends an episode from outside its agent server (the world thread).
pub(crate) struct EpisodeHandle(Weak<AgentShared>);

impl EndsEpisode for EpisodeHandle {
    fn end(&self, cause: EndCause) {
        if let Some(shared) = self.0.upgrade() {
            shared.end(cause);
        }
    }
}

impl AgentShared {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    fn ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Refuses clients on both agent ports until the next episode arms them.
    fn cancel_armings(&self) {
        self.stream_clients.cancel_armed(self.armed[0]);
        self.control_clients.cancel_armed(self.armed[1]);
    }

    /// Ends the episode (the first cause wins): one log line, every agent
    /// connection closed and refused from now on, the cause reported to the
    /// host once on each side (a side that failed itself reports its own
    /// error), and the world session closed if the client misbehaved. When
    /// the world client left, the control connection is not cut: controls
    /// it already sent are still read, until its end of file or deadline.
    /// See `episode_end.rs`.
    fn end(&self, cause: EndCause) {
        if self.ended.swap(true, Ordering::AcqRel) || self.stopping() {
            return;
        }
        crate::log_warn!("{}", cause.describe(self.cfg.timeout));
        let code = cause.error();
        let drain_control = cause == EndCause::WorldClientLeft;
        self.stream_error.report(&code);
        if !drain_control {
            self.control_error.report(&code);
            // The control connection is cut below: no control can come.
            self.control_finished.store(true, Ordering::Release);
        }
        self.cancel_armings();
        let sessions = self.sessions.lock();
        let cut = if drain_control { 1 } else { 2 };
        for a in sessions[..cut].iter().flatten() {
            a.abort();
        }
        drop(sessions);
        self.notify_control();
        if cause.closes_world() {
            if let Some(world) = self.world.upgrade() {
                world.end_session(self.world_session);
            }
        }
    }

    /// The one client of `port` for this episode, or the episode ends if
    /// none comes within the server time-out.
    fn first_client(&self, port: AgentPort) -> Option<Conn> {
        let (clients, armed) = match port {
            AgentPort::Stream => (&self.stream_clients, self.armed[0]),
            AgentPort::Control => (&self.control_clients, self.armed[1]),
        };
        let deadline = Instant::now() + self.cfg.timeout;
        loop {
            match clients.take_until(Some(armed), Some(deadline)) {
                // A connection whose client already left: one that waited
                // in the port's backlog while an earlier episode's client
                // went away (its accept thread ran late). Taking it would
                // end this episode on an end of file that is not its own.
                Ok(conn) if conn.peer_closed() => crate::log_warn!(
                    "{} port: {} had already closed its connection when this episode took it \
                     (an earlier client's, accepted late); waiting for this episode's client",
                    port.name(),
                    conn.peer()
                ),
                Ok(conn) => return Some(conn),
                Err(Missed::TimedOut) => {
                    self.end(EndCause::NotOpened(port));
                    return None;
                }
                Err(Missed::Cancelled) => return None,
            }
        }
    }

    /// Registers the session of `role` so `shutdown` and `end` can abort
    /// it.
    fn register(&self, role: AgentPort, conn: &Conn) {
        self.sessions.lock()[role as usize] = Some(conn.aborter());
        // `shutdown` or `end` may have aborted the list before we were
        // added (a connection taken just before the episode ended, e.g. by
        // a misbehaving control client): close it too, as `end` would have
        // (the control connection only when `end` cut it, not while its
        // controls are drained). One of the two sees the other: `end`
        // marks the episode ended (and the control finished) before it
        // locks the list, and this reads the marks after adding to it.
        let cut = match role {
            AgentPort::Stream => self.ended(),
            AgentPort::Control => self.ended() && self.control_finished.load(Ordering::Acquire),
        };
        if self.stopping() || cut {
            conn.aborter().abort();
        }
    }

    fn unregister(&self, role: AgentPort) {
        self.sessions.lock()[role as usize] = None;
    }

    fn notify_control(&self) {
        drop(self.control_lock.lock());
        self.control_cv.notify_all();
    }
}

fn stream_loop(shared: Arc<AgentShared>) {
    let s = &*shared;
    let (Ok(mut measurement), Ok(mut sensors)) = (
        s.measurements.reader(),
        s.sensor_slots
            .iter()
            .map(|slot| slot.reader())
            .collect::<Result<Vec<_>, _>>(),
    ) else {
        return;
    };
    let mut fresh = vec![false; sensors.len()];
    let mut msg = proto::Measurements::default();
    let mut out = Vec::new();
    let mut slices_store: Vec<IoSlice<'static>> = Vec::with_capacity(2 * sensors.len() + 2);
    if let Some(conn) = s.first_client(AgentPort::Stream) {
        crate::log_info!("stream client connected from {}", conn.peer());
        s.register(AgentPort::Stream, &conn);
        let outcome = loop {
            while !measurement.update() {
                if s.stopping() {
                    return;
                }
                std::thread::park_timeout(Duration::from_secs(1));
            }
            if s.stopping() {
                return;
            }
            measurement.with(|m| encode::measurements_into(&m.header, &m.agents, &mut msg));
            out.clear();
            out.extend_from_slice(&[0; 4]);
            // Encoding into a Vec cannot fail (it grows as needed).
            let _ = msg.encode(&mut out);
            let len = (out.len() - 4) as u32;
            out[..4].copy_from_slice(&len.to_le_bytes());
            for (reader, fresh) in sensors.iter_mut().zip(fresh.iter_mut()) {
                *fresh = reader.update();
            }
            let mut slices = reuse(std::mem::take(&mut slices_store));
            slices.push(IoSlice::new(&out));
            for (reader, _) in sensors.iter().zip(&fresh).filter(|(_, f)| **f) {
                let record = reader.get();
                slices.push(IoSlice::new(&record.bytes));
                if let Some(shared) = &record.shared {
                    slices.push(IoSlice::new(shared.as_slice()));
                }
            }
            slices.push(IoSlice::new(&TERMINATOR));
            let bytes: usize = slices.iter().map(|b| b.len()).sum();
            let result = conn.write_all_vectored(&mut slices, deadline_in(s.cfg.timeout));
            slices_store = reuse(slices);
            // Sent: shared blocks go back to their pools now.
            for (reader, _) in sensors.iter_mut().zip(&fresh).filter(|(_, f)| **f) {
                reader.with_mut(|record| record.shared = None);
            }
            if let Err(code) = result {
                break code;
            }
            s.frames_sent.fetch_add(1, Ordering::Relaxed);
            s.bytes_sent.fetch_add(bytes as u64, Ordering::Relaxed);
        };
        s.unregister(AgentPort::Stream);
        s.end(EndCause::ConnectionEnded {
            port: AgentPort::Stream,
            peer: conn.peer(),
            error: outcome,
        });
    }
}

/// Empties a vector of slices and gives its allocation a new lifetime, so
/// the per-frame slice list never allocates after the first frame (the
/// in-place `collect` keeps the buffer because the element layout is equal).
fn reuse<'b>(mut v: Vec<IoSlice<'_>>) -> Vec<IoSlice<'b>> {
    v.clear();
    v.into_iter().map(|_| IoSlice::new(&[])).collect()
}

fn control_loop(shared: Arc<AgentShared>) {
    let s = &*shared;
    let Ok(mut writer) = s.control.writer() else {
        return;
    };
    let mut buf = Vec::with_capacity(64);
    if let Some(conn) = s.first_client(AgentPort::Control) {
        crate::log_info!("control client connected from {}", conn.peer());
        s.register(AgentPort::Control, &conn);
        let outcome = loop {
            // A client must send a control at least every T (0.8.4 rule).
            if let Err(code) = read_message(&conn, &mut buf, s.cfg.max_message, Some(s.cfg.timeout))
            {
                break code;
            }
            match proto::Control::decode(&buf[..]) {
                Ok(c) => {
                    writer.with_mut(|cell| *cell = encode::control_from_proto(&c));
                    writer.publish();
                    s.controls.fetch_add(1, Ordering::Relaxed);
                    s.notify_control();
                }
                Err(e) => {
                    crate::log_error!(
                        "control client {}: malformed Control ({} bytes): {}; closing the connection",
                        conn.peer(),
                        buf.len(),
                        e
                    );
                    break Error::Malformed;
                }
            }
        };
        s.unregister(AgentPort::Control);
        // The cause first: a host woken by `control_finished` must find it.
        s.end(EndCause::ConnectionEnded {
            port: AgentPort::Control,
            peer: conn.peer(),
            error: outcome,
        });
    }
    s.control_finished.store(true, Ordering::Release);
    s.notify_control();
}

#[cfg(test)]
#[path = "agent_tests.rs"]
mod tests;
