//! The demo world's look, shared by the rasterizer ([`super::raster`]) and
//! the ray-cast reference camera ([`super::raycast`]): albedo × the
//! weather's light ([`Lighting`]: sky ambient plus sun Lambert), darker
//! where the ground is wet, with surface detail (windows and doors on
//! facades, paving and curbs, asphalt and grass grain and wear, puddles,
//! street lamp heads glowing at night), faded into the horizon
//! colour with distance and fog; the sky is a gradient from the horizon
//! to the zenith. Colours are BGRA bytes.

use super::light::Lighting;
use crate::world::math::{dot, floor, floor_i32, sub};
use crate::world::scene::tags::tag;
use crate::world::scene::LAMP_REACH;
use carla_server::types::Vector3D;

/// Dark glass of vehicle windows.
pub(crate) const WINDOW: [u8; 3] = [38, 46, 56];

/// A curb's brightness against the sidewalk's slabs.
const CURB: f32 = 1.15;

/// `x mod k` in [0, k) for k > 0.
fn wrap(x: f32, k: f32) -> f32 {
    x - floor(x * (1.0 / k)) * k
}

/// A cheap hash of a lattice point, in [0, 1).
fn hash(x: f32, y: f32) -> f32 {
    let (a, b) = (floor_i32(x) as u32, floor_i32(y) as u32);
    let mut h = a.wrapping_mul(0x9E37_79B1) ^ b.wrapping_mul(0x85EB_CA77);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// The kind of surface detail, fixed for a face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Detail {
    Plain,
    /// Windows on a facade running along x (normal ±y) or along y.
    FacadeAlongX,
    FacadeAlongY,
    /// Paving slabs.
    Paving,
    /// A curb: the sidewalk's side, lighter concrete.
    Curb,
    /// Asphalt or grass grain.
    Grain,
}

impl Detail {
    /// The detail of internal tag `t` on a face of normal `n`.
    pub(crate) fn of(t: u8, n: Vector3D) -> Detail {
        match t {
            tag::BUILDINGS if n.z == 0.0 => {
                if n.x != 0.0 {
                    Detail::FacadeAlongY
                } else {
                    Detail::FacadeAlongX
                }
            }
            tag::SIDEWALKS if n.z.abs() < 0.5 => Detail::Curb,
            tag::SIDEWALKS => Detail::Paving,
            tag::ROADS | tag::VEGETATION | tag::TERRAIN if n.z > 0.5 => Detail::Grain,
            _ => Detail::Plain,
        }
    }

    /// The brightness factor at point `p`.
    #[inline]
    pub(crate) fn at(self, p: Vector3D) -> f32 {
        match self {
            Detail::Plain => 1.0,
            Detail::FacadeAlongX => facade(p.x, p.z),
            Detail::FacadeAlongY => facade(p.y, p.z),
            Detail::Paving => paving(p.x, p.y),
            Detail::Curb => CURB,
            Detail::Grain => grain(p.x, p.y),
        }
    }

    /// [`Detail::at`] of the points `(x[i], y[i], z[i])` into `k[i]`, one
    /// branch-free loop per kind (vectorized): the same values.
    #[inline]
    pub(crate) fn fill(self, x: &[f32], y: &[f32], z: &[f32], k: &mut [f32]) {
        let (x, y, z) = (&x[..k.len()], &y[..k.len()], &z[..k.len()]);
        match self {
            Detail::Plain => k.fill(1.0),
            Detail::Curb => k.fill(CURB),
            Detail::FacadeAlongX => {
                for ((k, &x), &z) in k.iter_mut().zip(x).zip(z) {
                    *k = facade(x, z);
                }
            }
            Detail::FacadeAlongY => {
                for ((k, &y), &z) in k.iter_mut().zip(y).zip(z) {
                    *k = facade(y, z);
                }
            }
            Detail::Paving => {
                for ((k, &x), &y) in k.iter_mut().zip(x).zip(y) {
                    *k = paving(x, y);
                }
            }
            Detail::Grain => {
                for ((k, &x), &y) in k.iter_mut().zip(x).zip(y) {
                    *k = grain(x, y);
                }
            }
        }
    }
}

/// A facade's windows at `along` metres along it, `z` up, and a door
/// every 12 m on the ground floor.
#[inline(always)]
fn facade(along: f32, z: f32) -> f32 {
    let (wa, wz) = (wrap(along, 3.0), wrap(z, 3.2));
    // `&`, not `&&`: no branches to mispredict pixel by pixel.
    let window = (z > 1.0) & (0.8..2.2).contains(&wa) & (1.0..2.3).contains(&wz);
    let door = (z < 2.1) & (wrap(along, 12.0) < 1.2);
    if door {
        0.3
    } else if window {
        0.45
    } else {
        1.0
    }
}

/// [`Detail::Paving`] at `(x, y)`: slabs with darker joints.
#[inline(always)]
pub(crate) fn paving(x: f32, y: f32) -> f32 {
    let joint = (wrap(x, 1.0) < 0.04) | (wrap(y, 1.0) < 0.04);
    let slab = 0.95 + 0.1 * hash(x, y);
    if joint {
        0.8
    } else {
        slab
    }
}

/// [`Detail::Grain`] at `(x, y)`: a fine grain over patches 4 m across
/// a little lighter or darker (wear and repairs).
#[inline(always)]
pub(crate) fn grain(x: f32, y: f32) -> f32 {
    (0.95 + 0.08 * hash(x * 3.0, y * 3.0)) * (0.96 + 0.06 * hash(x * 0.25, y * 0.25))
}

/// The nearest colour level to `x` in [0, 255]: one add and a mask,
/// vectorizable (no float-to-int conversion).
#[inline(always)]
pub(crate) fn level(x: f32) -> u32 {
    // 1.5 · 2²³ has unit spacing: the sum is rounded to an integer, which
    // sits in the low bits of the mantissa.
    (x + 12_582_912.0).to_bits() & 0xFF
}

/// BGRA bytes of RGB levels in [0, 255], as a little-endian word.
#[inline(always)]
pub(crate) fn bgra(r: f32, g: f32, b: f32) -> u32 {
    level(b) | level(g) << 8 | level(r) << 16 | 0xFF00_0000
}

/// The sky seen along `d` (any length; `len` = |d|) under `l`.
#[inline]
pub(crate) fn sky(d: Vector3D, len: f32, l: &Lighting) -> [u8; 4] {
    let unit = Vector3D {
        x: d.x / len,
        y: d.y / len,
        z: d.z / len,
    };
    if let Some([r, g, b]) = l.disc_along(unit) {
        return bgra(r, g, b).to_le_bytes();
    }
    let k = (d.z / len).clamp(0.0, 1.0).sqrt();
    let c: [f32; 3] =
        std::array::from_fn(|i| l.zenith[i] + (l.horizon[i] - l.zenith[i]) * (1.0 - k));
    bgra(c[0], c[1], c[2]).to_le_bytes()
}

/// How much darker wet ground makes a surface of internal tag `t` (1 for
/// what the rain does not darken: walls, cars, poles).
pub(crate) fn wet_factor(t: u8, l: &Lighting) -> f32 {
    match t {
        tag::ROADS | tag::ROAD_LINES => 1.0 - 0.45 * l.wet,
        tag::SIDEWALKS | tag::TERRAIN => 1.0 - 0.3 * l.wet,
        _ => 1.0,
    }
}

/// A surface's lit colour before its detail: `albedo` × the light on unit
/// normal `n` × the wetness of tag `t`, RGB.
pub(crate) fn lit(albedo: [u8; 3], n: Vector3D, t: u8, l: &Lighting) -> [f32; 3] {
    if t == tag::VEHICLE_LAMPS {
        return albedo.map(f32::from);
    }
    let light = l.on(n);
    let wet = wet_factor(t, l);
    let glow = glow(t, albedo, l);
    std::array::from_fn(|i| f32::from(albedo[i]) * light[i] * wet + glow[i])
}

/// The light a lamp gives out: none by day; at night a street lamp's
/// head its full warm white, a traffic light's lamp its colour.
#[inline]
fn glow(t: u8, albedo: [u8; 3], l: &Lighting) -> [f32; 3] {
    match t {
        tag::STREET_LAMPS => LAMP_RGB.map(|c| 255.0 * c * l.night),
        tag::TRAFFIC_LIGHTS => albedo.map(|c| f32::from(c) * l.night),
        _ => [0.0; 3],
    }
}

/// A surface's albedo × the wetness of tag `t`, RGB: what a light of its
/// own (a street lamp's) multiplies.
pub(crate) fn base(albedo: [u8; 3], t: u8, l: &Lighting) -> [f32; 3] {
    let wet = wet_factor(t, l);
    albedo.map(|c| f32::from(c) * wet)
}

/// A street lamp's colour (warm white), RGB factors.
pub(crate) const LAMP_RGB: [f32; 3] = [1.0, 0.82, 0.6];
/// A street lamp's strength: 0.45 on the ground under it.
const LAMP_POWER: f32 = 1.4;

/// The light `lamps` (where each shines from) give point `p` of unit
/// normal `n`: Lambert, times `36 / (36 + d²)` and a smooth fade to 0 at
/// [`LAMP_REACH`] metres. Before the night's factor and the lamp's colour.
#[inline]
pub(crate) fn lamp_light<'a>(
    p: Vector3D,
    n: Vector3D,
    lamps: impl Iterator<Item = &'a Vector3D>,
) -> f32 {
    let reach2 = LAMP_REACH * LAMP_REACH;
    let mut sum = 0.0;
    for l in lamps {
        let d = sub(*l, p);
        let d2 = dot(d, d);
        if d2 >= reach2 {
            continue;
        }
        let facing = dot(n, d) / d2.sqrt().max(1e-3);
        if facing > 0.0 {
            let fade = 1.0 - d2 / reach2;
            sum += facing * fade * fade * 36.0 / (36.0 + d2);
        }
    }
    sum * LAMP_POWER
}

/// [`lit`] in the sun's shadow: the sky's light alone.
pub(crate) fn shadowed(albedo: [u8; 3], n: Vector3D, t: u8, l: &Lighting) -> [f32; 3] {
    if t == tag::VEHICLE_LAMPS {
        return albedo.map(f32::from);
    }
    let light = l.sky_on(n);
    let wet = wet_factor(t, l);
    let glow = glow(t, albedo, l);
    std::array::from_fn(|i| f32::from(albedo[i]) * light[i] * wet + glow[i])
}

/// `shadow` + `sun` × (`lit` − `shadow`): a colour `sun` of the way from
/// its shadowed to its lit self.
#[inline(always)]
pub(crate) fn in_sun(shadow: f32, lit: f32, sun: f32) -> f32 {
    shadow + (lit - shadow) * sun
}

/// Whether road point `(x, y)` stands in a puddle when `share` of the road
/// is covered: patches a few metres across.
#[inline]
pub(crate) fn puddle(x: f32, y: f32, share: f32) -> bool {
    // Smooth value noise: the lattice's hashes, bilinear over 3 m cells.
    let (u, v) = (x * (1.0 / 3.0), y * (1.0 / 3.0));
    let (fu, fv) = (u - floor(u), v - floor(v));
    let a = hash(u, v) + (hash(u + 1.0, v) - hash(u, v)) * fu;
    let b = hash(u, v + 1.0) + (hash(u + 1.0, v + 1.0) - hash(u, v + 1.0)) * fu;
    a + (b - a) * fv < share
}

/// Whether puddles lie on a surface of tag `t` and unit normal `n`: roads
/// facing up.
pub(crate) fn puddles_on(t: u8, n: Vector3D) -> bool {
    t == tag::ROADS && n.z > 0.5
}

/// What a puddle shows: mostly the sky's horizon, a little of the road.
#[inline]
pub(crate) fn mirror(road: f32, sky: f32) -> f32 {
    0.3 * road + 0.55 * sky
}

/// The colour of a lit surface (`lit`: RGB, before the detail factor
/// `detail`) faded by `fog` into `horizon`.
#[inline]
pub(crate) fn blend(lit: [f32; 3], detail: f32, fog: f32, horizon: [f32; 3]) -> [u8; 4] {
    let c: [f32; 3] = std::array::from_fn(|i| {
        let lit = (lit[i] * detail).min(255.0);
        lit + (horizon[i] - lit) * fog
    });
    bgra(c[0], c[1], c[2]).to_le_bytes()
}

/// A surface of internal tag `t` and base colour `albedo` at point `p`
/// (unit normal `n`), seen from `metres` away, lit by `l` and `sun` (1) or
/// in the sun's shadow (0), and by street lamps giving `lamp`
/// ([`lamp_light`]).
pub(crate) fn surface(
    (p, n): (Vector3D, Vector3D),
    t: u8,
    albedo: [u8; 3],
    metres: f32,
    l: &Lighting,
    (sun, lamp): (f32, f32),
) -> [u8; 4] {
    let detail = Detail::of(t, n).at(p);
    let (lit, dark) = (lit(albedo, n, t, l), shadowed(albedo, n, t, l));
    let mut c: [f32; 3] =
        std::array::from_fn(|i| (in_sun(dark[i], lit[i], sun) * detail).min(255.0));
    if l.night > 0.0 {
        let (base, glow) = (base(albedo, t, l), lamp * l.night * detail);
        c = std::array::from_fn(|i| (c[i] + base[i] * LAMP_RGB[i] * glow).min(255.0));
    }
    if puddles_on(t, n) && puddle(p.x, p.y, l.puddles) {
        c = std::array::from_fn(|i| mirror(c[i], l.horizon[i]));
    }
    blend(c, 1.0, l.fog(metres, p.z), l.horizon)
}

/// A unit normal as CARLA 0.9.16's normals camera encodes it: each world
/// component mapped from [-1, 1] to [0, 255] (x in R, y in G, z in B),
/// BGRA bytes. The zero vector (the sky) is mid-grey.
pub(crate) fn normal_bgra(n: Vector3D) -> [u8; 4] {
    let c = |v: f32| round_up(((v.clamp(-1.0, 1.0) + 1.0) * 127.5).max(0.0)) as u8;
    [c(n.z), c(n.y), c(n.x), 255]
}

/// `x.round()` for x in [0, 2²²) (halves up), with no libm call.
#[inline]
fn round_up(x: f32) -> f32 {
    let r = floor(x);
    r + if x - r >= 0.5 { 1.0 } else { 0.0 }
}

/// The flat ground's normal.
pub(crate) const UP: Vector3D = Vector3D {
    x: 0.0,
    y: 0.0,
    z: 1.0,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::math::v3;

    #[test]
    fn the_sky_darkens_towards_the_zenith_and_fog_greys_far_surfaces() {
        let l = Lighting::default();
        let horizon = sky(v3(1.0, 0.0, 0.0), 1.0, &l);
        let zenith = sky(v3(0.0, 0.0, 2.0), 2.0, &l);
        let [r, g, b] = l.horizon;
        assert_eq!(horizon, bgra(r, g, b).to_le_bytes());
        let [r, g, b] = l.zenith;
        assert_eq!(zenith, bgra(r, g, b).to_le_bytes());
        // A clear day: blue overhead, paler at the horizon.
        assert!(
            zenith[0] > zenith[2] + 80 && horizon[2] > zenith[2] + 80,
            "{zenith:?} {horizon:?}"
        );
        assert_eq!(
            [0.0, 0.49, 0.51, 254.5, 255.0].map(level),
            [0, 0, 1, 254, 255]
        );
        let red = [200, 0, 0];
        // A red wall `metres` away, in the sun (1) or its shadow (0).
        let wall = |metres: f32, sun: f32| {
            let at = (v3(0.0, 0.0, 0.0), UP);
            surface(at, tag::WALLS, red, metres, &l, (sun, 0.0))
        };
        let (near, far, dark) = (wall(1.0, 1.0), wall(5000.0, 1.0), wall(1.0, 0.0));
        assert!(
            u16::from(dark[2]) * 4 < u16::from(near[2]) * 3,
            "the shadow: {dark:?} {near:?}"
        );
        assert!(near[2] > 150 && near[0] < 5, "{near:?}");
        assert!(far[0] > 150, "blue of the fog: {far:?}");
        for i in 0..=100_000 {
            let x = i as f32 * (255.0 / 100_000.0);
            assert_eq!(round_up(x), x.round(), "{x}");
        }
        for x in [
            0.0,
            0.5,
            127.5,
            254.5,
            255.0,
            0.499_999_97,
            1.5 - f32::EPSILON,
        ] {
            assert_eq!(round_up(x), x.round(), "{x}");
        }
    }

    #[test]
    fn lamps_glow_at_night_and_facades_curbs_and_asphalt_have_detail() {
        use crate::world::rendering::light::Lighting;
        let mut w = carla_server::rpc::DEFAULT_WEATHER;
        w[5] = -30.0; // sun_altitude_angle: night
        let (day, night) = (Lighting::default(), Lighting::of(&w));
        let head = [225, 225, 215];
        // A lamp head lit like any surface by day, glowing at night; a
        // pole beside it dark at night.
        let by_day = lit(head, UP, tag::STREET_LAMPS, &day);
        assert_eq!(by_day, lit(head, UP, tag::POLES, &day));
        let glowing = lit(head, UP, tag::STREET_LAMPS, &night);
        assert!(glowing.iter().all(|&c| c > 140.0), "{glowing:?}");
        assert!(lit(head, UP, tag::POLES, &night).iter().all(|&c| c < 40.0));
        assert!(shadowed(head, UP, tag::STREET_LAMPS, &night)[0] > 200.0);
        // A red traffic light's lamp: red at night.
        let red = lit([220, 20, 20], UP, tag::TRAFFIC_LIGHTS, &night);
        assert!(red[0] > 150.0 && red[1] < 40.0, "{red:?}");
        // A door on the ground floor, darker than the wall; windows above.
        assert_eq!(facade(0.5, 1.0), 0.3);
        assert_eq!(facade(6.0, 1.0), 1.0);
        assert_eq!(facade(4.0, 4.5), 0.45);
        // A sidewalk's side is a curb, its top paving.
        assert_eq!(Detail::of(tag::SIDEWALKS, v3(0.0, 1.0, 0.0)), Detail::Curb);
        assert_eq!(Detail::of(tag::SIDEWALKS, UP), Detail::Paving);
        // Asphalt: patches of wear 4 m across under the grain.
        let patch =
            |x: f32, y: f32| (0..9).map(|i| grain(x + i as f32 * 0.37, y)).sum::<f32>() / 9.0;
        let means: Vec<f32> = (0..20).map(|i| patch(i as f32 * 4.0 + 0.5, 0.5)).collect();
        let spread = means.iter().fold(0.0f32, |m, a| m.max(*a))
            - means.iter().fold(2.0f32, |m, a| m.min(*a));
        assert!(spread > 0.03, "patches {means:?}");
    }
}
