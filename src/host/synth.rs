//! A tiny synthetic world for the demo host: a player on a straight road
//! driven by the client's control, a camera picture per requested camera
//! (sky, road, scrolling lane marks; depth and semantic tags too), a
//! rotating lidar that sees the ground and a ring of walls, and a few
//! non-player agents. Issue 5 replaces it with a procedural town.

use crate::host::settings::{SensorKind, SensorSettings};
use carla_server::types::*;

/// CARLA's semantic tags used here.
const TAG_NONE: u8 = 0;
const TAG_ROAD_LINE: u8 = 6;
const TAG_ROAD: u8 = 7;
const LIDAR_HEIGHT: f32 = 2.5;
const WALL_RADIUS: f32 = 30.0;

/// The player's state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Player {
    pub x: f32,
    pub y: f32,
    pub yaw_deg: f32,
    pub speed: f32,
    pub accel: f32,
}

/// The world: the player plus per-sensor state.
pub struct World {
    pub frame: u64,
    pub game_ms: u64,
    pub player: Player,
    lidar_angle: Vec<f32>,
}

impl World {
    /// A world for `sensors`, with the player at the start spot.
    pub fn new(sensors: &[SensorSettings], start: &Transform) -> World {
        World {
            frame: 0,
            game_ms: 0,
            player: Player {
                x: start.location.x,
                y: start.location.y,
                yaw_deg: start.rotation.yaw,
                ..Default::default()
            },
            lidar_angle: vec![0.0; sensors.len()],
        }
    }

    /// Advances by `dt` seconds under `control`.
    pub fn step(&mut self, c: &Control, dt: f32) {
        let p = &mut self.player;
        let direction = if c.reverse.get() { -1.0 } else { 1.0 };
        let brake = if c.hand_brake.get() {
            1.0
        } else {
            c.brake.clamp(0.0, 1.0)
        };
        let mut accel = direction * 4.0 * c.throttle.clamp(0.0, 1.0) - 0.05 * p.speed;
        if brake > 0.0 {
            accel -= p.speed.signum() * 8.0 * brake;
        }
        let before = p.speed;
        p.speed += accel * dt;
        if brake > 0.0 && before.signum() != p.speed.signum() {
            p.speed = 0.0;
        }
        p.accel = (p.speed - before) / dt;
        p.yaw_deg += c.steer.clamp(-1.0, 1.0) * 35.0 * dt * (p.speed / 10.0).clamp(-1.0, 1.0);
        let yaw = p.yaw_deg.to_radians();
        p.x += yaw.cos() * p.speed * dt;
        p.y += yaw.sin() * p.speed * dt;
        self.frame += 1;
        self.game_ms += (dt * 1000.0).round() as u64;
    }

    /// This frame's measurements (and agents if asked).
    pub fn measurements(
        &self,
        platform_ms: u32,
        with_agents: bool,
        agents: &mut Vec<Agent>,
    ) -> MeasurementsHeader {
        let p = &self.player;
        let yaw = p.yaw_deg.to_radians();
        let transform = Transform {
            location: Vector3D {
                x: p.x,
                y: p.y,
                z: 0.0,
            },
            orientation: Vector3D {
                x: yaw.cos(),
                y: yaw.sin(),
                z: 0.0,
            },
            rotation: Rotation3D {
                pitch: 0.0,
                yaw: p.yaw_deg,
                roll: 0.0,
            },
        };
        let bbox = |x, y, z| BoundingBox {
            transform: Transform::default(),
            extent: Vector3D { x, y, z },
        };
        agents.clear();
        if with_agents {
            let t = self.game_ms as f32 / 1000.0;
            for i in 0..3u32 {
                let mut a = Agent {
                    id: 100 + i,
                    r#type: CARLA_SERVER_AGENT_VEHICLE,
                    ..Default::default()
                };
                a.transform.location = Vector3D {
                    x: p.x + 20.0 * (i + 1) as f32 + t,
                    y: 3.5,
                    z: 0.0,
                };
                a.bounding_box = bbox(2.3, 1.0, 0.8);
                a.forward_speed = 8.0;
                agents.push(a);
            }
            let mut walker = Agent {
                id: 200,
                r#type: CARLA_SERVER_AGENT_PEDESTRIAN,
                ..Default::default()
            };
            walker.transform.location = Vector3D {
                x: p.x + 15.0,
                y: 6.0 + (t * 0.5).sin(),
                z: 0.0,
            };
            walker.bounding_box = bbox(0.3, 0.3, 0.9);
            walker.forward_speed = 1.2;
            agents.push(walker);
            let light = [
                CARLA_SERVER_AGENT_TRAFFICLIGHT_GREEN,
                CARLA_SERVER_AGENT_TRAFFICLIGHT_YELLOW,
                CARLA_SERVER_AGENT_TRAFFICLIGHT_RED,
            ][((t / 5.0) as usize) % 3];
            agents.push(Agent {
                id: 300,
                r#type: light,
                ..Default::default()
            });
        }
        MeasurementsHeader {
            frame_number: self.frame as u32,
            platform_timestamp: platform_ms,
            game_timestamp: self.game_ms as u32,
            player_measurements: PlayerMeasurements {
                transform,
                bounding_box: bbox(2.4, 1.0, 0.75),
                acceleration: Vector3D {
                    x: p.accel * yaw.cos(),
                    y: p.accel * yaw.sin(),
                    z: 0.0,
                },
                forward_speed: p.speed,
                intersection_offroad: if p.y.abs() > 7.0 { 1.0 } else { 0.0 },
                intersection_otherlane: if p.y > 0.0 && p.y.abs() <= 7.0 {
                    1.0
                } else {
                    0.0
                },
                autopilot_control: Control {
                    throttle: 0.5,
                    ..Default::default()
                },
                ..Default::default()
            },
        }
    }

    /// Renders sensor `index` into `header` and `data` (reused buffers).
    pub fn render(
        &mut self,
        index: usize,
        sensor: &SensorSettings,
        dt: f32,
        header: &mut Vec<u8>,
        data: &mut Vec<u8>,
    ) {
        header.clear();
        data.clear();
        header.extend_from_slice(&self.frame.to_le_bytes());
        match sensor.kind {
            SensorKind::Camera {
                post,
                width,
                height,
                fov,
            } => {
                header.extend_from_slice(&width.to_le_bytes());
                header.extend_from_slice(&height.to_le_bytes());
                header.extend_from_slice(&post.to_le_bytes());
                header.extend_from_slice(&fov.to_le_bytes());
                self.camera(post, width, height, fov, data);
            }
            SensorKind::Lidar {
                channels,
                range,
                points_per_second,
                rotation_frequency,
                upper_fov,
                lower_fov,
            } => {
                let per_channel =
                    ((points_per_second as f32 * dt) / channels as f32).round() as u32;
                let start = self.lidar_angle[index];
                let sweep = 360.0 * rotation_frequency * dt;
                let end = (start + sweep).rem_euclid(360.0);
                self.lidar_angle[index] = end;
                header.extend_from_slice(&end.to_le_bytes());
                header.extend_from_slice(&channels.to_le_bytes());
                for _ in 0..channels {
                    header.extend_from_slice(&per_channel.to_le_bytes());
                }
                for ch in 0..channels {
                    let v = if channels > 1 {
                        upper_fov - ch as f32 * (upper_fov - lower_fov) / (channels - 1) as f32
                    } else {
                        upper_fov
                    };
                    let (sv, cv) = v.to_radians().sin_cos();
                    for j in 0..per_channel {
                        let h = (start + sweep * j as f32 / per_channel.max(1) as f32).to_radians();
                        // Ground below the sensor, or the ring of walls.
                        let ground = if sv < 0.0 {
                            LIDAR_HEIGHT / -sv
                        } else {
                            f32::INFINITY
                        };
                        let dist = ground.min(WALL_RADIUS / cv.max(1e-3)).min(range);
                        for c in [dist * cv * h.cos(), dist * cv * h.sin(), dist * sv] {
                            data.extend_from_slice(&c.to_le_bytes());
                        }
                    }
                }
            }
        }
    }

    /// Sky over a road whose lane marks scroll with the player.
    fn camera(&self, post: u32, width: u32, height: u32, fov: f32, data: &mut Vec<u8>) {
        let (w, h) = (width as usize, height as usize);
        data.resize(w * h * 4, 0);
        let focal = w as f32 / 2.0 / (fov.to_radians() / 2.0).tan().max(1e-3);
        let horizon = h / 2;
        let offset = self.player.x;
        for (row, line) in data.chunks_exact_mut(w * 4).enumerate() {
            if row < horizon {
                let shade = (120 + 100 * row / horizon.max(1)) as u8;
                let px = match post {
                    2 => [255, 255, 255, 255], // far away: max depth
                    3 => [0, 0, TAG_NONE, 255],
                    _ => [shade, 180, 110, 255],
                };
                fill(line, px);
                continue;
            }
            // Ground distance seen by this row (camera 1.5 m high).
            let below = (row - horizon) as f32 + 0.5;
            let dist = 1.5 * focal / below;
            let mark = ((dist + offset) / 3.0).floor() as i64 % 2 == 0;
            let lane_half_px = (0.15 * focal / dist).max(0.5) as usize;
            let centre = w / 2;
            let depth = depth_bgra(dist);
            for (col, px) in line.chunks_exact_mut(4).enumerate() {
                let on_mark = mark && col.abs_diff(centre) <= lane_half_px;
                let value = match post {
                    2 => depth,
                    3 => [0, 0, if on_mark { TAG_ROAD_LINE } else { TAG_ROAD }, 255],
                    _ if on_mark => [230, 230, 230, 255],
                    _ => {
                        let g = (70 + (dist as u32 % 7) * 3) as u8;
                        [g, g, g, 255]
                    }
                };
                px.copy_from_slice(&value);
            }
        }
    }
}

/// CARLA's 24-bit depth: R + G*256 + B*256² over 256³-1 spans 1000 m;
/// stored B, G, R, A.
pub fn depth_bgra(metres: f32) -> [u8; 4] {
    let n = ((metres / 1000.0).clamp(0.0, 1.0) * 16_777_215.0) as u32;
    [(n >> 16) as u8, (n >> 8) as u8, n as u8, 255]
}

fn fill(line: &mut [u8], px: [u8; 4]) {
    for p in line.chunks_exact_mut(4) {
        p.copy_from_slice(&px);
    }
}
