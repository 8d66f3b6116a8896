//! Cast shadows of the sun: before an RGB image is drawn, the scene is
//! rasterized once more, depth only, as the sun sees it around the camera
//! (a shadow map), and a pixel whose surface lies behind what the sun
//! sees there gets the sky's light only.
//!
//! The sun's view: a camera [`DISTANCE`] m towards the sun from a point
//! [`AHEAD`] m in front of the image's camera, looking back along the
//! sunlight with a field of view [`REACH`] m wide at that point, on
//! [`SIZE`]² pixels (texels of about 0.31 m). Nearly parallel rays, so
//! that nearly every surface within [`REACH`] / 2 of that point, and the
//! shadows cast on it, are in the map; what lies outside is lit.

use super::gbuffer::{Channels, GBuffer};
use super::light::Lighting;
use super::render::CameraPose;
use crate::world::math::{add, dot, scale, sub, Axes};
use carla_server::types::{Rotation3D, Vector3D};

/// Whether the sun casts shadows (`--quality-level epic`, the default).
static ON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turns the sun's shadows on (`--quality-level epic`) or off (`low`).
pub(crate) fn cast_shadows(on: bool) {
    ON.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the sun casts shadows.
pub(crate) fn shadows_cast() -> bool {
    ON.load(std::sync::atomic::Ordering::Relaxed)
}

/// Texels per side of the map.
pub(crate) const SIZE: usize = 256;
/// How far the sun's camera stands, metres: so far that its rays are
/// nearly parallel (within 0.2° at the map's edge), as the sun's are.
const DISTANCE: f32 = 20_000.0;
/// The width of ground the map covers, metres.
const REACH: f32 = 80.0;
/// How far in front of the camera the map's centre lies, metres.
const AHEAD: f32 = 30.0;

/// The sun's depth map for one image (see the module's text). Keep one
/// and rebuild it per image: it allocates only once.
#[derive(Default)]
pub(crate) struct SunMap {
    /// Whether it holds a map (the sun is up and bright enough to cast).
    on: bool,
    pose: Option<CameraPose>,
    /// Texels per unit of `right / forward` (and of `up / forward`).
    scale: f32,
    g: GBuffer,
}

impl SunMap {
    /// The sun's view and lens for a camera at `camera` under `light`, or
    /// `None` when the sun casts no shadow (down, or hidden by clouds).
    pub(crate) fn view(camera: &CameraPose, light: &Lighting) -> Option<(CameraPose, f32)> {
        let s = light.sun;
        if !shadows_cast() || s.z < 0.02 || light.sun_rgb.iter().all(|&c| c < 0.02) {
            return None;
        }
        let f = camera.axes.forward;
        let flat = (f.x * f.x + f.y * f.y).sqrt();
        let ahead = if flat > 1e-3 {
            Vector3D {
                x: f.x / flat * AHEAD,
                y: f.y / flat * AHEAD,
                z: 0.0,
            }
        } else {
            Vector3D::default()
        };
        let centre = add(camera.origin, ahead);
        let rotation = Rotation3D {
            pitch: -s.z.clamp(-1.0, 1.0).asin().to_degrees(),
            yaw: s.y.atan2(s.x).to_degrees() + 180.0,
            roll: 0.0,
        };
        let pose = CameraPose {
            origin: add(centre, scale(s, DISTANCE)),
            axes: Axes::from_rotation(&rotation),
        };
        let fov = 2.0 * (0.5 * REACH / DISTANCE).atan().to_degrees();
        Some((pose, fov))
    }

    /// Rebuilds the map for an image seen from `camera` under `light`;
    /// `draw` renders a view (pose, size, horizontal FOV in degrees, far
    /// plane in metres) into a G-buffer, depth only.
    pub(crate) fn build(
        &mut self,
        camera: &CameraPose,
        light: &Lighting,
        draw: impl FnOnce(&CameraPose, usize, f32, f32, &mut GBuffer),
    ) {
        self.on = false;
        let Some((pose, fov)) = SunMap::view(camera, light) else {
            return;
        };
        self.g.fill_only(Channels {
            depth: true,
            ..Channels::default()
        });
        draw(&pose, SIZE, fov, 2.0 * DISTANCE, &mut self.g);
        let tan = (0.5 * fov).to_radians().tan();
        self.scale = SIZE as f32 / (2.0 * tan);
        self.pose = Some(pose);
        self.on = true;
    }

    /// Whether it holds a map (else everything is in the sun).
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// How much deeper than the map a point of a surface the sun meets at
    /// `cos` (its normal · the sun) must be to be in shadow, metres: across
    /// one texel such a surface's depth changes by the texel × tan of that
    /// angle, and the map holds the nearest depth within the texel.
    pub(crate) fn bias(cos: f32) -> f32 {
        let cos = cos.clamp(0.05, 1.0);
        let tan = (1.0 - cos * cos).sqrt() / cos;
        let texel = REACH / SIZE as f32;
        (0.1 + texel * (1.0 + tan)).min(5.0)
    }

    /// [`SunMap::sunlit`] of the points `(x[j], y[j], z[j])` into
    /// `out[j]` (every other one looked up), through `texel` (scratch of
    /// `out`'s length): the projection in a branch-free loop, then the
    /// lookups.
    pub(crate) fn sunlit_run(
        &self,
        (x, y, z): (&[f32], &[f32], &[f32]),
        bias: f32,
        texel: &mut [u32],
        out: &mut [f32],
    ) {
        let Some(pose) = self.pose.as_ref().filter(|_| self.on) else {
            out.fill(1.0);
            return;
        };
        // Every other pixel is looked up and gives its right neighbour the
        // same: near the camera a texel spans many pixels.
        let n = out.len();
        let m = n.div_ceil(2);
        let (o, a) = (pose.origin, &pose.axes);
        let (f, r, u) = (a.forward, a.right, a.up);
        let (half, last, side) = (0.5 * SIZE as f32, SIZE as f32 - 1.0, SIZE as f32);
        // The sun's rays are nearly parallel: a point's texel is its offset
        // across them over the map's distance (within 0.1 texel of the
        // perspective map's for points 20 m off its centre plane).
        let k = self.scale / DISTANCE;
        let texel = &mut texel[..m];
        for (i, t) in texel.iter_mut().enumerate() {
            let j = 2 * i;
            let (dx, dy, dz) = (x[j] - o.x, y[j] - o.y, z[j] - o.z);
            let depth = dx * f.x + dy * f.y + dz * f.z;
            let cu = (dx * r.x + dy * r.y + dz * r.z) * k + half;
            let cv = half - (dx * u.x + dy * u.y + dz * u.z) * k;
            let inside = (cu >= 0.0) & (cv >= 0.0) & (cu < side) & (cv < side);
            // (NaN clamps to NaN, which casts to texel 0: outside anyway.)
            let (cu, cv) = (cu.clamp(0.0, last) as u32, cv.clamp(0.0, last) as u32);
            *t = cv * SIZE as u32 + cu;
            out[i] = if inside {
                depth - bias
            } else {
                f32::NEG_INFINITY
            };
        }
        let depth = &self.g.depth[..SIZE * SIZE];
        for i in (0..m).rev() {
            let lit = if out[i] > depth[texel[i] as usize] {
                0.0
            } else {
                1.0
            };
            out[2 * i] = lit;
            if 2 * i + 1 < n {
                out[2 * i + 1] = lit;
            }
        }
    }

    /// Whether world point `p` gets the sun (1.0) or lies in shadow
    /// (0.0), with depth tolerance `bias` ([`SunMap::bias`]). Points
    /// outside the map, and every point while the map is off, get it.
    #[inline]
    pub(crate) fn sunlit(&self, p: Vector3D, bias: f32) -> f32 {
        let Some(pose) = &self.pose else {
            return 1.0;
        };
        if !self.on {
            return 1.0;
        }
        let a = &pose.axes;
        let d = sub(p, pose.origin);
        let t = dot(d, a.forward);
        if t <= 0.0 {
            return 1.0;
        }
        let half = 0.5 * SIZE as f32;
        let k = self.scale / DISTANCE;
        let u = dot(d, a.right) * k + half;
        let v = half - dot(d, a.up) * k;
        if !(u >= 0.0 && v >= 0.0 && u < SIZE as f32 && v < SIZE as f32) {
            return 1.0;
        }
        let seen = self.g.depth[v as usize * SIZE + u as usize];
        if t > seen + bias {
            0.0
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::math::v3;
    use crate::world::rendering::raster::sun_map;
    use crate::world::testing;
    use carla_server::rpc::DEFAULT_WEATHER;
    use carla_server::types::Control;

    /// On a 60 x 60 grid over the map's middle, the first surface seen from
    /// above: the map says it is in shadow where a ray from it towards the
    /// sun meets the scene, on nearly every such point, for a high and a
    /// low sun; a camera at night or under full cloud has no map.
    #[test]
    fn the_map_finds_the_shadows_a_ray_to_the_sun_finds() {
        let mut w = testing::world(5, 15, 123_456_789, 3);
        w.step(&Control::default(), 0.5);
        let camera = CameraPose::new(
            add(w.player_transform().location, v3(0.0, 0.0, 1.5)),
            &w.player_transform().rotation,
        );
        for (azimuth, altitude) in [(-1.0, 45.0), (130.0, 20.0)] {
            let mut weather = DEFAULT_WEATHER;
            (weather[4], weather[5]) = (azimuth, altitude);
            w.set_weather(weather);
            let scene = w.scene();
            let light = Lighting::of(&weather);
            let mut map = SunMap::default();
            sun_map(scene, &camera, &light, &mut map);
            assert!(map.is_on());
            let (pose, _) = SunMap::view(&camera, &light).unwrap();
            let centre = add(pose.origin, scale(light.sun, -DISTANCE));
            let (mut agree, mut total, mut dark) = (0, 0, 0);
            // Over the middle 80% of the map (its edges may hold a part
            // of an occluder only).
            let step = 0.8 * REACH / 60.0;
            for i in -30..30 {
                for j in -30..30 {
                    let top = add(centre, v3(i as f32 * step, j as f32 * step, 60.0));
                    let Some(h) = scene.raycast(top, v3(0.0, 0.0, -1.0), 200.0) else {
                        continue;
                    };
                    let cos = light.sun_cos(h.normal);
                    if cos <= 0.1 {
                        continue;
                    }
                    let from = add(h.point, scale(h.normal, 0.02));
                    let shadow = scene.raycast(from, light.sun, 2000.0).is_some();
                    let mapped = map.sunlit(h.point, SunMap::bias(cos)) == 0.0;
                    total += 1;
                    dark += usize::from(shadow);
                    agree += usize::from(shadow == mapped);
                }
            }
            let share = agree as f64 / total as f64;
            eprintln!("sun at {altitude}°: {agree} of {total} agree, {dark} in shadow");
            assert!(
                share >= 0.95 && dark * 10 > total && total > 1500,
                "sun at {altitude}°: {agree} of {total} agree, {dark} in shadow"
            );
        }
        let mut night = DEFAULT_WEATHER;
        night[5] = -30.0;
        assert!(SunMap::view(&camera, &Lighting::of(&night)).is_none());
        let mut overcast = DEFAULT_WEATHER;
        (overcast[0], overcast[1]) = (100.0, 100.0);
        assert!(SunMap::view(&camera, &Lighting::of(&overcast)).is_some());
    }
}
