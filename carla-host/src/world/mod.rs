//! The demo world the host serves, by concern:
//! - [`map`]: the small procedural town ([`map::town`]), its static boxes,
//!   semantic tags and its OpenDRIVE map;
//! - [`simulation`]: seeded traffic, pedestrians, the player's car
//!   ([`simulation::vehicle`]) and the vehicles 0.9 clients drive;
//! - [`scene`]: ray queries against the town, shared by cameras, lidars
//!   and collisions;
//! - [`rendering`]: cameras (conventions in [`rendering::render`], drawn by
//!   the rasterizer [`rendering::raster`] into a [`gbuffer::GBuffer`] each
//!   output is written from);
//! - [`sensing`]: lidar tracing and what the other 0.9 sensors ask of the
//!   world;
//! - [`math`]: small geometry helpers and the seeded generator.
//!
//! Per frame the host calls [`World::step`] with the client's control, then
//! [`World::measurements`], [`World::render_gbuffer`] (or [`World::render`])
//! for each camera and [`World::trace_lidar`] for each lidar.

pub(crate) mod map;
pub(crate) mod math;
pub(crate) mod rendering;
pub(crate) mod scene;
pub(crate) mod sensing;
pub(crate) mod simulation;

// The submodules by their short names, for the code and tests of this file.
use map::{geometry, town};
use rendering::gbuffer;
#[cfg(test)]
use rendering::render;
use sensing::lidar;
use simulation::{fleet, pedestrians, traffic, vehicle};

#[allow(unused_imports)] // for the lidar's 0.9.16 tags
pub(crate) use map::tags::tag_0916;
pub(crate) use map::town::player_start_spots;

use carla_server::sensor::{LidarHit, PlannedRay};
use carla_server::types::*;
use gbuffer::GBuffer;
use lidar::Mount;
use math::{v3, Rect, Rng};
use parking_lot::Mutex;
use pedestrians::Walker;
#[cfg(test)]
use render::CameraSpec;
use scene::ActorBox;
use scene::Scene;
use town::{Light, LightSpot, SignSpot};
use traffic::{Obstacle, Vehicle};
use vehicle::Car;

/// Most pedestrians spawned.
pub(crate) const MAX_PEDESTRIANS: u32 = 1000;
/// Longest simulation sub-step, seconds.
pub(crate) const MAX_SUBSTEP: f32 = 0.05;
/// Most physics time a client vehicle gets per tick, seconds: CARLA's
/// `MaxPhysicsDeltaTime` (its DefaultEngine.ini), which Unreal clamps each
/// frame's physics to. With a longer `fixed_delta_seconds` the clock
/// advances the whole step but CARLA's vehicles move 1/3 s, and clients
/// (the Traffic Manager's controller at `lidar_to_camera.py`'s 3 s steps)
/// rely on it: a control held for 3 s of motion would send a car in
/// circles.
pub(crate) const MAX_PHYSICS_DT: f32 = 0.333_33;

/// Actor ids: the player, then ranges per kind.
/// (Not 1: that is the 0.9 spectator's id.)
pub(crate) const PLAYER_ID: u32 = 999;
pub(crate) const VEHICLE_ID0: u32 = 1000;
pub(crate) const PEDESTRIAN_ID0: u32 = 2000;
pub(crate) const LIGHT_ID0: u32 = 3000;
pub(crate) const SIGN_ID0: u32 = 4000;

/// What the client's settings choose about the world.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WorldConfig {
    pub vehicles: u32,
    pub pedestrians: u32,
    pub seed_vehicles: u64,
    pub seed_pedestrians: u64,
}

impl Default for WorldConfig {
    /// The 0.8.4 server defaults.
    fn default() -> Self {
        WorldConfig {
            vehicles: 5,
            pedestrians: 15,
            seed_vehicles: 123_456_789,
            seed_pedestrians: 123_456_789,
        }
    }
}

/// The world of one episode.
pub(crate) struct World {
    /// Frames stepped since the episode started.
    pub frame: u64,
    /// Game time since the episode started, ms (sum of rounded ticks).
    pub game_ms: u64,
    /// The last step's length, s.
    last_dt: f32,
    time: f32,
    car: Car,
    vehicles: Vec<Vehicle>,
    walkers: Vec<Walker>,
    lights: Vec<LightSpot>,
    signs: Vec<SignSpot>,
    scene: Scene,
    obstacles: Vec<Obstacle>,
    actor_buf: Vec<ActorBox>,
    /// Whether the 0.8 player's car is in the world (a 0.8 episode runs).
    player_active: bool,
    /// A replay holds the town's traffic and the walkers still.
    traffic_held: bool,
    /// Vehicles 0.9 clients spawned.
    fleet: Vec<fleet::Driven>,
    /// This tick's collisions.
    contacts: Vec<fleet::Contact>,
    /// The G-buffer stripe of [`World::render`].
    #[allow(dead_code)] // see `render`
    scratch: Mutex<GBuffer>,
}

fn light_colour(l: Light) -> [u8; 3] {
    match l {
        Light::Green => [40, 230, 90],
        Light::Yellow => [250, 200, 30],
        Light::Red => [240, 40, 30],
    }
}

impl World {
    /// The town with the player at start spot `start` (modulo the count)
    /// and traffic from `config`. At most one vehicle per 10 m of lane
    /// (about 400 in all) is spawned, none within 25 m of the player; at
    /// most `MAX_PEDESTRIANS` pedestrians.
    pub(crate) fn new(config: &WorldConfig, start: usize) -> World {
        World::build(config, start, true)
    }

    /// The town without the 0.8 player's car (what 0.9 clients see while no
    /// 0.8 episode runs); traffic is spawned as if the player stood at
    /// start spot 0.
    pub(crate) fn town(config: &WorldConfig) -> World {
        World::build(config, 0, false)
    }

    fn build(config: &WorldConfig, start: usize, player_active: bool) -> World {
        let spots = player_start_spots();
        let spot = spots[start % spots.len()];
        let car = Car::at(&spot);
        let mut rng = Rng::new(config.seed_vehicles);
        let mut slots = traffic::spawn_slots();
        slots.retain(|&(n, d, u)| {
            let (x, y) = town::lane_point(n, d, 4.0 + u * (town::SPACING - 8.0));
            (x - car.x).hypot(y - car.y) > 25.0
        });
        rng.shuffle(&mut slots);
        let vehicles = slots
            .iter()
            .take(config.vehicles as usize)
            .enumerate()
            .map(|(i, &(n, d, u))| Vehicle::new(VEHICLE_ID0 + i as u32, n, d, u, &mut rng))
            .collect();
        let mut rng = Rng::new(config.seed_pedestrians);
        let walkers = (0..config.pedestrians.min(MAX_PEDESTRIANS))
            .map(|i| Walker::new(PEDESTRIAN_ID0 + i, &mut rng))
            .collect();
        let mut world = World {
            frame: 0,
            game_ms: 0,
            last_dt: 0.0,
            time: 0.0,
            car,
            vehicles,
            walkers,
            lights: town::light_spots(),
            signs: town::sign_spots(),
            scene: Scene::new(geometry::static_geometry(), scene::CELL),
            obstacles: Vec::new(),
            actor_buf: Vec::new(),
            player_active,
            traffic_held: false,
            fleet: Vec::new(),
            contacts: Vec::new(),
            scratch: Mutex::new(GBuffer::new()),
        };
        world.refresh();
        world
    }

    /// Seconds of game time since the episode started.
    /// The last step's length, seconds (0 before the first).
    pub(crate) fn last_step(&self) -> f32 {
        self.last_dt
    }

    pub(crate) fn time(&self) -> f32 {
        self.time
    }
    /// The scene, for ray queries of the host's own.
    #[allow(dead_code)]
    pub(crate) fn scene(&self) -> &Scene {
        &self.scene
    }
    pub(crate) fn player_transform(&self) -> Transform {
        self.car.transform()
    }

    /// Advances the world by `dt` seconds, the player under `control` (in
    /// sub-steps of at most `MAX_SUBSTEP` s, so a long tick does not let
    /// anything jump through walls; clients' vehicles by at most
    /// [`MAX_PHYSICS_DT`]). A non-positive or non-finite `dt` is ignored.
    pub(crate) fn step(&mut self, control: &Control, dt: f32) {
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        self.contacts.clear();
        let n = (dt / MAX_SUBSTEP).ceil().clamp(1.0, 1000.0);
        let physics = dt.min(MAX_PHYSICS_DT) / dt;
        for _ in 0..n as usize {
            self.substep(control, dt / n, physics);
        }
        self.frame += 1;
        self.game_ms += (dt as f64 * 1000.0).round() as u64;
        self.last_dt = dt;
    }

    /// One sub-step of `dt`; clients' vehicles move `physics · dt`.
    fn substep(&mut self, control: &Control, dt: f32, physics: f32) {
        self.time += dt;
        if !self.traffic_held {
            for v in &mut self.vehicles {
                v.step(self.time, dt, &self.obstacles);
            }
            for w in &mut self.walkers {
                w.step(dt);
            }
        }
        if self.player_active {
            let mut car = self.car;
            car.step(control, dt, |r| self.collision(r, PLAYER_ID));
            self.car = car;
            if let Some((other, impulse, static_tag)) = car.hit {
                self.contacts.push(fleet::Contact {
                    actor: PLAYER_ID,
                    other,
                    impulse,
                    static_tag,
                });
            }
        }
        self.step_fleet(dt * physics);
        self.refresh();
    }

    /// Holds the town's own vehicles and the walkers still (a replay
    /// moves them), or lets them go on.
    pub(crate) fn hold_traffic(&mut self, hold: bool) {
        self.traffic_held = hold;
        if hold {
            self.vehicles.iter_mut().for_each(|v| v.speed = 0.0);
        }
    }

    /// Whether the 0.8 player's car is in the world.
    pub(crate) fn player_active(&self) -> bool {
        self.player_active
    }

    /// Rebuilds the scene's actors, lamp colours and the obstacle list.
    fn refresh(&mut self) {
        let t = self.time;
        let colours = self
            .lights
            .iter()
            .map(|l| light_colour(town::light_state(l.node, l.dir, t)));
        self.scene.set_light_colours(colours);
        self.obstacles.clear();
        if self.player_active {
            self.obstacles.push(Obstacle {
                rect: self.car.footprint(),
                id: PLAYER_ID,
                speed: self.car.speed.abs(),
            });
        }
        self.obstacles.extend(self.fleet.iter().map(|d| Obstacle {
            rect: d.car.footprint(),
            id: d.id,
            speed: d.car.speed.abs(),
        }));
        self.obstacles
            .extend(self.vehicles.iter().map(|v| Obstacle {
                rect: v.rect(),
                id: v.id,
                speed: v.speed,
            }));
        let b = &mut self.actor_buf;
        b.clear();
        let e = vehicle::EXTENT;
        if self.player_active {
            b.push(actor(
                PLAYER_ID,
                self.car.footprint(),
                2.0 * e.z,
                town::tag::VEHICLES,
                [200, 200, 205],
                1.0,
            ));
        }
        for d in &self.fleet {
            b.push(actor(
                d.id,
                d.car.footprint(),
                2.0 * d.car.extent.z,
                town::tag::VEHICLES,
                d.albedo,
                1.0,
            ));
        }
        for v in &self.vehicles {
            let h = 2.0 * v.extent.2;
            b.push(actor(
                v.id,
                v.rect(),
                h,
                town::tag::VEHICLES,
                v.albedo,
                0.6 * h,
            ));
        }
        for w in &self.walkers {
            b.push(actor(
                w.id,
                w.rect(),
                1.8,
                town::tag::PEDESTRIANS,
                w.albedo,
                f32::INFINITY,
            ));
        }
        self.scene.set_actors(&self.actor_buf);
    }

    /// This frame's measurements; `agents` is cleared and, when
    /// `with_agents`, filled with the vehicles, pedestrians, traffic lights
    /// and speed-limit signs (reuse it: no allocation once warmed up).
    pub(crate) fn measurements(
        &self,
        platform_ms: u32,
        with_agents: bool,
        agents: &mut Vec<Agent>,
    ) -> MeasurementsHeader {
        let c = &self.car;
        let (otherlane, offroad) = c.lane_fractions();
        let gap = traffic::gap_ahead(c.footprint(), PLAYER_ID, &self.obstacles);
        let e = vehicle::EXTENT;
        agents.clear();
        if with_agents {
            self.agents(agents);
        }
        MeasurementsHeader {
            frame_number: self.frame as u32,
            platform_timestamp: platform_ms,
            game_timestamp: self.game_ms as u32,
            player_measurements: PlayerMeasurements {
                transform: c.transform(),
                bounding_box: bbox(e.x, e.y, e.z),
                acceleration: c.accel,
                forward_speed: c.speed,
                collision_vehicles: c.collision_vehicles,
                collision_pedestrians: c.collision_pedestrians,
                collision_other: c.collision_other,
                intersection_otherlane: otherlane,
                intersection_offroad: offroad,
                autopilot_control: c.autopilot(self.time, gap),
            },
        }
    }

    fn agents(&self, out: &mut Vec<Agent>) {
        let deg = |yaw: f32| yaw.to_degrees();
        for v in &self.vehicles {
            out.push(Agent {
                id: v.id,
                r#type: CARLA_SERVER_AGENT_VEHICLE,
                transform: town::ground_transform(v.x, v.y, deg(v.yaw)),
                bounding_box: bbox(v.extent.0, v.extent.1, v.extent.2),
                forward_speed: v.speed,
            });
        }
        for w in &self.walkers {
            out.push(Agent {
                id: w.id,
                r#type: CARLA_SERVER_AGENT_PEDESTRIAN,
                transform: town::ground_transform(w.x, w.y, deg(w.yaw)),
                bounding_box: bbox(0.3, 0.3, 0.9),
                forward_speed: w.speed,
            });
        }
        for (i, l) in self.lights.iter().enumerate() {
            let kind = match town::light_state(l.node, l.dir, self.time) {
                Light::Green => CARLA_SERVER_AGENT_TRAFFICLIGHT_GREEN,
                Light::Yellow => CARLA_SERVER_AGENT_TRAFFICLIGHT_YELLOW,
                Light::Red => CARLA_SERVER_AGENT_TRAFFICLIGHT_RED,
            };
            out.push(Agent {
                id: LIGHT_ID0 + i as u32,
                r#type: kind,
                transform: l.transform(),
                ..Default::default()
            });
        }
        for (i, s) in self.signs.iter().enumerate() {
            out.push(Agent {
                id: SIGN_ID0 + i as u32,
                r#type: CARLA_SERVER_AGENT_SPEEDLIMITSIGN,
                transform: town::ground_transform(s.x, s.y, 90.0 * ((s.dir + 2) % 4) as f32),
                forward_speed: s.limit_kmh / 3.6,
                ..Default::default()
            });
        }
    }

    /// Traces `rays` (a lidar plan, sensor frame) from a lidar mounted on the
    /// player at `mount`, up to `range_m`; the player's own car is not hit.
    /// `hits` gets one entry per ray, in order.
    pub(crate) fn trace_lidar(
        &self,
        mount: &Mount,
        rays: &[PlannedRay],
        range_m: f32,
        hits: &mut Vec<LidarHit>,
    ) {
        let sensor = mount.world(&self.car.transform());
        lidar::trace(&self.scene, &sensor, rays, range_m, PLAYER_ID, hits);
    }
}

fn actor(id: u32, rect: Rect, height: f32, tag: u8, albedo: [u8; 3], window_z: f32) -> ActorBox {
    ActorBox {
        id,
        rect,
        z0: 0.0,
        z1: height,
        tag,
        albedo,
        window_z,
    }
}

/// A box of half sizes `(x, y, z)` standing on the actor's origin.
fn bbox(x: f32, y: f32, z: f32) -> BoundingBox {
    BoundingBox {
        transform: Transform {
            location: v3(0.0, 0.0, z),
            orientation: v3(1.0, 0.0, 0.0),
            rotation: Rotation3D::default(),
        },
        extent: v3(x, y, z),
    }
}

#[cfg(test)]
mod tests;
