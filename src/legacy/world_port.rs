//! The world port (P): one thread runs the request/response rounds
//!
//! ```text
//! client -> RequestNewEpisode   server -> SceneDescription
//! client -> EpisodeStart        server -> EpisodeReady      (repeat)
//! ```
//!
//! and trades messages with the host through `WorldShared` (a mutex and a
//! condition variable; held only for a few instructions, never across I/O).
//! When a client leaves, the thread goes back to accepting the next one.

use crate::legacy::episode_end::{EndCause, EndsEpisode};
use crate::legacy::framing::{read_message, write_message};
use crate::legacy::proto;
use crate::net::port::Rendezvous;
use crate::net::{Aborter, Conn};
use crate::Error;
use parking_lot::{Condvar, Mutex, MutexGuard};
use prost::Message;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where the world thread is in the current round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Stage {
    /// No client.
    #[default]
    Idle,
    AwaitRequest,
    AwaitScene,
    AwaitStart,
    AwaitReady,
}

#[derive(Default)]
struct WorldState {
    stop: bool,
    stage: Stage,
    /// Results for the host, each reported once.
    request: Option<Result<Vec<u8>, Error>>,
    episode_start: Option<Result<u32, Error>>,
    /// Messages from the host, not yet sent.
    scene: Option<Vec<u8>>,
    ready: Option<Vec<u8>>,
    /// Outcomes of the last sends.
    scene_sent: Option<Result<(), Error>>,
    ready_sent: Option<Result<(), Error>>,
}

/// Which outgoing world message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outgoing {
    Scene,
    Ready,
}

/// State shared by the world thread and the host-facing calls.
pub(crate) struct WorldShared {
    state: Mutex<WorldState>,
    cv: Condvar,
    /// Connections accepted on the world port.
    pub clients: Arc<Rendezvous>,
    /// The current client's connection, and its session number.
    session: Mutex<Option<(u64, Aborter)>>,
    sessions_started: std::sync::atomic::AtomicU64,
    /// The current episode's agent server, ended when the client leaves.
    episode: Mutex<Option<Box<dyn EndsEpisode>>>,
}

/// Network settings of a connected server.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NetConfig {
    /// The server time-out `T`, the deadline of every socket operation.
    pub timeout: Duration,
    /// Largest message accepted from a client.
    pub max_message: u32,
}

impl Default for WorldShared {
    fn default() -> Self {
        WorldShared {
            state: Mutex::new(WorldState::default()),
            cv: Condvar::new(),
            clients: Arc::new(Rendezvous::default()),
            session: Mutex::new(None),
            sessions_started: std::sync::atomic::AtomicU64::new(0),
            episode: Mutex::new(None),
        }
    }
}

impl WorldShared {
    /// Locks the state; with a zero time-out only if it is free right now, so
    /// a polling game thread never waits on the world thread.
    fn lock(&self, timeout: Duration) -> Option<MutexGuard<'_, WorldState>> {
        if timeout.is_zero() {
            self.state.try_lock()
        } else {
            Some(self.state.lock())
        }
    }

    /// Waits up to `timeout` for a result picked by `take`.
    fn wait_result<T>(
        &self,
        timeout: Duration,
        pending_possible: impl Fn(&WorldState) -> bool,
        take: impl Fn(&mut WorldState) -> Option<Result<T, Error>>,
    ) -> Result<T, Error> {
        let deadline = Instant::now() + timeout;
        let Some(mut s) = self.lock(timeout) else {
            return Err(Error::TryAgain);
        };
        loop {
            if let Some(result) = take(&mut s) {
                return result;
            }
            if !pending_possible(&s) || self.cv.wait_until(&mut s, deadline).timed_out() {
                return take(&mut s).unwrap_or(Err(Error::TryAgain));
            }
        }
    }

    /// The next `RequestNewEpisode` (ini bytes) or the world session's error.
    pub(crate) fn read_request(&self, timeout: Duration) -> Result<Vec<u8>, Error> {
        self.wait_result(
            timeout,
            |s| matches!(s.stage, Stage::Idle | Stage::AwaitRequest),
            |s| s.request.take(),
        )
    }

    /// The next `EpisodeStart` index or the world session's error.
    pub(crate) fn read_episode_start(&self, timeout: Duration) -> Result<u32, Error> {
        self.wait_result(
            timeout,
            |s| s.stage == Stage::AwaitStart,
            |s| s.episode_start.take(),
        )
    }

    /// Whether the host may send `which` now (protocol order).
    pub(crate) fn can_send(&self, which: Outgoing) -> Result<(), Error> {
        let s = self.state.lock();
        let (stage_ok, queued) = match which {
            // As in 0.8.4, a scene written before the request was read is
            // queued and goes out right after the request.
            Outgoing::Scene => (
                matches!(s.stage, Stage::AwaitRequest | Stage::AwaitScene),
                s.scene.is_some(),
            ),
            Outgoing::Ready => (
                matches!(s.stage, Stage::AwaitStart | Stage::AwaitReady),
                s.ready.is_some(),
            ),
        };
        if s.stage == Stage::Idle {
            crate::log_warn!("{:?} not sent: no world client is connected", which);
            return Err(Error::TimedOut);
        }
        if !stage_ok || queued {
            crate::log_error!(
                "{:?} written out of protocol order (world thread at {:?})",
                which,
                s.stage
            );
            return Err(Error::InvalidArgument(format!(
                "{which:?} written out of protocol order (world thread at {:?})",
                s.stage
            )));
        }
        Ok(())
    }

    /// Queues a message for the world thread and waits up to `timeout` for
    /// it to be sent (`TIMED_OUT` if not yet; it is still sent later).
    pub(crate) fn send(
        &self,
        which: Outgoing,
        bytes: Vec<u8>,
        timeout: Duration,
    ) -> Result<(), Error> {
        self.can_send(which)?;
        let deadline = Instant::now() + timeout;
        let mut s = self.state.lock();
        match which {
            Outgoing::Scene => (s.scene, s.scene_sent) = (Some(bytes), None),
            Outgoing::Ready => (s.ready, s.ready_sent) = (Some(bytes), None),
        }
        self.cv.notify_all();
        loop {
            let sent = match which {
                Outgoing::Scene => s.scene_sent.take(),
                Outgoing::Ready => s.ready_sent.take(),
            };
            if let Some(result) = sent {
                return result;
            }
            if self.cv.wait_until(&mut s, deadline).timed_out() {
                return Err(Error::TimedOut);
            }
        }
    }

    /// Whether a world client is in session.
    pub(crate) fn is_connected(&self) -> bool {
        self.state.lock().stage != Stage::Idle
    }

    /// Waits up to `timeout` for a world client.
    pub(crate) fn wait_connected(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut s = self.state.lock();
        while s.stage == Stage::Idle {
            if self.cv.wait_until(&mut s, deadline).timed_out() {
                return s.stage != Stage::Idle;
            }
        }
        true
    }

    /// Makes `episode` the one ended when the world client leaves.
    pub(crate) fn set_episode(&self, episode: impl EndsEpisode + 'static) {
        *self.episode.lock() = Some(Box::new(episode));
    }

    /// The number of the current (or last) client session.
    pub(crate) fn session_number(&self) -> u64 {
        self.sessions_started
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Closes the connection of session `number` if it is still the
    /// current one (the world thread then reports it to the host and serves
    /// the next client).
    pub(crate) fn end_session(&self, number: u64) {
        if let Some((n, a)) = self.session.lock().as_ref() {
            if *n == number {
                a.abort();
            }
        }
    }

    /// Stops the world thread's waits and aborts its session.
    pub(crate) fn stop(&self) {
        self.state.lock().stop = true;
        self.cv.notify_all();
        self.clients.cancel();
        if let Some((_, a)) = self.session.lock().as_ref() {
            a.abort();
        }
    }

    fn update(&self, f: impl FnOnce(&mut WorldState)) {
        f(&mut self.state.lock());
        self.cv.notify_all();
    }

    /// World thread: waits for the host's message; None when stopping.
    fn next_outgoing(&self, which: Outgoing) -> Option<Vec<u8>> {
        let mut s = self.state.lock();
        loop {
            if s.stop {
                return None;
            }
            let queued = match which {
                Outgoing::Scene => s.scene.take(),
                Outgoing::Ready => s.ready.take(),
            };
            if queued.is_some() {
                return queued;
            }
            self.cv.wait(&mut s);
        }
    }
}

/// The world thread's body: serve clients one after the other until stopped.
pub(crate) fn run(shared: Arc<WorldShared>, config: NetConfig) {
    while let Some(conn) = shared.clients.take() {
        crate::log_info!("world client connected from {}", conn.peer());
        let number = 1 + shared
            .sessions_started
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        *shared.session.lock() = Some((number, conn.aborter()));
        shared.update(|s| {
            s.stage = Stage::AwaitRequest;
            (s.scene, s.ready, s.episode_start) = (None, None, None);
        });
        let outcome = session(&shared, &conn, config);
        *shared.session.lock() = None;
        if let Some(episode) = shared.episode.lock().take() {
            episode.end(EndCause::WorldClientLeft);
        }
        let stopping = shared.state.lock().stop;
        shared.update(|s| {
            s.stage = Stage::Idle;
            (s.scene, s.ready) = (None, None);
        });
        if stopping {
            break;
        }
        if let Err(code) = outcome {
            crate::log_info!("world client {} left: {}", conn.peer(), code);
        }
    }
}

fn session(shared: &WorldShared, conn: &Conn, cfg: NetConfig) -> Result<(), Error> {
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        // The first request must come within T; later ones may take forever
        // (the client is running an episode meanwhile).
        let timeout = if first { Some(cfg.timeout) } else { None };
        let request = read_message(conn, &mut buf, cfg.max_message, timeout)
            .and_then(|()| decode::<proto::RequestNewEpisode>(conn, &buf));
        let failed = request.as_ref().err().cloned();
        shared.update(|s| {
            s.request = Some(request.map(|r| r.ini_file.into_bytes()));
            if failed.is_none() {
                s.stage = Stage::AwaitScene;
            }
        });
        if let Some(code) = failed {
            return Err(code);
        }

        send(shared, conn, Outgoing::Scene, cfg)?;

        let start = read_message(conn, &mut buf, cfg.max_message, Some(cfg.timeout))
            .and_then(|()| decode::<proto::EpisodeStart>(conn, &buf));
        let failed = start.as_ref().err().cloned();
        shared.update(|s| {
            s.episode_start = Some(start.map(|m| m.player_start_spot_index));
            if failed.is_none() {
                s.stage = Stage::AwaitReady;
            }
        });
        if let Some(code) = failed {
            return Err(code);
        }

        send(shared, conn, Outgoing::Ready, cfg)?;
        first = false;
    }
}

fn send(shared: &WorldShared, conn: &Conn, which: Outgoing, cfg: NetConfig) -> Result<(), Error> {
    let bytes = shared.next_outgoing(which).ok_or(Error::Aborted)?;
    let result = write_message(conn, &bytes, cfg.timeout);
    // The outcome and the next stage change together, so a host that wakes
    // on the outcome finds the world thread already waiting for the reply.
    shared.update(|s| match which {
        Outgoing::Scene => {
            s.scene_sent = Some(result.clone());
            s.stage = Stage::AwaitStart;
        }
        Outgoing::Ready => {
            s.ready_sent = Some(result.clone());
            s.stage = Stage::AwaitRequest;
        }
    });
    result
}

fn decode<M: Message + Default>(conn: &Conn, buf: &[u8]) -> Result<M, Error> {
    M::decode(buf).map_err(|e| {
        crate::log_error!(
            "world client {}: malformed {} ({} bytes): {}; closing the connection",
            conn.peer(),
            std::any::type_name::<M>()
                .rsplit("::")
                .next()
                .unwrap_or("message"),
            buf.len(),
            e
        );
        Error::Malformed
    })
}
