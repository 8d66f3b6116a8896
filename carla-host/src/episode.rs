//! One episode of the demo world: the client's settings, the 0.8 handshake,
//! the sensors (each offered on the 0.8 stream port and as a 0.9 stream),
//! and one frame's worth of sending. Cameras with the same pose, size and
//! FOV (an RGB and a Depth camera side by side, as in the 0.8 client
//! example) share one view: rendered once per frame, stripe by stripe,
//! into a G-buffer each camera's image is written from.

use crate::world::rendering::gbuffer::{Channels, GBuffer, Output};
use crate::world::rendering::render::{CameraPose, CameraSpec, PostProcessing};
use crate::world::sensing::lidar::Mount;
use crate::world::{Town, World, WorldConfig};
use carla_server::legacy::settings::{self, Budget, SensorSettings, Settings};
use carla_server::sensor::{CaptureContext, PendingImage};
use carla_server::sensor::{LidarHit, PlannedRay};
use carla_server::types::{
    Agent, SensorDefinition, Transform, CARLA_SERVER_CAMERA, CARLA_SERVER_LIDAR_RAY_CAST,
};
use carla_server::{log_info, log_warn, Error, Server};
use std::sync::Arc;
use std::time::SystemTime;

enum Kind {
    /// A camera and the index of its view in `Episode::views`.
    Camera(CameraSpec, usize),
    /// A lidar; the library mirrors its sweeps to the 0.8 stream port.
    Lidar { mount: Mount, range: f32 },
}

struct SensorRun {
    name: String,
    legacy_id: u32,
    stream_id: u32,
    kind: Kind,
}

/// A running episode.
pub(crate) struct Episode {
    pub settings: Settings,
    sensors: Vec<SensorRun>,
    /// The views of the cameras: their spec, post-processing aside
    /// (`SceneFinal`), and whether this frame sent it yet.
    views: Vec<(CameraSpec, bool)>,
    /// One stripe of the view being rendered.
    gbuffer: GBuffer,
    /// The images of that view's cameras, by sensor index.
    images: Vec<(usize, PendingImage)>,
    agents: Vec<Agent>,
    rays: Vec<PlannedRay>,
    hits: Vec<LidarHit>,
}

fn platform_ms() -> u32 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u32)
        .unwrap_or(0)
}

fn legacy_id(index: usize) -> u32 {
    0x00C0_FFEE ^ (index as u32).wrapping_mul(0x9E37_79B9)
}

/// Answers a request whose settings could not be used: an empty scene, then
/// `EpisodeReady{false}` (the client reports a failed episode).
fn refuse(server: &Server, reason: &str, timeout: u32) -> Error {
    let _ = server.write_scene_description("SyntheticTown", &[], &[], timeout);
    let _ = server.read_episode_start(timeout);
    let _ = server.write_episode_ready(false, timeout);
    Error::InvalidArgument(format!("episode refused: {reason}"))
}

impl Episode {
    /// Runs the handshake for a request's settings and creates the sensors.
    pub(crate) fn begin(
        server: &Server,
        town: &Arc<Town>,
        ini: &[u8],
        previous: &Settings,
        budget: &Budget,
        timeout: u32,
    ) -> Result<(Episode, World), Error> {
        let text = String::from_utf8_lossy(ini);
        let settings = match settings::parse_within(&text, previous, budget) {
            Ok(s) => s,
            Err(e) => return Err(refuse(server, &e.to_string(), timeout)),
        };
        let defs: Vec<SensorDefinition> = settings
            .sensors
            .iter()
            .enumerate()
            .map(|(i, s)| SensorDefinition {
                id: legacy_id(i),
                r#type: match s {
                    SensorSettings::Camera(_) => CARLA_SERVER_CAMERA,
                    SensorSettings::Lidar(_) => CARLA_SERVER_LIDAR_RAY_CAST,
                },
                name: s.name().to_owned(),
            })
            .collect();
        let spots = town.start_spots();
        server.write_scene_description(&town.map.name, spots, &defs, timeout)?;
        let start = server.read_episode_start(timeout)? as usize;
        let level = &settings.level;
        let config = WorldConfig {
            vehicles: level.number_of_vehicles,
            pedestrians: level.number_of_pedestrians,
            seed_vehicles: level.seed_vehicles as u64,
            seed_pedestrians: level.seed_pedestrians as u64,
        };
        let world = World::new(town, &config, if start < spots.len() { start } else { 0 });
        server.write_episode_ready(true, timeout)?;
        let mut sensors = Vec::new();
        for (s, def) in settings.sensors.iter().zip(&defs) {
            match Self::create_sensor(server, s, def.id) {
                Ok(run) => sensors.push(run),
                Err(e) => log_warn!("sensor {}: no 0.9 stream: {}", s.name(), e),
            }
        }
        let mut views: Vec<(CameraSpec, bool)> = Vec::new();
        for s in &mut sensors {
            if let Kind::Camera(spec, view) = &mut s.kind {
                let key = CameraSpec {
                    post: PostProcessing::SceneFinal,
                    ..*spec
                };
                *view = views.iter().position(|v| v.0 == key).unwrap_or_else(|| {
                    views.push((key, false));
                    views.len() - 1
                });
            }
        }
        log_info!(
            "episode: {} mode, start {}, sensors: {}",
            if settings.synchronous_mode {
                "synchronous"
            } else {
                "asynchronous"
            },
            start,
            sensors
                .iter()
                .map(|s| format!(
                    "{} (0.8 id {:#x}, 0.9 stream {})",
                    s.name, s.legacy_id, s.stream_id
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if server.ros2_domain().is_some() {
            publish_on_ros2(server, &sensors);
        }
        let episode = Episode {
            settings,
            sensors,
            views,
            gbuffer: GBuffer::new(),
            images: Vec::new(),
            agents: Vec::new(),
            rays: Vec::new(),
            hits: Vec::new(),
        };
        Ok((episode, world))
    }

    fn create_sensor(
        server: &Server,
        s: &SensorSettings,
        legacy_id: u32,
    ) -> Result<SensorRun, String> {
        let name = s.name().to_owned();
        match s {
            SensorSettings::Camera(c) => {
                let post = PostProcessing::from_u32(c.post_processing as u32)
                    .unwrap_or(PostProcessing::SceneFinal);
                let blueprint = match post {
                    PostProcessing::Depth => "sensor.camera.depth",
                    PostProcessing::SemanticSegmentation => "sensor.camera.semantic_segmentation",
                    _ => "sensor.camera.rgb",
                };
                let (w, h, fov) = (
                    c.image_size_x.to_string(),
                    c.image_size_y.to_string(),
                    c.fov.to_string(),
                );
                let attrs = [
                    ("image_size_x", w.as_str()),
                    ("image_size_y", h.as_str()),
                    ("fov", fov.as_str()),
                ];
                let stream_id = server
                    .create_sensor(blueprint, &attrs)
                    .map_err(|e| e.to_string())?;
                let sensor = server.sensor(stream_id).map_err(|e| e.to_string())?;
                sensor
                    .mirror_to_legacy(legacy_id)
                    .map_err(|e| e.to_string())?;
                let spec = CameraSpec {
                    width: c.image_size_x,
                    height: c.image_size_y,
                    fov_deg: c.fov,
                    post,
                    position: c.position,
                    rotation: c.rotation,
                };
                Ok(SensorRun {
                    name,
                    legacy_id,
                    stream_id,
                    kind: Kind::Camera(spec, 0),
                })
            }
            SensorSettings::Lidar(l) => {
                let values = [
                    l.channels.to_string(),
                    l.range_m.to_string(),
                    l.points_per_second.to_string(),
                    l.rotation_frequency.to_string(),
                    l.upper_fov.to_string(),
                    l.lower_fov.to_string(),
                ];
                let keys = [
                    "channels",
                    "range",
                    "points_per_second",
                    "rotation_frequency",
                    "upper_fov",
                    "lower_fov",
                ];
                let attrs: Vec<(&str, &str)> = keys
                    .iter()
                    .copied()
                    .zip(values.iter().map(String::as_str))
                    .collect();
                let stream_id = server
                    .create_sensor("sensor.lidar.ray_cast_semantic", &attrs)
                    .map_err(|e| e.to_string())?;
                // Every sweep also goes out as the 0.8 lidar record (frame,
                // the plan's sweep angle, points grouped by channel).
                let sensor = server.sensor(stream_id).map_err(|e| e.to_string())?;
                sensor
                    .mirror_to_legacy(legacy_id)
                    .map_err(|e| e.to_string())?;
                let kind = Kind::Lidar {
                    mount: Mount {
                        position: l.position,
                        rotation: l.rotation,
                    },
                    range: l.range_m,
                };
                Ok(SensorRun {
                    name,
                    legacy_id,
                    stream_id,
                    kind,
                })
            }
        }
    }

    /// Sends one frame: every sensor, then the measurement that closes it.
    /// An error means the episode is over (the library logged why).
    pub(crate) fn send_frame(
        &mut self,
        server: &Server,
        world: &World,
        dt: f32,
    ) -> Result<(), Error> {
        let player = world.player_transform();
        let frame = world.frame;
        let timestamp = f64::from(world.time());
        for v in &mut self.views {
            v.1 = false;
        }
        for i in 0..self.sensors.len() {
            let s = &mut self.sensors[i];
            let Ok(sensor) = server.sensor(s.stream_id) else {
                continue;
            };
            match &mut s.kind {
                Kind::Camera(_, view) => {
                    let view = *view;
                    if !self.views[view].1 {
                        self.views[view].1 = true;
                        self.send_view(server, world, view, i, &player);
                    }
                }
                Kind::Lidar { mount, range } => {
                    let ctx = CaptureContext {
                        frame,
                        timestamp,
                        transform: mount.world(&player),
                    };
                    let rays = &mut self.rays;
                    let planned = sensor.plan_lidar(dt, |planned| {
                        rays.clear();
                        rays.extend_from_slice(planned);
                    });
                    if planned.is_err() {
                        continue;
                    }
                    world.trace_lidar(mount, &self.rays, *range, &mut self.hits);
                    if let Err(e) = sensor.send_lidar_hits(&ctx, &self.hits) {
                        log_warn!("lidar {}: {}", s.name, e);
                    }
                }
            }
        }
        let with_agents = self.settings.send_non_player_agents_info;
        let m = world.measurements(platform_ms(), with_agents, &mut self.agents);
        server.write_measurements(&m, &self.agents)
    }

    /// Renders view `view` once, stripe by stripe, into the images of its
    /// cameras (sensors `first..`), and sends them.
    fn send_view(
        &mut self,
        server: &Server,
        world: &World,
        view: usize,
        first: usize,
        player: &Transform,
    ) {
        let spec = self.views[view].0;
        let (w, h) = (spec.width, spec.height);
        let size = w as usize * h as usize * 4;
        self.images.clear();
        for (i, s) in self.sensors.iter().enumerate().skip(first) {
            if !matches!(s.kind, Kind::Camera(_, v) if v == view) {
                continue;
            }
            let Ok(sensor) = server.sensor(s.stream_id) else {
                continue;
            };
            let Ok(mut image) = sensor.acquire_image() else {
                continue;
            };
            if image.pixels_mut().len() == size {
                self.images.push((i, image));
            } else {
                log_warn!("camera {}: image buffer of another size", s.name);
            }
        }
        if self.images.is_empty() {
            return;
        }
        let pose = CameraPose::on_player(&spec, player);
        let (sensors, images) = (&self.sensors, &mut self.images);
        let posts = images.iter().filter_map(|(i, _)| match &sensors[*i].kind {
            Kind::Camera(spec, _) => Some(Output::from_08(spec.post)),
            _ => None,
        });
        let channels = posts.fold(Channels::NONE, |c, o| c.and(Channels::of(o)));
        self.gbuffer.fill_only(channels);
        world.render_stripes(&pose, w, h, spec.fov_deg, &mut self.gbuffer, |g| {
            for (i, image) in images.iter_mut() {
                if let Kind::Camera(spec, _) = &sensors[*i].kind {
                    g.write_08(spec.post, g.rows_of(image.pixels_mut()));
                }
            }
        });
        let (position, rotation) = (spec.position, spec.rotation);
        let ctx = CaptureContext {
            frame: world.frame,
            timestamp: f64::from(world.time()),
            transform: Mount { position, rotation }.world(player),
        };
        for (i, image) in self.images.drain(..) {
            let s = &self.sensors[i];
            let sent = server
                .sensor(s.stream_id)
                .and_then(|sensor| sensor.commit_image(&ctx, image));
            if let Err(e) = sent {
                log_warn!("camera {}: {}", s.name, e);
            }
        }
    }

    /// Destroys the episode's 0.9 sensors (their streams end).
    pub(crate) fn end(&self, server: &Server) {
        for s in &self.sensors {
            let _ = server.destroy_sensor(s.stream_id);
        }
    }

    /// Sum of messages dropped for slow 0.9 subscribers, and subscribers now.
    pub(crate) fn stream_stats(&self, server: &Server) -> (u64, usize) {
        self.sensors
            .iter()
            .filter_map(|s| server.sensor(s.stream_id).ok())
            .map(|sensor| sensor.stats())
            .fold((0, 0), |(d, n), s| (d + s.dropped, n + s.subscribers))
    }
}

/// With `--ros2`, the 0.8 player's sensors go on ROS 2 too, as sensors of
/// the hero: `rt/carla/hero/<0.8 sensor name>` (characters ROS does not
/// allow in names become `_`), frame = that name. Their pose is the 0.8
/// settings' (not on `/tf`).
fn publish_on_ros2(server: &Server, sensors: &[SensorRun]) {
    for s in sensors {
        let name: String = s
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let names = carla_server::ros2::SensorNames {
            base: format!("rt/carla/hero/{name}"),
            frame_id: name,
            parent_frame: "hero".into(),
            publish_tf: false,
            transform: Default::default(),
        };
        if let Err(e) = server.publish_sensor_on_ros2(s.stream_id, names) {
            log_warn!("sensor {}: not on ROS 2: {}", s.name, e);
        }
    }
}
