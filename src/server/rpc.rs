//! The 0.9.16 half of [`Server`]: the RPC endpoint the `carla` Python
//! package connects to, the requests the host polls each Tick, and the
//! episode state it sends after each tick's sensor data.

use super::Server;
use crate::rpc::{ActorState, Blueprint, EngineRequest, EpisodeFrame, EpisodeSettings, RpcServer};
use crate::types::ActorTransform;
use crate::Error;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

impl Server {
    /// Binds the CARLA 0.9.16 RPC port (`port` 0 picks a free one) on the
    /// configured address and returns its address. Streams (sensors and the
    /// world observer) go out on the streaming port, which is bound here on
    /// `port + 1` (CARLA's default) if it is not listening yet.
    ///
    /// One port for both protocols: if `port` is the 0.8 world port of this
    /// server (`connect` first), the two share it. Each new connection is
    /// told apart by its first four bytes (`net::sniff`); 0.8 clients are
    /// served as before, 0.9 clients by this endpoint. The streaming port
    /// must then be another than P + 1 (0.8's stream port): bind it first
    /// with `listen_streaming`, or it is bound on P + 3.
    pub fn listen_rpc(&self, port: u16) -> Result<SocketAddr, Error> {
        let mut slot = self.rpc.write();
        if let Some(r) = slot.as_ref() {
            crate::log_error!("the RPC port is already listening on {}", r.addr());
            return Err(Error::AlreadyConnected);
        }
        let world = self
            .local_addrs()
            .map(|a| a[0])
            .filter(|a| port != 0 && a.port() == port);
        let stream_addr = match self.streaming_addr() {
            Some(a) => a,
            None if port == 0 => self.listen_streaming(0)?,
            None if world.is_some() => self.listen_streaming(port.saturating_add(3))?,
            None => self.listen_streaming(port.saturating_add(1))?,
        };
        let config = self.config();
        let rpc = match world {
            Some(addr) => {
                let rpc = RpcServer::on_shared_port(
                    addr,
                    self.sensors.clone(),
                    stream_addr.port(),
                    config.stream_timeout,
                )?;
                *self.divert.write() = Some(Arc::new(rpc.acceptor()));
                rpc
            }
            None => RpcServer::bind(
                config.bind_ip,
                port,
                self.sensors.clone(),
                stream_addr.port(),
                config.stream_timeout,
            )?,
        };
        let addr = rpc.addr();
        *slot = Some(Arc::new(rpc));
        Ok(addr)
    }

    /// The RPC port's address, if listening.
    pub fn rpc_addr(&self) -> Option<SocketAddr> {
        self.rpc.read().as_ref().map(|r| r.addr())
    }

    fn rpc(&self) -> Result<Arc<RpcServer>, Error> {
        self.rpc.read().clone().ok_or_else(|| {
            Error::InvalidArgument("the RPC port is not listening (listen_rpc first)".into())
        })
    }

    /// The next request only the engine can carry out (spawn, destroy,
    /// settings, tick, ...), waiting up to `timeout` (zero: only what is
    /// queued now). Answer it with [`EngineRequest::succeed`] or
    /// [`EngineRequest::fail`]. Allocates nothing.
    pub fn rpc_poll(&self, timeout: Duration) -> Result<Option<EngineRequest>, Error> {
        Ok(self.rpc()?.poll(timeout))
    }

    /// Sends this tick's episode state (registry id 17): the host's actors
    /// in `states`, then every other live actor the library knows (the
    /// spectator, sensors spawned by clients). Call it after the tick's
    /// sensor data.
    pub fn rpc_send_episode_state(
        &self,
        frame: &EpisodeFrame,
        states: &[ActorState],
    ) -> Result<(), Error> {
        self.rpc()?.send_episode_state(frame, states)
    }

    /// Adds a blueprint (a vehicle, a walker, a prop) to the library's
    /// sensor blueprints; spawning it is a `SpawnActor` request.
    pub fn rpc_add_blueprint(&self, blueprint: Blueprint) -> Result<(), Error> {
        self.rpc()?.add_blueprint(blueprint);
        Ok(())
    }

    /// The map clients get: name, recommended spawn points, OpenDRIVE text.
    pub fn rpc_set_map(
        &self,
        name: &str,
        spawn_points: &[ActorTransform],
        opendrive: &str,
    ) -> Result<(), Error> {
        self.rpc()?.set_map(name, spawn_points, opendrive);
        Ok(())
    }

    /// The episode settings last applied.
    pub fn rpc_settings(&self) -> Result<EpisodeSettings, Error> {
        Ok(self.rpc()?.settings())
    }

    /// Makes one of the host's own actors (traffic, pedestrians, traffic
    /// lights, a player) known to 0.9 clients: `get_actors` lists it with
    /// blueprint `blueprint` (added before with [`Server::rpc_add_blueprint`])
    /// and `attributes` over the blueprint's defaults. `id` is the host's
    /// choice (not 0, not in use); send its state each tick with
    /// [`Server::rpc_send_episode_state`]. A client's `destroy()` of it is a
    /// `DestroyActor` request like any other.
    pub fn rpc_add_actor(
        &self,
        id: u32,
        blueprint: &str,
        attributes: &[(&str, &str)],
        transform: ActorTransform,
    ) -> Result<(), Error> {
        self.rpc()?
            .add_host_actor(id, blueprint, attributes, transform)
    }

    /// Forgets actor `id` (a host actor gone, or any actor the host
    /// removed itself); its sensor's stream, if any, ends.
    pub fn rpc_remove_actor(&self, id: u32) -> Result<(), Error> {
        if self.rpc()?.remove_actor(id) {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!("no actor {id} to remove")))
        }
    }

    /// Starts a new episode for 0.9 clients: every actor but the spectator
    /// is forgotten (client sensors' streams end) and the episode id
    /// changes (clients see a new world). Returns the new episode id.
    pub fn rpc_new_episode(&self) -> Result<u64, Error> {
        Ok(self.rpc()?.new_episode())
    }

    /// How clients' sensor streams and the world stream deliver in
    /// synchronous mode: 0 (the default) waits for a slow subscriber up to
    /// the time-out; `depth` (1..=64) queues that many messages per
    /// subscriber and never waits, for an engine whose render thread sends
    /// images (a subscriber that falls `depth` behind loses newer messages).
    pub fn rpc_set_stream_queue(&self, depth: u32) -> Result<(), Error> {
        self.rpc()?.set_sync_queue(depth)
    }

    /// How many 0.9 clients are connected now (0 if not listening).
    pub fn rpc_client_count(&self) -> usize {
        self.rpc.read().as_ref().map_or(0, |r| r.client_count())
    }

    /// The library sensor (its id for [`Server::sensor`]) of a spawned actor.
    pub fn rpc_sensor_of(&self, actor_id: u32) -> Result<u32, Error> {
        self.rpc()?
            .sensor_of(actor_id)
            .ok_or(Error::UnknownSensor(actor_id))
    }
}
