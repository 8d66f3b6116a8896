//! The CARLA 0.9.16 world protocol, so the unmodified `carla` Python
//! package (PyPI, 0.9.16) can drive a host built on this library.
//!
//! - `endpoint`: the RPC port (rpclib-compatible msgpack-RPC over TCP) and
//!   `framing`, which finds whole requests before anything is decoded;
//! - `methods`: every method in one table (name, argument counts, how the
//!   client reads the answer, what runs it); `calls`, `part_calls`,
//!   `recording`, `ros` and `batch`: one function per method; `wire`: the msgpack
//!   shapes (`Response` envelope, structs in `MSGPACK_DEFINE_ARRAY` order);
//! - `world`: what the library answers without the engine (blueprints,
//!   actors, settings, map); `engine`: the queue of what only the engine
//!   can do (spawn, destroy, settings, tick, transforms, controls, weather),
//!   which the host polls each Tick and answers;
//! - `episode_state` and [`token`]: the world-observer message (registry
//!   id 17) and the 24-byte stream token;
//! - the plain data hosts hand over (actor states, settings: [`ActorState`],
//!   [`EpisodeSettings`], ...) is `crate::episode`'s, re-exported here.
//!
//! Sensors spawned by clients are the library's own sensors (one stream
//! each, on the streaming port); the host is told which kind to attach
//! where, and sends their data with the usual sensor calls.

mod actor_commands;
mod actors;
mod batch;
mod bones;
mod call;
mod calls;
mod clients;
mod components;
mod endpoint;
mod error;
use error::RpcError;
mod engine;
pub(crate) mod episode_state;
mod framing;
mod host;
mod host_boxes;
mod map_change;
mod maps;
mod methods;
pub mod nav;
mod part_calls;
pub(crate) mod physics;
mod quiet;
mod recording;
mod ros;
mod ros_calls;
mod spawn;
mod telemetry;
mod tm_pacing;
pub mod token;
mod traffic_managers;
mod wire;
mod wire_world;
pub(crate) mod world;

pub use crate::episode::{
    ActorBox, ActorState, BoneTransform, EpisodeFrame, EpisodeSettings,
    OpendriveGenerationParameters, VehicleControl09, VehicleTelemetry, Weather, WheelTelemetry,
    CARLA_ACTOR_OTHER, CARLA_ACTOR_TRAFFIC_LIGHT, CARLA_ACTOR_VEHICLE, CARLA_ACTOR_WALKER,
    CARLA_BONE_NAME_SIZE, CARLA_MAX_BONES, CARLA_TELEMETRY_WHEELS, DEFAULT_WEATHER,
};
pub use actor_commands::{ActorCommand, WorldCommand};
pub use calls::VERSION;
pub use clients::{ClientBudget, ClientUsage};
pub use engine::{EngineCall, EngineRequest};
pub use maps::MAX_MAPS;
pub use physics::{GearPhysics, VehiclePhysicsControl, WheelPhysics};
pub use world::{
    ActorKind, Blueprint, BlueprintAttribute, ATTR_BOOL, ATTR_FLOAT, ATTR_INT, ATTR_RGB,
    ATTR_STRING,
};

#[cfg(any(fuzzing, test))]
pub(crate) use endpoint::{parse_request, DECODE_DEPTH, LIMITS};
#[cfg(any(fuzzing, test))]
pub(crate) use framing::{FrameError, Framer, Limits};

use crate::net::fds::Class;
use crate::net::port::Port;
use crate::net::reactor::{Acceptor, Handshake};
use crate::net::{Aborter, Conn};
use crate::release::Release;
use crate::sensor::table::SensorTable;
use crate::streaming::stream::{Delivery, Stream};
use crate::Error;
use engine::EngineQueue;
use parking_lot::Mutex;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use world::World;

/// State shared by the RPC threads and the host's calls.
pub(crate) struct RpcShared {
    world: World,
    engine: EngineQueue,
    sensors: Arc<SensorTable>,
    observer: Stream,
    /// Holds the world-observer stream around a map load.
    quiet: quiet::Quiet,
    stream_port: u16,
    /// Bounds a partial request, a reply write and the wait for the host.
    timeout: Duration,
    client_count: AtomicUsize,
    /// Synchronous mode's delivery for clients' sensors and the world
    /// stream: 0 waits for slow subscribers (up to the time-out), n > 0
    /// queues n messages per subscriber and never waits.
    sync_queue: AtomicU32,
    /// Host-given ids of this tick, sorted, with their index (reused).
    scratch: Mutex<Vec<(u32, u32)>>,
    /// Which ports have a (client-side) Traffic Manager.
    traffic_managers: traffic_managers::TrafficManagers,
    /// The connected clients and their shares.
    clients: clients::Clients,
    /// The recording and the replay, if any.
    recorder: Mutex<recording::RecorderState>,
    /// The last frame promised to a tick queued by `tick_cue`.
    promised_frame: Arc<AtomicU64>,
    /// Ticks held for a client's Traffic Manager (see `tm_pacing`).
    pacing: tm_pacing::Pacing<HeldTick>,
}

/// A `tick_cue`'s tick not yet pushed: what gives its frame back if
/// refused, and the client's count of requests waiting.
type HeldTick = (engine::Undo, Option<clients::InFlight>);

impl RpcShared {
    /// Queues a tick for the host without waiting for it (as CARLA's
    /// `tick_cue`): the frame it will make. Each tick makes one frame, so
    /// the ticks still queued hold the frames after the last one sent: a
    /// tick gets the one after the last sent or promised. A tick the host
    /// refuses or drops gives its promise back (the next one may then be
    /// promised one frame late, which its client reads as a time-out).
    fn queue_tick(&self) -> Result<u64, RpcError> {
        let last = self.world.last_frame.load(Ordering::Relaxed);
        let promised = self.promised_frame.clone();
        let frame = promised
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| {
                Some(p.max(last) + 1)
            })
            .map_or(last + 1, |p| p.max(last) + 1);
        let give_back = Box::new(move || {
            let _ =
                promised.compare_exchange(frame, frame - 1, Ordering::Relaxed, Ordering::Relaxed);
        });
        let client = clients::current();
        let in_flight = match &client {
            Some(c) => Some(c.request()?),
            None => None,
        };
        let tick: HeldTick = (give_back, in_flight);
        let tick = match &client {
            Some(c) => {
                self.pacing
                    .tick(c.id, self.traffic_managers.owns(c.id), tick, Instant::now())
            }
            None => Some(tick),
        };
        match tick {
            Some(tick) => Ok(self.push_tick(tick).map(|()| frame)?),
            None => {
                // Held: the host's poll pushes it at its deadline, and
                // must not sleep past it.
                self.engine.wake();
                Ok(frame)
            }
        }
    }

    /// Queues a `tick_cue`'s tick for the host. With a reply slot nobody
    /// waits on: hosts answer ticks as before. A full queue drops the
    /// request, which gives the promise back.
    fn push_tick(&self, (give_back, in_flight): HeldTick) -> Result<(), String> {
        self.engine
            .push(EngineCall::Tick, true, Some(give_back), in_flight)
            .map(|_| ())
    }

    /// Pushes the held ticks that are due (their time is up, or their
    /// client `gone`); a refusal was logged by nobody else, so here.
    fn release_held_ticks(&self, gone: Option<u64>) {
        self.pacing.expired(Instant::now(), gone, |tick| {
            if let Err(e) = self.push_tick(tick) {
                crate::log_warn!("rpc: {}", e);
            }
        });
    }

    /// Asks the host and waits for its answer.
    fn ask(&self, call: EngineCall) -> Result<u64, RpcError> {
        self.ask_or_undo(call, None)
    }

    /// `ask`, waiting up to `bound` instead of the time-out (a map load,
    /// which may take the engine longer than a tick).
    fn ask_within(&self, call: EngineCall, bound: Duration) -> Result<u64, RpcError> {
        self.ask_bounded(call, None, bound)
    }

    /// `ask`, with what to undo if the host refuses or drops the request
    /// (run on the host's thread, before this returns the refusal).
    fn ask_or_undo(&self, call: EngineCall, undo: Option<engine::Undo>) -> Result<u64, RpcError> {
        self.ask_bounded(call, undo, self.timeout)
    }

    fn ask_bounded(
        &self,
        call: EngineCall,
        undo: Option<engine::Undo>,
        bound: Duration,
    ) -> Result<u64, RpcError> {
        let name = call.name();
        // The client's share or the queue full: this server refuses.
        let in_flight = match clients::current() {
            Some(c) => Some(c.request()?),
            None => None,
        };
        let slot = self
            .engine
            .push(call, true, undo, in_flight)?
            .expect("a waiting push has a slot");
        let answer = slot.wait(bound).unwrap_or_else(|| {
            Err(format!(
                "the simulator did not answer the {name} request within {bound:?}"
            ))
        });
        answer.map_err(RpcError::Host)
    }

    /// Tells the host, without waiting; a refusal (the queue or the
    /// client's share of it is full) is logged and returned.
    fn tell(&self, call: EngineCall) -> Result<(), RpcError> {
        let pushed = clients::current()
            .map(|c| c.request())
            .transpose()
            .and_then(|in_flight| {
                let pushed = self.engine.push(call, false, None, in_flight);
                pushed.map_err(RpcError::Refused)
            });
        pushed
            .map(|_| ())
            .inspect_err(|e| crate::log_warn!("rpc: {}", e))
    }

    /// What client `owner`'s actors hold: (sensors, actors, frame bytes).
    fn held_by(&self, owner: u64) -> (usize, usize, u64) {
        let actors = self.world.actors.read();
        actors
            .values()
            .filter(|a| a.owner == owner)
            .fold((0, 0, 0), |(s, n, b), a| {
                (s + usize::from(a.sensor != 0), n + 1, b + a.frame_bytes)
            })
    }

    /// Synchronous mode: sensor and world streams wait (up to the time-out)
    /// for slow subscribers instead of dropping messages, or, if the host
    /// asked for it (`set_sync_queue`), queue for each subscriber and never
    /// wait.
    fn apply_delivery_mode(&self) {
        let sync = self.world.settings.lock().synchronous_mode.get();
        let queue = self.sync_queue.load(Ordering::Relaxed);
        let delivery = match (sync, queue) {
            (false, _) => Delivery::Asynchronous,
            (true, 0) => Delivery::Synchronous {
                wait_ms: self.timeout.as_millis().clamp(1, u32::MAX as u128) as u32,
            },
            (true, depth) => Delivery::Queued { depth },
        };
        self.observer.set_delivery(delivery);
        for a in self.world.actors.read().values().filter(|a| a.sensor != 0) {
            if let Some(e) = self.sensors.get_quiet(a.sensor) {
                e.instance.set_delivery(delivery);
            }
        }
    }

    fn sensor_count(&self) -> usize {
        self.world
            .actors
            .read()
            .values()
            .filter(|a| a.sensor != 0)
            .count()
    }

    /// The token of stream `id` for a client of `release`.
    fn token(&self, id: u32, release: Release) -> [u8; token::TOKEN_SIZE] {
        token::token(release.tag_stream(id), self.stream_port)
    }

    fn write_actor(&self, out: &mut Vec<u8>, a: &world::Actor, release: Release) {
        let t = a.token_for_clients.then(|| self.token(a.sensor, release));
        wire_world::actor(out, a, t.as_ref().map(|t| &t[..]), release);
    }
}

/// The RPC endpoint of a server; the host reaches it through
/// [`crate::Server::rpc`] (its methods are in `host.rs`).
pub struct RpcServer {
    shared: Arc<RpcShared>,
    /// Its own port, unless it shares the 0.8 world port.
    port: Option<Port>,
    addr: SocketAddr,
    connections: Arc<Mutex<Vec<Client>>>,
    /// The ports of the other client releases it serves.
    release_ports: Mutex<Vec<(Release, Port)>>,
}

/// The RPC port's own acceptor: a client's first request must begin
/// within the first-bytes deadline, as on a port shared with 0.8.
struct FirstRequest<F> {
    accept: F,
    first_bytes: Duration,
}

impl<F: Fn(Conn) + Send + 'static> Acceptor for FirstRequest<F> {
    fn handshake(&mut self) -> Option<Handshake> {
        Some(Handshake {
            timeout: self.first_bytes,
            bytes: 1,
            keep: true,
        })
    }
    fn accept(&mut self, conn: Conn, _: Option<[u8; 4]>) {
        (self.accept)(conn)
    }
}

/// A client's thread and the handle that cuts its connection.
/// The aborter is the client thread's until it ends: it takes it back then,
/// so the socket (which the aborter's duplicate holds open) is closed at
/// once and a peer still writing gets a reset, not a stalled send.
type Client = (JoinHandle<()>, Arc<Mutex<Option<Aborter>>>);

impl RpcServer {
    /// Binds the RPC port; sensors and the world stream live on `sensors`'
    /// streaming port (`stream_port`).
    pub(crate) fn bind(
        ip: IpAddr,
        port: u16,
        sensors: Arc<SensorTable>,
        stream_port: u16,
        timeout: Duration,
    ) -> Result<RpcServer, Error> {
        let mut rpc = RpcServer::unbound(sensors, stream_port, timeout)?;
        let bound = rpc.bind_port(ip, port, Release::NATIVE, "rpc")?;
        rpc.addr = bound.addr();
        rpc.port = Some(bound);
        rpc.log_listening();
        Ok(rpc)
    }

    /// A port whose clients are served as clients of `release`; their
    /// first request must begin within the first-bytes deadline.
    fn bind_port(
        &self,
        ip: IpAddr,
        port: u16,
        release: Release,
        name: &'static str,
    ) -> Result<Port, Error> {
        let first_bytes = crate::net::port::first_bytes_deadline(self.shared.timeout);
        let accept = self.acceptor(release);
        Port::bind_with(ip, port, name, Class::World, move |_| FirstRequest {
            accept,
            first_bytes,
        })
    }

    /// An endpoint without a port of its own: it serves the connections
    /// handed to its [`acceptor`](Self::acceptor) (a port shared with the
    /// 0.8 world port, whose address is `addr`).
    pub(crate) fn on_shared_port(
        addr: SocketAddr,
        sensors: Arc<SensorTable>,
        stream_port: u16,
        timeout: Duration,
    ) -> Result<RpcServer, Error> {
        let mut rpc = RpcServer::unbound(sensors, stream_port, timeout)?;
        rpc.addr = addr;
        rpc.log_listening();
        Ok(rpc)
    }

    fn unbound(
        sensors: Arc<SensorTable>,
        stream_port: u16,
        timeout: Duration,
    ) -> Result<RpcServer, Error> {
        let observer = sensors.create_stream()?;
        let shared = Arc::new(RpcShared {
            world: World::new(),
            engine: EngineQueue::default(),
            promised_frame: Arc::new(AtomicU64::new(0)),
            sensors,
            observer,
            quiet: quiet::Quiet::default(),
            stream_port,
            timeout,
            client_count: AtomicUsize::new(0),
            sync_queue: AtomicU32::new(0),
            scratch: Mutex::new(Vec::with_capacity(256)),
            traffic_managers: Default::default(),
            clients: Default::default(),
            recorder: Default::default(),
            pacing: Default::default(),
        });
        ros_calls::install_control_sink(&shared);
        Ok(RpcServer {
            shared,
            port: None,
            addr: SocketAddr::from(([0, 0, 0, 0], 0)),
            connections: Arc::default(),
            release_ports: Mutex::default(),
        })
    }

    /// Binds another RPC port, on `ip`, for clients of `release` (0 picks
    /// a port); it serves the same world. Returns its address.
    pub(crate) fn listen_release(
        &self,
        ip: IpAddr,
        port: u16,
        release: Release,
    ) -> Result<SocketAddr, Error> {
        let mut ports = self.release_ports.lock();
        if let Some((_, p)) = ports.iter().find(|(r, _)| *r == release) {
            let e = format!("CARLA {release} clients are served on {} already", p.addr());
            crate::log_error!("rpc: {}", e);
            return Err(Error::AlreadyStarted(e));
        }
        let name = match release {
            Release::V0_9_12 => "rpc 0.9.12",
            Release::V0_9_13 => "rpc 0.9.13",
            Release::V0_9_14 => "rpc 0.9.14",
            Release::V0_9_15 => "rpc 0.9.15",
            Release::V0_9_16 => "rpc 0.9.16",
        };
        let bound = self.bind_port(ip, port, release, name)?;
        let addr = bound.addr();
        crate::log_info!(
            "rpc: CARLA {} world protocol listening on {} (streams on port {})",
            release,
            addr,
            self.shared.stream_port
        );
        ports.push((release, bound));
        Ok(addr)
    }

    /// Every release served and its RPC port's address, 0.9.16's first.
    pub fn release_addrs(&self) -> Vec<(Release, SocketAddr)> {
        let mut list = vec![(Release::NATIVE, self.addr)];
        list.extend(
            self.release_ports
                .lock()
                .iter()
                .map(|(r, p)| (*r, p.addr())),
        );
        list
    }

    fn log_listening(&self) {
        crate::log_info!(
            "rpc: CARLA {} world protocol listening on {} (streams on port {})",
            calls::VERSION,
            self.addr,
            self.shared.stream_port
        );
    }

    /// What serves a new client connection: one thread per client, at
    /// most `MAX_CLIENTS`. It holds the endpoint weakly: once the endpoint
    /// is dropped, connections handed to it are closed.
    pub(crate) fn acceptor(&self, release: Release) -> impl Fn(Conn) + Send + Sync + 'static {
        let (shared, conns) = (
            Arc::downgrade(&self.shared),
            Arc::downgrade(&self.connections),
        );
        move |conn| {
            let (Some(s), Some(conns)) = (shared.upgrade(), conns.upgrade()) else {
                return;
            };
            if s.client_count.load(Ordering::Relaxed) >= endpoint::MAX_CLIENTS {
                crate::log_warn!(
                    "rpc: {} refused: {} clients are connected already (the most this server serves)",
                    conn.peer(),
                    endpoint::MAX_CLIENTS
                );
                return;
            }
            static NEXT_CLIENT: AtomicU64 = AtomicU64::new(1);
            let id = NEXT_CLIENT.fetch_add(1, Ordering::Relaxed);
            let share = match s.clients.connect(id, conn.peer(), release) {
                Ok(share) => share,
                Err(e) => {
                    crate::log_warn!("rpc: {} refused: {}", conn.peer(), e);
                    return;
                }
            };
            s.client_count.fetch_add(1, Ordering::Relaxed);
            let aborter = Arc::new(Mutex::new(Some(conn.aborter())));
            let (s2, mine) = (s.clone(), aborter.clone());
            let spawned = crate::threads::spawn("carla-rpc-client", move || {
                endpoint::serve(s2.clone(), conn, share);
                mine.lock().take();
                s2.clients.disconnect(id);
                s2.client_count.fetch_sub(1, Ordering::Relaxed);
            });
            match spawned {
                Ok(handle) => {
                    let mut list = conns.lock();
                    list.retain(|(h, _)| !h.is_finished());
                    list.push((handle, aborter));
                }
                Err(e) => {
                    s.clients.disconnect(id);
                    s.client_count.fetch_sub(1, Ordering::Relaxed);
                    crate::log_error!("rpc: cannot start a client thread: {}", e);
                }
            }
        }
    }
}

impl Drop for RpcServer {
    fn drop(&mut self) {
        self.port.take(); // no new clients
        self.release_ports.lock().clear();
        let conns = std::mem::take(&mut *self.connections.lock());
        for (_, aborter) in &conns {
            if let Some(a) = &*aborter.lock() {
                a.abort();
            }
        }
        self.shared.engine.drain();
        for (h, _) in conns {
            let _ = h.join();
        }
        self.shared.engine.drain();
        self.shared.observer.close();
    }
}
