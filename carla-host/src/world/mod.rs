//! The demo world the host serves, in the order data flows through it:
//! - [`map`]: OpenDRIVE text in, the lane graph, signals, spawn points and
//!   walkable surfaces out (the built-in town is one generated text);
//! - [`scene`]: the map's static triangles and boxes and this tick's
//!   actors, one spatial index for every ray and overlap query;
//! - [`simulation`]: traffic on the lane graph, walkers, the lights'
//!   cycle, the player's car and the vehicles 0.9 clients drive;
//! - [`rendering`] and [`sensing`]: cameras (a rasterizer filling a
//!   G-buffer each output is written from), lidar tracing and what the
//!   other sensors ask of the world;
//! - [`math`] and [`ids`]: small geometry helpers, the seeded generator,
//!   the actor id ranges.
//!
//! A [`Town`] is a loaded map with what every episode on it shares; a
//! [`World`] is one episode: per frame the host calls [`World::step`]
//! with the 0.8 player's control, then asks for measurements, renders
//! cameras and traces lidars.

pub(crate) mod ids;
pub(crate) mod map;
pub(crate) mod math;
pub(crate) mod physics;
pub(crate) mod rendering;
pub(crate) mod scene;
pub(crate) mod sensing;
pub(crate) mod simulation;
pub(crate) mod workers;

use carla_server::types::*;
use ids::{PEDESTRIAN_ID0, PLAYER_ID, VEHICLE_ID0};
use map::{Map, Options};
use math::{v3, Rect, Rng};
use scene::tags::tag;
use scene::{ActorBox, Scene};
use simulation::fleet::{Contact, Driven};
use simulation::lights::{Light, Lights};
use simulation::pedestrians::{Paths, Walker};
use simulation::traffic::{Obstacle, Road, Vehicle};
use simulation::vehicle::Car;
use simulation::ways::Ways;
use std::sync::Arc;

/// The 0.8 player's car's colour.
const PLAYER_COLOUR: [u8; 3] = [200, 200, 205];

/// Most pedestrians spawned.
pub(crate) const MAX_PEDESTRIANS: u32 = 1000;
/// Most vehicles of the world's own traffic.
pub(crate) const MAX_VEHICLES: u32 = 1000;
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

/// A loaded map and what every episode on it shares.
pub(crate) struct Town {
    pub map: Map,
    pub fixed: Arc<scene::Fixed>,
    /// The static geometry's colliders, shared by every episode.
    pub statics: Arc<physics::Statics>,
    pub ways: Ways,
    pub paths: Paths,
    /// The lights' cycle at the start of an episode (each world runs a
    /// copy, [`World::lights`]).
    pub lights: Lights,
}

impl Town {
    /// The town of map `name` from OpenDRIVE `text`; an error names what
    /// is wrong with the text.
    pub(crate) fn load(name: &str, text: Arc<str>, options: Options) -> Result<Arc<Town>, String> {
        let map = Map::load(name, text, options)?;
        let fixed = Arc::new(scene::build::fixed(&map));
        let statics = Arc::new(physics::Statics::of(&fixed));
        let ways = Ways::new(&map);
        let paths = Paths::new(&map.lanes);
        let lights = Lights::new(&map.signs);
        Ok(Arc::new(Town {
            map,
            fixed,
            statics,
            ways,
            paths,
            lights,
        }))
    }

    /// The built-in town.
    pub(crate) fn builtin() -> Arc<Town> {
        let text: Arc<str> = map::builtin::town_xodr().into();
        Town::load(map::builtin::NAME, text, Options::default())
            .expect("the built-in town loads (its tests say so)")
    }

    /// The start spots of a 0.8 player: the map's spawn points.
    pub(crate) fn start_spots(&self) -> &[Transform] {
        &self.map.spawn_points
    }
}

/// The world of one episode.
pub(crate) struct World {
    town: Arc<Town>,
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
    scene: Scene,
    obstacles: Vec<Obstacle>,
    actor_buf: Vec<ActorBox>,
    /// Their pieces ([`scene::Part`]).
    part_buf: Vec<scene::Part>,
    /// By lane: the traffic vehicle on or entering a junction lane.
    claims: Vec<u32>,
    /// Whether the 0.8 player's car is in the world (a 0.8 episode runs).
    player_active: bool,
    /// A replay holds the town's traffic and the walkers still.
    traffic_held: bool,
    /// Vehicles 0.9 clients spawned.
    fleet: Vec<Driven>,
    /// Props 0.9 clients spawned.
    props: Vec<simulation::props::Prop>,
    /// This tick's collisions.
    contacts: Vec<Contact>,
    /// Clients' vehicles as rigid bodies.
    physics: physics::Physics,
    /// Vehicles clients spawned in this world so far.
    spawned: u32,
    /// Most physics time clients' vehicles get per tick, seconds.
    physics_budget: f32,
    /// The traffic lights' cycle (the town's, from its start on).
    lights: Lights,
}

fn light_colour(l: Light) -> [u8; 3] {
    match l {
        Light::Green => [40, 230, 90],
        Light::Yellow => [250, 200, 30],
        Light::Red => [240, 40, 30],
        Light::Off => [25, 25, 25],
    }
}

impl World {
    /// `town` with the player at start spot `start` (modulo the count)
    /// and traffic from `config`: at most one vehicle per 10 m of lane,
    /// none within 25 m of the player; at most `MAX_PEDESTRIANS`
    /// pedestrians.
    pub(crate) fn new(town: &Arc<Town>, config: &WorldConfig, start: usize) -> World {
        World::build(town, config, start, true)
    }

    /// `town` without the 0.8 player's car (what 0.9 clients see while no
    /// 0.8 episode runs); traffic keeps clear of start spot 0.
    pub(crate) fn town(town: &Arc<Town>, config: &WorldConfig) -> World {
        World::build(town, config, 0, false)
    }

    fn build(town: &Arc<Town>, config: &WorldConfig, start: usize, player_active: bool) -> World {
        let spots = town.start_spots();
        let spot = spots
            .get(start % spots.len().max(1))
            .copied()
            .unwrap_or_default();
        let mut car = Car::at(&spot);
        let scene = Scene::new(town.fixed.clone());
        (car.z, _) = scene.ground_at(car.x, car.y, spot.location.z, 2.0);
        let lanes = &town.map.lanes;
        let mut rng = Rng::new(config.seed_vehicles);
        let mut slots: Vec<(u32, f32)> = town.ways.slots.clone();
        rng.shuffle(&mut slots);
        let mut vehicles: Vec<Vehicle> = Vec::new();
        for &(lane, d) in &slots {
            if vehicles.len() as u32 >= config.vehicles.min(MAX_VEHICLES) {
                break;
            }
            let p = lanes.lane(lane).pose(d).position;
            let near_player = (p[0] - car.x).hypot(p[1] - car.y) < 25.0;
            let taken = vehicles.iter().any(|v| {
                (v.pose.x - p[0]).hypot(v.pose.y - p[1]) < 10.0 && (v.pose.z - p[2]).abs() < 3.0
            });
            if near_player || taken {
                continue;
            }
            let id = VEHICLE_ID0 + vehicles.len() as u32;
            vehicles.push(Vehicle::new(id, lanes, lane, d, &mut rng));
        }
        let mut rng = Rng::new(config.seed_pedestrians);
        let walkers = (0..config.pedestrians.min(MAX_PEDESTRIANS))
            .map(|i| Walker::new(PEDESTRIAN_ID0 + i, lanes, &town.paths, &mut rng))
            .collect();
        let mut world = World {
            town: town.clone(),
            frame: 0,
            game_ms: 0,
            last_dt: 0.0,
            time: 0.0,
            car,
            vehicles,
            walkers,
            scene,
            obstacles: Vec::new(),
            actor_buf: Vec::new(),
            part_buf: Vec::new(),
            claims: vec![0; lanes.lanes.len()],
            player_active,
            traffic_held: false,
            fleet: Vec::new(),
            props: Vec::new(),
            contacts: Vec::new(),
            physics: physics::Physics::new(&town.statics),
            spawned: 0,
            physics_budget: MAX_PHYSICS_DT,
            lights: town.lights.clone(),
        };
        world.refresh();
        world
    }

    /// The town this world runs on.
    pub(crate) fn town_ref(&self) -> &Arc<Town> {
        &self.town
    }

    /// The map this world runs on.
    pub(crate) fn map(&self) -> &Map {
        &self.town.map
    }

    /// The last step's length, seconds (0 before the first).
    pub(crate) fn last_step(&self) -> f32 {
        self.last_dt
    }

    /// Seconds of game time since the episode started.
    pub(crate) fn time(&self) -> f32 {
        self.time
    }
    /// The scene, for ray queries.
    pub(crate) fn scene(&self) -> &Scene {
        &self.scene
    }
    pub(crate) fn player_transform(&self) -> Transform {
        self.car.transform()
    }

    /// Advances the world by `dt` seconds, the player under `control` (in
    /// sub-steps of at most `MAX_SUBSTEP` s, so a long tick does not let
    /// anything jump through walls; clients' vehicles by at most the
    /// physics budget, [`World::set_substepping`]). A non-positive or
    /// non-finite `dt` is ignored.
    pub(crate) fn step(&mut self, control: &Control, dt: f32) {
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        self.contacts.clear();
        self.run_ackermann(dt);
        let n = (dt / MAX_SUBSTEP).ceil().clamp(1.0, 1000.0);
        let physics = dt.min(self.physics_budget) / dt;
        for _ in 0..n as usize {
            self.substep(control, dt / n, physics);
        }
        if !self.traffic_held {
            self.step_characters(dt);
        }
        self.frame += 1;
        self.game_ms += (dt as f64 * 1000.0).round() as u64;
        self.last_dt = dt;
    }

    /// Clients' walkers walk `dt` as characters, once a tick: at walking
    /// pace a sub-step's stride is a few centimetres, and the character
    /// controller's casts are continuous, so a longer one goes through
    /// nothing.
    fn step_characters(&mut self, dt: f32) {
        let started = std::time::Instant::now();
        let scene = &self.scene;
        let ground = |x: f32, y: f32, z: f32| scene.ground_at(x, y, z, physics::walkers::STEP);
        for w in self.walkers.iter_mut().filter(|w| w.is_character()) {
            character_step(&self.physics, w, dt, &ground);
            w.skeleton.advance(w.speed, dt);
        }
        // The walkers' moves are physics too.
        self.physics.spent += started.elapsed();
        self.physics.walked += started.elapsed();
        self.refresh();
    }

    /// One sub-step of `dt`; clients' vehicles move `physics · dt`.
    fn substep(&mut self, control: &Control, dt: f32, physics: f32) {
        self.time += dt;
        if !self.traffic_held {
            // A replay sets the lights' states; their cycle waits, as
            // CARLA's groups do while its replayer runs.
            self.lights.advance(dt);
            self.step_traffic(dt);
            let town = &self.town;
            let scene = &self.scene;
            let ground = |x: f32, y: f32, z: f32| scene.ground_at(x, y, z, 0.6).0;
            // Clients' walkers walk as characters once a tick
            // (`step_characters`).
            for w in self.walkers.iter_mut().filter(|w| !w.is_character()) {
                w.step(&town.map.lanes, &town.paths, dt, &ground);
                w.skeleton.advance(w.speed, dt);
            }
        }
        if self.player_active {
            let mut car = self.car;
            car.step(control, dt, |r| self.collision(r, PLAYER_ID));
            self.settle(&mut car);
            self.car = car;
            if let Some((other, impulse, static_tag)) = car.hit {
                self.contacts.push(Contact {
                    actor: PLAYER_ID,
                    other,
                    impulse: Contact::against(impulse, car.yaw),
                    static_tag,
                });
            }
        }
        self.step_fleet(dt * physics);
        self.refresh();
    }

    fn step_traffic(&mut self, dt: f32) {
        let town = &self.town;
        let lanes = &town.map.lanes;
        self.claims.iter_mut().for_each(|c| *c = 0);
        for v in &self.vehicles {
            v.claim(lanes, &mut self.claims);
        }
        // A client's car (or the player's) in a junction holds the lane it
        // is on there too: the world's own cars do not enter a lane
        // crossing it (a client's Traffic Manager knows nothing of ours).
        let clients = self.fleet.iter().map(|d| (d.id, &d.car));
        let player = self.player_active.then_some((PLAYER_ID, &self.car));
        for (id, c) in clients.chain(player) {
            if let Some(on) = lanes.driving_at(c.x, c.y, c.z, c.yaw, 1.0) {
                if lanes.in_junction(on.lane) {
                    self.claims[on.lane as usize] = id;
                }
            }
        }
        let mut road = Road {
            lanes,
            ways: &town.ways,
            lights: &self.lights,
            obstacles: &self.obstacles,
            claims: &mut self.claims,
        };
        for v in &mut self.vehicles {
            v.step(&mut road, dt);
        }
    }

    /// CARLA's substepping settings: with `substepping` on, Unreal gives
    /// the physics at most `max_substeps · max_substep_delta_time` seconds
    /// a frame (0.1 s with CARLA's defaults), and never more than
    /// [`MAX_PHYSICS_DT`]; a longer tick's clock runs on without the
    /// vehicles (CARLA's client warns of it). Non-finite or non-positive
    /// values leave [`MAX_PHYSICS_DT`]. (The physics itself steps at most
    /// 1/60 s, whatever `max_substep_delta_time` is.)
    pub(crate) fn set_substepping(&mut self, on: bool, max_delta: f64, max_substeps: i32) {
        let budget = max_delta as f32 * max_substeps as f32;
        self.physics_budget = if on && budget.is_finite() && budget > 0.0 {
            budget.min(MAX_PHYSICS_DT)
        } else {
            MAX_PHYSICS_DT
        };
    }

    /// Sets the weather the cameras light the world by (`set_weather`;
    /// `carla.WeatherParameters`' fields in the client's order).
    pub(crate) fn set_weather(&mut self, w: carla_server::rpc::Weather) {
        self.scene.set_weather(w);
    }

    /// Puts a car on the ground under it: height, pitch and roll from the
    /// surface under its four corners.
    pub(crate) fn settle(&self, car: &mut Car) {
        // Where it was settled last: the same ground, unless it moved.
        let [sx, sy, syaw] = car.settled_at;
        if (car.x - sx).abs() + (car.y - sy).abs() < 0.2 && (car.yaw - syaw).abs() < 0.02 {
            return;
        }
        car.settled_at = [car.x, car.y, car.yaw];
        let r = car.footprint();
        let h = |a: f32, b: f32| {
            let (x, y) = r.point(a * car.extent.x * 0.8, b * car.extent.y * 0.8);
            self.scene.ground_at(x, y, car.z, 0.6).0
        };
        let (fl, fr, bl, br) = (h(1.0, -1.0), h(1.0, 1.0), h(-1.0, -1.0), h(-1.0, 1.0));
        car.z = (fl + fr + bl + br) / 4.0;
        let (lx, ly) = (1.6 * car.extent.x, 1.6 * car.extent.y);
        car.pitch = ((fl + fr - bl - br) / 2.0).atan2(lx);
        car.roll = ((fl + bl - fr - br) / 2.0).atan2(ly);
    }

    /// Holds the town's own vehicles and the walkers still (a replay
    /// moves them), or lets them go on.
    pub(crate) fn hold_traffic(&mut self, hold: bool) {
        self.traffic_held = hold;
        if hold {
            self.vehicles.iter_mut().for_each(Vehicle::stop);
        }
    }

    /// Whether the 0.8 player's car is in the world.
    pub(crate) fn player_active(&self) -> bool {
        self.player_active
    }

    /// The lights' state now, by light index, and how long each has been
    /// in it, seconds.
    pub(crate) fn light_state(&self, light: usize) -> (Light, f32) {
        self.lights.phase(light)
    }

    /// The traffic lights' cycle, as clients see and change it.
    pub(crate) fn lights(&self) -> &Lights {
        &self.lights
    }

    pub(crate) fn lights_mut(&mut self) -> &mut Lights {
        &mut self.lights
    }

    /// Rebuilds the scene's actors, lamp colours and the obstacle list.
    fn refresh(&mut self) {
        let lights = &self.lights;
        let colours = (0..lights.len()).map(|i| light_colour(lights.state(i)));
        self.scene.set_light_colours(colours);
        self.obstacles.clear();
        if self.player_active {
            self.obstacles.push(Obstacle {
                rect: self.car.footprint(),
                id: PLAYER_ID,
                speed: self.car.speed.abs(),
                walker: false,
                traffic: false,
            });
        }
        self.obstacles.extend(self.fleet.iter().map(|d| Obstacle {
            rect: d.car.footprint(),
            id: d.id,
            speed: d.car.speed.abs(),
            walker: false,
            traffic: false,
        }));
        self.obstacles
            .extend(self.vehicles.iter().map(|v| Obstacle {
                rect: v.rect(),
                id: v.id,
                speed: v.speed,
                walker: false,
                traffic: true,
            }));
        self.obstacles.extend(
            self.walkers
                .iter()
                .filter(|w| !w.ghost && !w.on_its_walk())
                .map(|w| Obstacle {
                    rect: w.rect(),
                    id: w.id,
                    speed: w.speed,
                    walker: true,
                    traffic: false,
                }),
        );
        self.obstacles.extend(self.props.iter().map(|p| Obstacle {
            rect: p.rect(),
            id: p.id,
            speed: 0.0,
            walker: false,
            traffic: false,
        }));
        let b = &mut self.actor_buf;
        b.clear();
        let parts = &mut self.part_buf;
        parts.clear();
        use simulation::carbody::{body, lamps};
        if self.player_active {
            let c = &self.car;
            let h = 2.0 * c.extent.z;
            b.push(body(
                (PLAYER_ID, c.footprint()),
                (c.z, h),
                PLAYER_COLOUR,
                0,
                parts,
            ));
        }
        for d in &self.fleet {
            let c = &d.car;
            let h = 2.0 * c.extent.z;
            b.push(body(
                (d.id, c.footprint()),
                (c.z, h),
                d.albedo,
                d.lights,
                parts,
            ));
        }
        // The world's own traffic drives with its lamps on at night.
        let night = rendering::light::Lighting::of(self.scene.weather()).night > 0.0;
        let own = if night {
            lamps::POSITION | lamps::LOW_BEAM
        } else {
            0
        };
        for v in &self.vehicles {
            let h = 2.0 * v.extent.2;
            b.push(body((v.id, v.rect()), (v.pose.z, h), v.albedo, own, parts));
        }
        for w in &self.walkers {
            let mut a = simulation::figure::figure(w, parts);
            a.albedo = w.albedo;
            b.push(a);
        }
        for p in &self.props {
            let h = 2.0 * p.extent.z;
            b.push(actor(
                p.id,
                p.rect(),
                p.at.z,
                h,
                tag::OTHER,
                p.albedo,
                f32::INFINITY,
            ));
        }
        self.scene.set_actors(&self.actor_buf, &self.part_buf);
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
        let lanes = &self.town.map.lanes;
        let (otherlane, offroad) = c.lane_fractions(lanes);
        let gap = simulation::traffic::gap_ahead(c.footprint(), PLAYER_ID, &self.obstacles);
        let t = &self.town;
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
                bounding_box: bbox(c.extent.x, c.extent.y, c.extent.z),
                acceleration: c.accel,
                forward_speed: c.speed,
                collision_vehicles: c.collision_vehicles,
                collision_pedestrians: c.collision_pedestrians,
                collision_other: c.collision_other,
                intersection_otherlane: otherlane,
                intersection_offroad: offroad,
                autopilot_control: simulation::pilot::drive(c, lanes, &t.ways, &self.lights, gap),
            },
        }
    }

    fn agents(&self, out: &mut Vec<Agent>) {
        use simulation::vehicle::pose_transform;
        for v in &self.vehicles {
            let p = &v.pose;
            out.push(Agent {
                id: v.id,
                r#type: CARLA_SERVER_AGENT_VEHICLE,
                transform: pose_transform(p.x, p.y, p.z, p.yaw, p.pitch, p.roll),
                bounding_box: bbox(v.extent.0, v.extent.1, v.extent.2),
                forward_speed: v.speed,
            });
        }
        for w in &self.walkers {
            out.push(Agent {
                id: w.id,
                r#type: CARLA_SERVER_AGENT_PEDESTRIAN,
                transform: pose_transform(w.x, w.y, w.z, w.yaw, 0.0, 0.0),
                bounding_box: bbox(0.3, 0.3, 0.9),
                forward_speed: w.speed,
            });
        }
        for (i, _) in self.town.map.signs.lights().enumerate() {
            let kind = match self.light_state(i).0 {
                // 0.8 has no dark light: traffic passes it.
                Light::Green | Light::Off => CARLA_SERVER_AGENT_TRAFFICLIGHT_GREEN,
                Light::Yellow => CARLA_SERVER_AGENT_TRAFFICLIGHT_YELLOW,
                Light::Red => CARLA_SERVER_AGENT_TRAFFICLIGHT_RED,
            };
            out.push(Agent {
                id: ids::LIGHT_ID0 + i as u32,
                r#type: kind,
                transform: self.light_transform(i),
                ..Default::default()
            });
        }
        for (j, (limit, transform)) in self.speed_signs().enumerate() {
            out.push(Agent {
                id: ids::SIGN_ID0 + j as u32,
                r#type: CARLA_SERVER_AGENT_SPEEDLIMITSIGN,
                transform,
                forward_speed: limit / 3.6,
                ..Default::default()
            });
        }
    }
}

fn actor(
    id: u32,
    rect: Rect,
    z0: f32,
    height: f32,
    tag: u8,
    albedo: [u8; 3],
    window: f32,
) -> ActorBox {
    ActorBox {
        id,
        rect,
        z0,
        z1: z0 + height,
        tag,
        albedo,
        window_z: z0 + window,
        parts: (0, 0),
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

/// A client's walker walks `dt` as a character on `ground`.
fn character_step(
    physics: &physics::Physics,
    w: &mut simulation::pedestrians::Walker,
    dt: f32,
    ground: physics::walkers::Ground<'_>,
) {
    use physics::walkers::Stride;
    let want = w.stride(dt);
    let s = Stride {
        feet: math::v3(w.x, w.y, w.z),
        motion: w.motion,
    };
    let s = physics.walk(
        w.id,
        s,
        want,
        simulation::pedestrians::HALF_HEIGHT,
        dt,
        ground,
    );
    (w.x, w.y, w.z, w.motion) = (s.feet.x, s.feet.y, s.feet.z, s.motion);
}

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
