//! What the host does with the RPC endpoint, through
//! [`crate::Server::rpc`]: poll the requests only the engine can carry out,
//! send each tick's episode state, describe blueprints, the map and its own
//! actors, start new episodes.

use super::episode_state::{self, EpisodeHeader};
use super::world::ActorKind;
use super::world::{LastState, Seen, World};
use super::{
    ActorState, Blueprint, BoneTransform, ClientBudget, ClientUsage, EngineRequest, EpisodeFrame,
    EpisodeSettings, RpcServer, VehicleControl09, VehicleTelemetry, CARLA_ACTOR_VEHICLE,
};
use crate::sensor::{SensorHeader, SensorType};
use crate::streaming::stream::MAX_QUEUE_DEPTH;
use crate::types::ActorTransform;
use crate::Error;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

impl RpcServer {
    /// The RPC port's address (the 0.8 world port's, when they share it).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The next request only the engine can carry out (spawn, destroy,
    /// settings, tick, ...), waiting up to `timeout` (zero: only what is
    /// queued now). Answer it with [`EngineRequest::succeed`] or
    /// [`EngineRequest::fail`]. Allocates nothing.
    pub fn poll(&self, timeout: Duration) -> Option<EngineRequest> {
        let deadline = Instant::now() + timeout;
        loop {
            // Ticks held for a Traffic Manager (see `tm_pacing`) go at
            // their deadlines: push the due ones, look again soon.
            let mut step = deadline.saturating_duration_since(Instant::now());
            if self.shared.pacing.holding() {
                self.shared.release_held_ticks(None);
                step = step.min(super::tm_pacing::RECHECK);
            }
            if let Some(r) = self.shared.engine.poll(step) {
                return Some(r);
            }
            if Instant::now() >= deadline {
                return None;
            }
        }
    }

    /// Adds a blueprint (a vehicle, a walker, a prop) to the library's
    /// sensor blueprints; spawning it is a `SpawnActor` request.
    pub fn add_blueprint(&self, blueprint: Blueprint) {
        self.shared.world.add_blueprint(blueprint);
    }

    /// The map clients get: name (CARLA's are `Carla/Maps/Town01`),
    /// recommended spawn points, OpenDRIVE text. Another name or text than
    /// before is a map change: the next episode states carry the MapChange
    /// flag, so connected clients fetch the new map at their next
    /// `world.get_map()` (call it before the [`RpcServer::new_episode`] of
    /// the new map's first episode).
    pub fn set_map(&self, name: &str, spawn_points: &[ActorTransform], opendrive: &str) {
        let w = &self.shared.world;
        let mut map = w.map.write();
        let changed = map.name != name || map.opendrive != opendrive;
        map.name = name.to_owned();
        map.spawn_points = spawn_points.to_vec();
        if map.opendrive != opendrive {
            map.opendrive = opendrive.to_owned();
            self.shared.sensors.ros.set_map(opendrive);
        }
        drop(map);
        if changed {
            crate::log_info!("rpc: map {} ({} bytes of OpenDRIVE)", name, opendrive.len());
            w.map_change.lock().changed();
        }
    }

    /// The maps clients may load (`client.load_world(name)`), bare names
    /// such as `Town01` (a directory or `.umap` is taken off): clients'
    /// `get_available_maps()` lists them as `/Game/Carla/Maps/Town01`, and
    /// a `load_world` of one of them (or of the current map, or of
    /// `OpenDriveMap` once a world was built from OpenDRIVE) becomes an
    /// [`super::EngineCall::LoadEpisode`] naming it as given here. Replaces the
    /// previous list. Until it is called, clients may load the current map
    /// only. An empty name, one over 256 bytes or with control
    /// characters, or a name listed twice (ASCII case ignored) is
    /// [`Error::InvalidArgument`], and the list is unchanged.
    pub fn set_available_maps(&self, names: &[&str]) -> Result<(), Error> {
        let list = super::maps::checked_list(names).map_err(|e| {
            crate::log_error!("rpc: set_available_maps: {}", e);
            Error::InvalidArgument(e)
        })?;
        *self.shared.world.available_maps.write() = Some(list);
        Ok(())
    }

    /// The walkable surfaces of the map (sidewalks, crosswalks, roads,
    /// grass), for 0.9 clients' walkers: the library builds the navigation
    /// file the client loads (see [`super::nav`]), so
    /// `get_random_location_from_navigation()` returns sidewalk points and
    /// `controller.ai.walker` walks walkers there (the client moves them
    /// with walker states, `ActorCommand::WalkerState`). Replaces the
    /// previous mesh; clients load it at their next episode.
    pub fn set_navigation(&self, polygons: &[crate::rpc::nav::NavPolygon]) -> Result<(), Error> {
        let bytes = crate::rpc::nav::build(polygons).map_err(Error::InvalidArgument)?;
        let mut map = self.shared.world.map.write();
        // FNV-1a: a stable name per content (clients cache by name).
        let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
        });
        let stem = map.name.rsplit('/').next().unwrap_or("map").to_owned();
        let name = format!("Carla/Maps/Nav/{stem}-{hash:016x}.bin");
        crate::log_info!(
            "rpc: navigation mesh {} ({} polygons, {} bytes)",
            name,
            polygons.len(),
            bytes.len()
        );
        map.navigation = Some((name, bytes.into()));
        Ok(())
    }

    /// Makes one of the host's own actors (traffic, pedestrians, traffic
    /// lights, a player) known to 0.9 clients: `get_actors` lists it with
    /// blueprint `blueprint` (added before with [`RpcServer::add_blueprint`])
    /// and `attributes` over the blueprint's defaults. `id` is the host's
    /// choice (not 0, not in use); send its state each tick with
    /// [`RpcServer::send_episode_state`]. A client's `destroy()` of it is a
    /// `DestroyActor` request like any other.
    pub fn add_actor(
        &self,
        id: u32,
        blueprint: &str,
        attributes: &[(&str, &str)],
        transform: ActorTransform,
    ) -> Result<(), Error> {
        self.shared
            .world
            .add_host_actor(id, blueprint, attributes, transform)
            .map_err(|e| {
                crate::log_error!("rpc: cannot add actor {}: {}", id, e);
                Error::InvalidArgument(e)
            })?;
        let hero =
            self.shared.world.actors.read().get(&id).and_then(|a| {
                super::ros::hero_name(a).map(|name| (name, super::ros::vehicle_info(a)))
            });
        if let Some((name, info)) = hero {
            self.shared.sensors.ros.register_vehicle(id, &name, info);
        }
        Ok(())
    }

    /// Forgets actor `id` (a host actor gone, or any actor the host
    /// removed itself); its sensor's stream, if any, ends. The spectator
    /// and unknown ids are [`Error::InvalidArgument`].
    pub fn remove_actor(&self, id: u32) -> Result<(), Error> {
        if self.forget_actor(id) {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!("no actor {id} to remove")))
        }
    }

    /// Reports vehicle `id`'s telemetry, what a client's
    /// `get_telemetry_data()` answers: the host's answer to an
    /// [`EngineCall::VehicleTelemetry`](super::EngineCall::VehicleTelemetry).
    /// Unknown ids, actors that are not vehicles, more than
    /// [`CARLA_TELEMETRY_WHEELS`](super::CARLA_TELEMETRY_WHEELS) wheels and
    /// non-finite numbers are [`Error::InvalidArgument`].
    pub fn set_vehicle_telemetry(&self, id: u32, t: &VehicleTelemetry) -> Result<(), Error> {
        if t.wheel_count > super::CARLA_TELEMETRY_WHEELS {
            return Err(Error::InvalidArgument(format!(
                "telemetry of {} wheels (at most {})",
                t.wheel_count,
                super::CARLA_TELEMETRY_WHEELS
            )));
        }
        if !super::telemetry::finite(t) {
            return Err(Error::InvalidArgument(format!(
                "telemetry of vehicle {id} has a number that is not finite"
            )));
        }
        self.report(id, ActorKind::Vehicle, "vehicle", |s| s.set_telemetry(t))
    }

    /// Reports walker `id`'s skeleton, what a client's `get_bones()`
    /// answers: the host's answer to an
    /// [`EngineCall::WalkerBones`](super::EngineCall::WalkerBones), its
    /// bones (parents first, as the client lists them). Unknown ids, actors
    /// that are not walkers, more than
    /// [`CARLA_MAX_BONES`](super::CARLA_MAX_BONES) bones, a name that is
    /// empty, not NUL-terminated or not UTF-8, and non-finite numbers are
    /// [`Error::InvalidArgument`] (nothing is kept).
    pub fn set_walker_bones(&self, id: u32, bones: &[BoneTransform]) -> Result<(), Error> {
        super::bones::check_report(bones)
            .map_err(|e| Error::InvalidArgument(format!("bones of walker {id}: {e}")))?;
        self.report(id, ActorKind::Walker, "walker", |s| s.set_bones(bones))
    }

    /// Hands the host's report to actor `id`'s last state with `keep`; an
    /// unknown id, or an actor not of `kind` (named `what`), is
    /// [`Error::InvalidArgument`].
    fn report(
        &self,
        id: u32,
        kind: ActorKind,
        what: &str,
        keep: impl FnOnce(&LastState),
    ) -> Result<(), Error> {
        let actors = self.shared.world.actors.read();
        match actors.get(&id) {
            Some(a) if a.kind == kind => {
                keep(&a.last);
                Ok(())
            }
            Some(a) => Err(Error::InvalidArgument(format!(
                "actor {id} is a {}, not a {what}",
                a.blueprint
            ))),
            None => Err(Error::InvalidArgument(format!("no actor {id}"))),
        }
    }

    /// Forgets actor `id` (and its sensor, whose stream ends); false if
    /// there is no such actor or it is the spectator.
    fn forget_actor(&self, id: u32) -> bool {
        if id == self.shared.world.spectator {
            return false;
        }
        let removed = self.shared.world.actors.write().remove(&id);
        self.shared.sensors.ros.forget_vehicle(id);
        if let Some(a) = &removed {
            if a.sensor != 0 {
                let _ = self.shared.sensors.destroy(a.sensor);
            }
        }
        removed.is_some()
    }

    /// Says which traffic lights form a group (those of one junction, which
    /// cycle together): `traffic_light.get_group_traffic_lights()` of any
    /// of them answers `ids`, in this order. Each id must be a
    /// `traffic.traffic_light` actor added before; a light moves out of its
    /// old group. [`RpcServer::new_episode`] forgets the groups.
    pub fn set_traffic_light_group(&self, ids: &[u32]) -> Result<(), Error> {
        let w = &self.shared.world;
        {
            let actors = w.actors.read();
            for id in ids {
                let light = actors.get(id).map(|a| a.kind == ActorKind::TrafficLight);
                if light != Some(true) {
                    return Err(Error::InvalidArgument(format!(
                        "actor {id} is not a traffic light known to clients"
                    )));
                }
            }
        }
        let group: std::sync::Arc<[u32]> = ids.into();
        let mut groups = w.light_groups.write();
        for id in ids {
            groups.insert(*id, group.clone());
        }
        Ok(())
    }

    /// Starts a new episode for 0.9 clients: every actor but the spectator
    /// is forgotten (client sensors' streams end) and the episode id
    /// changes (clients see a new world). Returns the new episode id.
    pub fn new_episode(&self) -> u64 {
        let w = &self.shared.world;
        let gone: Vec<u32> = w
            .actors
            .read()
            .keys()
            .copied()
            .filter(|id| *id != w.spectator)
            .collect();
        for id in gone {
            self.forget_actor(id);
        }
        w.light_groups.write().clear();
        w.episode_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// How clients' sensor streams and the world stream deliver in
    /// synchronous mode: 0 (the default) waits for a slow subscriber up to
    /// the time-out; `depth` (1..=64) queues that many messages per
    /// subscriber and never waits, for an engine whose render thread sends
    /// images (a subscriber that falls `depth` behind loses newer
    /// messages). Applied to the streams at once.
    pub fn set_stream_queue(&self, depth: u32) -> Result<(), Error> {
        if depth > MAX_QUEUE_DEPTH {
            return Err(Error::InvalidArgument(format!(
                "a queue depth of {depth} is over the largest, {MAX_QUEUE_DEPTH}"
            )));
        }
        self.shared.sync_queue.store(depth, Ordering::Relaxed);
        self.shared.apply_delivery_mode();
        Ok(())
    }

    /// How many 0.9 clients are connected now.
    pub fn client_count(&self) -> usize {
        self.shared.client_count.load(Ordering::Relaxed)
    }

    /// Sets each client's share (see [`ClientBudget`]; takes effect at
    /// once, for calls made from now on).
    pub fn set_client_budget(&self, budget: ClientBudget) {
        self.shared.clients.set_budget(budget);
    }

    /// Each client's share now.
    pub fn client_budget(&self) -> ClientBudget {
        self.shared.clients.budget()
    }

    /// What each connected client holds now, in connection order.
    pub fn client_usage(&self) -> Vec<ClientUsage> {
        self.shared.clients.usage(|id| self.shared.held_by(id))
    }

    /// The episode settings last applied: a `set_episode_settings` the
    /// host is being asked about counts already (from the moment its
    /// request is queued; a refusal puts the earlier settings back).
    pub fn settings(&self) -> EpisodeSettings {
        *self.shared.world.settings.lock()
    }

    /// The library sensor (its id for [`crate::Server::sensor`]) of a
    /// spawned actor; [`Error::UnknownSensor`] if it has none.
    pub fn sensor_of(&self, actor_id: u32) -> Result<u32, Error> {
        let actors = self.shared.world.actors.read();
        actors
            .get(&actor_id)
            .map(|a| a.sensor)
            .filter(|s| *s != 0)
            .ok_or(Error::UnknownSensor(actor_id))
    }

    /// Sends this tick's episode state (registry id 17): the host's actors
    /// in `states`, then every other live actor the library knows (the
    /// spectator, sensors spawned by clients, which follow their parents).
    /// Call it after the tick's sensor data. Allocates nothing once the
    /// stream's pool is warm.
    pub fn send_episode_state(
        &self,
        frame: &EpisodeFrame,
        states: &[ActorState],
    ) -> Result<(), Error> {
        let s = &*self.shared;
        // While a map load runs the message is not sent (`super::quiet`);
        // the map change's flag waits for the states that are.
        let send = s.quiet.may_send();
        let header = EpisodeHeader {
            episode_id: s.world.episode_id.load(Ordering::Relaxed),
            platform_seconds: frame.platform_seconds,
            delta_seconds: frame.delta_seconds as f32,
            simulation_state: if send {
                s.world.map_change.lock().next_state(Instant::now())
            } else {
                0
            },
        };
        let mut given = s.scratch.lock();
        given.clear();
        given.extend(states.iter().enumerate().map(|(i, st)| (st.id, i as u32)));
        given.sort_unstable();
        let lookup = |id: u32| {
            given
                .binary_search_by_key(&id, |p| p.0)
                .ok()
                .map(|i| states[given[i].1 as usize].transform)
        };
        let actors = s.world.actors.read();
        for st in states {
            if let Some(a) = actors.get(&st.id) {
                let vehicle = st.kind == CARLA_ACTOR_VEHICLE;
                a.last.set(Seen {
                    transform: st.transform,
                    velocity: st.velocity,
                    control: if vehicle {
                        st.vehicle_control
                    } else {
                        VehicleControl09::default()
                    },
                });
            }
        }
        let seq = s.world.states_composed.fetch_add(1, Ordering::Relaxed) + 1;
        let mut buf = s.observer.pop_buffer();
        buf.append_with(|v| {
            episode_state::write_header(v, &header);
            for st in states {
                episode_state::write_actor(v, st, &st.transform);
            }
            for a in actors.values().filter(|a| lookup(a.id).is_none()) {
                let t = World::world_transform(&actors, a, &lookup);
                let st = ActorState {
                    id: a.id,
                    ..Default::default()
                };
                episode_state::write_actor(v, &st, &t);
            }
        });
        s.record_tick(frame, states, &given, &actors);
        let shape = |id: u32| actors.get(&id).map(super::ros::shape);
        s.sensors.ros.tick(frame.elapsed_seconds, states, &shape);
        drop((actors, given));
        let h = SensorHeader::new(
            SensorType::WorldObserver,
            frame.frame,
            frame.elapsed_seconds,
            ActorTransform::default(),
        );
        let sent = if send {
            s.observer.send(&h.to_bytes(), buf)
        } else {
            Ok(())
        };
        s.world.state_sent(frame.frame, seq);
        s.replay_tick(frame);
        sent
    }
}
