//! A small engine host on the library's Rust API for the 0.9.16 tests: it
//! answers spawn/destroy/settings/tick requests, moves nothing, captures a
//! camera (every byte = frame % 256), a semantic lidar (every ray hits at
//! 10 m) and the safe-distance sensor (every other vehicle), and sends the
//! episode state after each tick's sensor data.

use carla_server::rpc::{
    ActorBox, ActorState, Blueprint, BlueprintAttribute, EngineCall, EpisodeFrame,
    VehicleControl09, ATTR_INT, ATTR_RGB, ATTR_STRING, CARLA_ACTOR_VEHICLE,
};
use carla_server::sensor::{CaptureContext, LidarHit};
use carla_server::types::{ActorTransform, Vector3D};
use carla_server::Server;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

struct HostActor {
    blueprint: String,
    parent: u32,
    sensor: u32,
    transform: ActorTransform,
    /// Vehicles: the last control a client applied (sent back in the
    /// episode state, as an engine does).
    control: VehicleControl09,
}

/// The running host.
pub(crate) struct RpcHost {
    pub(crate) server: Arc<Server>,
    pub(crate) ticks: Arc<AtomicU64>,
    /// The requests it only noted (transforms, controls, actor commands).
    pub(crate) noted: Arc<Mutex<Vec<EngineCall>>>,
    /// While set, the host polls no requests (a stalled game thread).
    pub(crate) paused: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// The test vehicle blueprint: role_name, color, number_of_wheels; a 4 x 2 m box.
pub(crate) fn vehicle_blueprint() -> Blueprint {
    let attr = |id: &str, kind, value: &str| BlueprintAttribute {
        id: id.into(),
        kind,
        value: value.into(),
        recommended: Vec::new(),
        modifiable: true,
        restricted: false,
    };
    Blueprint {
        id: "vehicle.test.box".into(),
        attributes: vec![
            attr("role_name", ATTR_STRING, "autopilot"),
            attr("color", ATTR_RGB, "255,0,0"),
            attr("number_of_wheels", ATTR_INT, "4"),
        ],
        bounding_box: ActorBox {
            location: Vector3D {
                x: 0.0,
                y: 0.0,
                z: 0.75,
            },
            extent: Vector3D {
                x: 2.0,
                y: 1.0,
                z: 0.75,
            },
        },
        library_sensor: false,
        physics: None,
    }
}

impl RpcHost {
    /// Starts a host on a free RPC port (streams on another free port).
    pub(crate) fn start() -> RpcHost {
        let server = Arc::new(Server::new());
        server.listen_streaming(0).expect("streaming port");
        server.listen_rpc(0).expect("rpc port");
        server.rpc().unwrap().add_blueprint(vehicle_blueprint());
        let stop = Arc::new(AtomicBool::new(false));
        let ticks = Arc::new(AtomicU64::new(0));
        let noted = Arc::new(Mutex::new(Vec::new()));
        let paused = Arc::new(AtomicBool::new(false));
        let (s, st, t, n) = (server.clone(), stop.clone(), ticks.clone(), noted.clone());
        let p = paused.clone();
        let thread = std::thread::spawn(move || run(&s, &st, &t, &n, &p));
        RpcHost {
            server,
            ticks,
            noted,
            paused,
            stop,
            thread: Some(thread),
        }
    }

    pub(crate) fn port(&self) -> u16 {
        self.server.rpc_addr().unwrap().port()
    }

    /// A Rust RPC client of this host (10 s for each reply).
    pub(crate) fn client(&self) -> carla_server::client::RpcClient {
        let patience = Duration::from_secs(10);
        carla_server::client::RpcClient::connect(("127.0.0.1", self.port()), patience).unwrap()
    }
}

/// Switches the world of `rpc` to synchronous mode with a fixed `dt`, as
/// `world.apply_settings` does (its first call only).
pub(crate) fn synchronous(rpc: &mut carla_server::client::RpcClient, dt: f64) {
    use rmpv::Value;
    let settings = rpc.call("get_episode_settings", &[]).unwrap();
    let mut s = settings.as_array().unwrap().clone();
    s[0] = Value::Boolean(true);
    s[2] = Value::Array(vec![Value::Boolean(true), Value::F64(dt)]);
    rpc.call("set_episode_settings", &[Value::Array(s)])
        .unwrap();
}

/// The identity transform as msgpack (`[[0, 0, 0], [0, 0, 0]]`).
pub(crate) fn origin() -> rmpv::Value {
    let v = || rmpv::Value::Array(vec![rmpv::Value::F32(0.0); 3]);
    rmpv::Value::Array(vec![v(), v()])
}

impl RpcHost {}

impl Drop for RpcHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(
    server: &Server,
    stop: &AtomicBool,
    ticks: &AtomicU64,
    noted: &Mutex<Vec<EngineCall>>,
    paused: &AtomicBool,
) {
    let mut actors: BTreeMap<u32, HostActor> = BTreeMap::new();
    let (mut frame, mut elapsed) = (0u64, 0.0f64);
    let mut settings = server.rpc().unwrap().settings();
    let async_step = Duration::from_millis(20);
    let mut next = Instant::now();
    let started = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        if paused.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        let sync = settings.synchronous_mode.get();
        let wait = if sync {
            Duration::from_millis(20)
        } else {
            next.saturating_duration_since(Instant::now())
        };
        let mut step = !sync && Instant::now() >= next;
        let mut tick_request = None;
        if let Some(req) = server.rpc().unwrap().poll(wait) {
            match req.call().clone() {
                EngineCall::SpawnActor {
                    actor_id,
                    blueprint,
                    transform,
                    parent_id,
                    sensor_id,
                    ..
                } => {
                    if blueprint == "sensor.camera.depth" {
                        req.fail("refused by the test host: no depth cameras here");
                        continue;
                    }
                    actors.insert(
                        actor_id,
                        HostActor {
                            blueprint,
                            parent: parent_id,
                            sensor: sensor_id,
                            transform,
                            control: VehicleControl09::default(),
                        },
                    );
                    req.succeed(0);
                }
                EngineCall::DestroyActor { actor_id, .. } => {
                    actors.remove(&actor_id);
                    req.succeed(0);
                }
                EngineCall::SetEpisodeSettings(s) => {
                    settings = s;
                    req.succeed(0);
                }
                EngineCall::Tick => {
                    step = true;
                    tick_request = Some(req);
                }
                other => {
                    if let EngineCall::ApplyVehicleControl { actor_id, control } = other {
                        if let Some(a) = actors.get_mut(&actor_id) {
                            a.control = control;
                        }
                    }
                    noted.lock().unwrap().push(other)
                }
            }
        }
        if !step {
            continue;
        }
        if !sync {
            next += async_step;
        }
        frame += 1;
        let dt = settings.fixed_delta().unwrap_or(0.02);
        elapsed += dt;
        let vehicles: Vec<ActorState> = actors
            .iter()
            .filter(|(_, a)| a.blueprint.starts_with("vehicle."))
            .map(|(&id, a)| ActorState {
                id,
                kind: CARLA_ACTOR_VEHICLE,
                transform: a.transform,
                vehicle_control: a.control,
                velocity: Vector3D {
                    x: 0.0,
                    y: 1.0,
                    z: 0.0,
                },
                ..Default::default()
            })
            .collect();
        for a in actors.values().filter(|a| a.sensor != 0) {
            capture(server, a, &actors, &vehicles, frame, elapsed, dt);
        }
        let header = EpisodeFrame {
            frame,
            elapsed_seconds: elapsed,
            delta_seconds: dt,
            platform_seconds: started.elapsed().as_secs_f64(),
        };
        server
            .rpc()
            .unwrap()
            .send_episode_state(&header, &vehicles)
            .unwrap();
        ticks.fetch_add(1, Ordering::Relaxed);
        if let Some(req) = tick_request {
            req.succeed(frame);
        }
    }
}

fn capture(
    server: &Server,
    a: &HostActor,
    actors: &BTreeMap<u32, HostActor>,
    vehicles: &[ActorState],
    frame: u64,
    elapsed: f64,
    dt: f64,
) {
    let Ok(sensor) = server.sensor(a.sensor) else {
        return;
    };
    let mut transform = a.transform;
    if let Some(p) = actors.get(&a.parent) {
        transform.location.x += p.transform.location.x;
        transform.location.y += p.transform.location.y;
        transform.location.z += p.transform.location.z;
    }
    let ctx = CaptureContext {
        frame,
        timestamp: elapsed,
        transform,
    };
    let result = match a.blueprint.as_str() {
        "sensor.camera.rgb" => sensor.acquire_image().and_then(|mut image| {
            image.pixels_mut().fill((frame % 256) as u8);
            sensor.commit_image(&ctx, image)
        }),
        "sensor.lidar.ray_cast_semantic" => {
            let hits = sensor
                .plan_lidar(dt as f32, |rays| {
                    rays.iter()
                        .enumerate()
                        .map(|(i, r)| LidarHit {
                            ray_index: i as u32,
                            hit: 1,
                            distance_m: 10.0,
                            point_sensor: Vector3D {
                                x: r.direction.x * 10.0,
                                y: r.direction.y * 10.0,
                                z: r.direction.z * 10.0,
                            },
                            normal_sensor: Vector3D {
                                x: -r.direction.x,
                                y: -r.direction.y,
                                z: -r.direction.z,
                            },
                            actor_id: 0,
                            semantic_tag: 1,
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap();
            sensor.send_lidar_hits(&ctx, &hits)
        }
        "sensor.other.safe_distance" => {
            let others: Vec<u32> = vehicles
                .iter()
                .map(|v| v.id)
                .filter(|id| *id != a.parent)
                .collect();
            sensor.send_actor_ids(&ctx, a.parent, &others)
        }
        _ => Ok(()),
    };
    if let Err(e) = result {
        eprintln!("host: sensor {} ({}): {}", a.sensor, a.blueprint, e);
    }
}
