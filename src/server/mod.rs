//! `Server`: the public Rust API, one method per 0.8.4 C function.
//!
//! Owns the three bound ports, the world thread and the current episode's
//! agent server. All methods take `&self`; the game thread, a render thread
//! and a teardown can call them concurrently. Time-outs are the caller's
//! `t` (how long the call may wait); the server time-out `T` given at
//! connect bounds every socket operation.

mod ros2;
mod rpc;
mod sensor;

pub use rpc::Rpc;
pub use sensor::Sensor;

use crate::legacy::agent::{AgentServer, AgentStats};
use crate::legacy::encode;
use crate::legacy::framing::DEFAULT_MAX_MESSAGE;
use crate::legacy::world_port::{self, NetConfig, Outgoing, WorldShared};
use crate::net::port::{Divert, Port, Rendezvous};
use crate::sensor::table::SensorTable;
use crate::sync::shared_bytes::SharedBytes;
use crate::types::{Agent, Control, MeasurementsHeader, SensorDefinition, Transform};
use crate::Error;
use parking_lot::{Mutex, RwLock};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Settings fixed at connect time.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Address the three ports bind to (default 0.0.0.0, like 0.8.4).
    pub bind_ip: IpAddr,
    /// Largest message accepted from a client; a larger length prefix closes
    /// that connection with a logged error.
    pub max_message: u32,
    /// How long a 0.9 subscriber may take to send its stream id, and each
    /// write to it, before its connection is closed (default 10 s).
    pub stream_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind_ip: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            max_message: DEFAULT_MAX_MESSAGE,
            stream_timeout: Duration::from_secs(10),
        }
    }
}

/// What `connect` set up; dropped by `disconnect`.
struct Connection {
    cfg: NetConfig,
    world: Arc<WorldShared>,
    stream_clients: Arc<Rendezvous>,
    control_clients: Arc<Rendezvous>,
    ports: Vec<Port>,
    world_thread: Option<JoinHandle<()>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.world.stop();
        self.stream_clients.cancel();
        self.control_clients.cancel();
        if let Some(t) = self.world_thread.take() {
            let _ = t.join();
        }
        self.ports.clear();
    }
}

/// A CARLA 0.8.4-compatible server instance.
#[derive(Default)]
pub struct Server {
    config: Mutex<Config>,
    connection: RwLock<Option<Arc<Connection>>>,
    agent: RwLock<Option<Arc<AgentServer>>>,
    /// Sensor ids of the last scene description.
    scene_sensor_ids: Mutex<Vec<u32>>,
    /// A connect failure, reported once by the next request read.
    connect_error: AtomicI32,
    /// The 0.9 sensors and their streaming port.
    pub(crate) sensors: Arc<SensorTable>,
    /// The 0.9.16 world protocol's RPC endpoint, once bound.
    rpc: RwLock<Option<Arc<crate::rpc::RpcServer>>>,
    /// Where the world port sends 0.9 clients while the RPC endpoint
    /// shares it (see `listen_rpc`).
    divert: Divert,
}

fn millis(ms: u32) -> Duration {
    Duration::from_millis(u64::from(ms))
}

impl Server {
    /// A new, unconnected server.
    pub fn new() -> Server {
        Server::default()
    }

    /// A new server with the given settings.
    pub fn with_config(config: Config) -> Server {
        let server = Server::default();
        *server.config.lock() = config;
        server
    }

    /// Changes the settings; takes effect at the next `connect`.
    pub fn set_config(&self, config: Config) {
        *self.config.lock() = config;
    }

    /// The current settings.
    pub fn config(&self) -> Config {
        *self.config.lock()
    }

    /// Binds P, P+1 and P+2 and starts serving the world port. Returns at
    /// once; errors: `INVALID_PORT`, `ADDRESS_IN_USE`, `ALREADY_CONNECTED`.
    pub fn connect(&self, world_port: u32, server_timeout_ms: u32) -> Result<(), Error> {
        let mut slot = self.connection.write();
        if slot.is_some() {
            crate::log_error!("connect: this server is already connected");
            return Err(Error::AlreadyConnected);
        }
        if world_port == 0 || world_port > 65533 {
            crate::log_error!(
                "connect: invalid world port {} (P+2 must be <= 65535)",
                world_port
            );
            return Err(Error::InvalidPort);
        }
        let config = self.config();
        let cfg = NetConfig {
            timeout: millis(server_timeout_ms),
            max_message: config.max_message,
        };
        let world = Arc::new(WorldShared::default());
        // Wanted from the start: a client that connects right after this
        // returns must not be taken for a surplus connection.
        world.clients.arm();
        let stream_clients = Arc::new(Rendezvous::default());
        let control_clients = Arc::new(Rendezvous::default());
        let port = world_port as u16;
        let ports = vec![
            Port::bind_shared(
                config.bind_ip,
                port,
                "world",
                world.clients.clone(),
                self.divert.clone(),
                crate::net::port::first_bytes_deadline(cfg.timeout),
            )?,
            Port::bind(config.bind_ip, port + 1, "stream", stream_clients.clone())?,
            Port::bind(config.bind_ip, port + 2, "control", control_clients.clone())?,
        ];
        let w = world.clone();
        let world_thread = crate::threads::spawn("carla-world", move || world_port::run(w, cfg))
            .map_err(|e| Error::from_io(&e))?;
        crate::log_info!(
            "listening on {} (world), {} (stream), {} (control); server time-out {} ms",
            ports[0].addr(),
            ports[1].addr(),
            ports[2].addr(),
            server_timeout_ms
        );
        self.connect_error.store(0, Ordering::Relaxed);
        *slot = Some(Arc::new(Connection {
            cfg,
            world,
            stream_clients,
            control_clients,
            ports,
            world_thread: Some(world_thread),
        }));
        Ok(())
    }

    /// Like `connect`, but failures are reported by the next
    /// `read_request_new_episode` instead (the 0.8.4 `carla_server_connect`).
    pub fn connect_deferred(&self, world_port: u32, server_timeout_ms: u32) {
        if let Err(code) = self.connect(world_port, server_timeout_ms) {
            if code != Error::AlreadyConnected {
                self.connect_error.store(code.code(), Ordering::Relaxed);
            }
        }
    }

    /// `connect`, then wait up to the server time-out for the first world
    /// client (`OPERATION_ABORTED` if none came).
    pub fn connect_blocking(&self, world_port: u32, server_timeout_ms: u32) -> Result<(), Error> {
        self.connect(world_port, server_timeout_ms)?;
        let conn = self.connection().ok_or(Error::NotConnected)?;
        if conn.world.wait_connected(millis(server_timeout_ms)) {
            Ok(())
        } else {
            Err(Error::Aborted)
        }
    }

    /// The addresses of the world, stream and control ports, if connected.
    pub fn local_addrs(&self) -> Option<[SocketAddr; 3]> {
        let c = self.connection()?;
        Some([c.ports[0].addr(), c.ports[1].addr(), c.ports[2].addr()])
    }

    /// Stops everything without waiting on any client and frees the ports.
    /// The server can be connected again afterwards.
    pub fn disconnect(&self) {
        self.stop_agent();
        let conn = self.connection.write().take();
        if let Some(conn) = conn {
            conn.world.stop();
            drop(conn); // joins the world thread once the last user is gone
        }
        crate::log::flush();
    }

    fn connection(&self) -> Option<Arc<Connection>> {
        self.connection.read().clone()
    }

    fn current_agent(&self) -> Result<Arc<AgentServer>, Error> {
        self.agent.read().clone().ok_or(Error::Aborted)
    }

    fn stop_agent(&self) {
        let agent = self.agent.write().take();
        if let Some(agent) = agent {
            agent.shutdown();
        }
    }

    /// Waits up to `timeout_ms` for the next `RequestNewEpisode` and returns
    /// its settings text. On success the running agent server is stopped.
    pub fn read_request_new_episode(&self, timeout_ms: u32) -> Result<Vec<u8>, Error> {
        let err = self.connect_error.swap(0, Ordering::Relaxed);
        if err != 0 {
            return Err(Error::from_code(err));
        }
        let conn = self.connection().ok_or(Error::TryAgain)?;
        let ini = conn.world.read_request(millis(timeout_ms))?;
        self.stop_agent();
        Ok(ini)
    }

    /// Sends the scene description of this round; waits up to `timeout_ms`
    /// for the send (`TIMED_OUT`: not yet sent, it still goes out later).
    pub fn write_scene_description(
        &self,
        map_name: &str,
        player_start_spots: &[Transform],
        sensors: &[SensorDefinition],
        timeout_ms: u32,
    ) -> Result<(), Error> {
        let conn = self.connection().ok_or(Error::TimedOut)?;
        conn.world.can_send(Outgoing::Scene)?;
        *self.scene_sensor_ids.lock() = sensors.iter().map(|s| s.id).collect();
        let bytes = encode::scene_description(map_name, player_start_spots, sensors);
        conn.world.send(Outgoing::Scene, bytes, millis(timeout_ms))
    }

    /// Waits up to `timeout_ms` for the client's `EpisodeStart`; returns the
    /// start spot index as sent (not validated).
    pub fn read_episode_start(&self, timeout_ms: u32) -> Result<u32, Error> {
        let conn = self.connection().ok_or(Error::TryAgain)?;
        conn.world.read_episode_start(millis(timeout_ms))
    }

    /// Starts the agent server (if `ready`) and sends `EpisodeReady`.
    pub fn write_episode_ready(&self, ready: bool, timeout_ms: u32) -> Result<(), Error> {
        let conn = self.connection().ok_or(Error::TimedOut)?;
        conn.world.can_send(Outgoing::Ready)?;
        if ready {
            self.stop_agent();
            let ids = self.scene_sensor_ids.lock().clone();
            let agent = AgentServer::start(
                conn.cfg,
                &ids,
                conn.stream_clients.clone(),
                conn.control_clients.clone(),
                Arc::downgrade(&conn.world),
            )?;
            conn.world.set_episode(agent.handle());
            *self.agent.write() = Some(Arc::new(agent));
        } else {
            crate::log_error!("episode ready = false: the episode will not start");
        }
        conn.world.send(
            Outgoing::Ready,
            encode::episode_ready(ready),
            millis(timeout_ms),
        )
    }

    /// The newest control not yet read, waiting up to `timeout_ms`.
    pub fn read_control(&self, timeout_ms: u32) -> Result<Control, Error> {
        self.current_agent()?.read_control(millis(timeout_ms))
    }

    /// Queues sensor data (newest wins per sensor).
    pub fn write_sensor_data(&self, id: u32, header: &[u8], data: &[u8]) -> Result<(), Error> {
        self.current_agent()?.write_sensor_data(id, header, data)
    }

    /// Queues shared bytes (a 0.9 message's payload) as sensor `id`'s data
    /// (newest wins; shared with the 0.9 stream, not copied).
    pub(crate) fn write_sensor_shared(
        &self,
        id: u32,
        header: &[u8],
        data: SharedBytes,
    ) -> Result<(), Error> {
        self.current_agent()?.write_sensor_shared(id, header, data)
    }

    /// Queues this frame's measurements (newest wins).
    pub fn write_measurements(
        &self,
        header: &MeasurementsHeader,
        agents: &[Agent],
    ) -> Result<(), Error> {
        self.current_agent()?.write_measurements(header, agents)
    }

    /// Counters of the current episode's agent server.
    pub fn agent_stats(&self) -> Option<AgentStats> {
        self.agent.read().as_ref().map(|a| a.stats())
    }

    /// Whether a world client is connected right now.
    pub fn world_client_connected(&self) -> bool {
        self.connection().is_some_and(|c| c.world.is_connected())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.divert.write().take();
        self.rpc.write().take();
        self.sensors.shutdown();
        self.disconnect();
        // What the limiter still owes (a host often exits right after).
        crate::log::flush();
    }
}
