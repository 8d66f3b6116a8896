//! How a walker is drawn: a figure of boxes on its skeleton's body bones
//! (head and hair, neck, torso, pelvis, arms, hands, legs, shoes) in
//! clothes of its own, which the cameras, the lidar and the ray casts
//! all see (the scene's [`Part`]s of its actor).

use super::pedestrians::{Walker, HALF_HEIGHT};
use super::skeleton::{Placed, BODY};
use crate::world::math::{add, dot, length, scale, sub, v3, Axes, Rect};
use crate::world::scene::tags::tag;
use crate::world::scene::{ActorBox, Part};
use carla_server::types::{Rotation3D, Vector3D};

/// Walker `w`'s figure: its skeleton's body as it stands, pieces
/// appended to `parts`; the box they lie in, with `parts` naming them.
pub(crate) fn figure(w: &Walker, parts: &mut Vec<Part>) -> ActorBox {
    let (id, skeleton, dress) = (w.id, &w.skeleton, &w.dress);
    let frame = frame(w);
    let mut b = [Placed::default(); BODY];
    skeleton.place(&frame, &mut b);
    let start = parts.len();
    let d = dress;
    let forearm = if d.long_sleeves { d.shirt } else { d.skin };
    // A child's figure is the adult's, smaller.
    let k = skeleton.size();
    let block = |bone: &Placed, offset: Vector3D, half: [f32; 3], albedo| {
        block(bone, scale(offset, k), half.map(|h| h * k), albedo)
    };
    let limb =
        |bone: &Placed, to, half: [f32; 2], albedo| limb(bone, to, half.map(|h| h * k), albedo);
    let mut put = |p: Part| parts.push(p);
    put(block(
        &b[1],
        v3(0.0, 0.0, -0.05),
        [0.11, 0.17, 0.09],
        d.trousers,
    ));
    // The waist narrower than the chest.
    put(limb(&b[2], b[3].at, [0.11, 0.165], d.shirt));
    put(limb(&b[3], b[4].at, [0.12, 0.2], d.shirt));
    put(block(&b[4], v3(0.0, 0.0, 0.04), [0.05, 0.05, 0.05], d.skin));
    put(block(
        &b[5],
        v3(0.0, 0.0, 0.09),
        [0.105, 0.085, 0.115],
        d.skin,
    ));
    put(block(
        &b[5],
        v3(-0.02, 0.0, 0.19),
        [0.11, 0.09, 0.035],
        d.hair,
    ));
    for side in [0, 4] {
        let (arm, fore, hand) = (9 + side, 10 + side, 11 + side);
        put(limb(&b[arm], b[fore].at, [0.055, 0.055], d.shirt));
        put(limb(&b[fore], b[hand].at, [0.045, 0.045], forearm));
        put(block(
            &b[hand],
            v3(0.0, 0.0, -0.08),
            [0.045, 0.025, 0.085],
            d.skin,
        ));
    }
    for side in [0, 5] {
        let (thigh, leg, foot) = (16 + side, 17 + side, 18 + side);
        put(limb(&b[thigh], b[leg].at, [0.08, 0.075], d.trousers));
        put(limb(&b[leg], b[foot].at, [0.06, 0.06], d.trousers));
        put(block(
            &b[foot],
            v3(0.06, 0.0, -0.035),
            [0.13, 0.05, 0.045],
            d.shoes,
        ));
    }
    bounds(id, &frame, &parts[start..], (start, parts.len()))
}

/// The walker's frame: its capsule's centre, turned by its yaw.
pub(crate) fn frame(w: &Walker) -> Placed {
    Placed {
        at: v3(w.x, w.y, w.z + HALF_HEIGHT),
        axes: Axes::from_rotation(&Rotation3D {
            pitch: 0.0,
            yaw: w.yaw.to_degrees(),
            roll: 0.0,
        }),
    }
}

/// A box at `offset` (in `bone`'s frame) with half sizes `half`.
fn block(bone: &Placed, offset: Vector3D, half: [f32; 3], albedo: [u8; 3]) -> Part {
    let a = &bone.axes;
    Part {
        c: add(bone.at, a.to_world(offset)),
        axes: [a.forward, a.right, a.up],
        half,
        albedo,
        tag: tag::PEDESTRIANS,
    }
}

/// A limb from `bone` to `to` (its child): `half` deep and wide.
fn limb(bone: &Placed, to: Vector3D, half: [f32; 2], albedo: [u8; 3]) -> Part {
    let a = &bone.axes;
    Part {
        c: scale(add(bone.at, to), 0.5),
        axes: [a.forward, a.right, a.up],
        half: [half[0], half[1], 0.5 * length(sub(to, bone.at))],
        albedo,
        tag: tag::PEDESTRIANS,
    }
}

/// The box turned by the figure's yaw that holds `pieces`.
fn bounds(id: u32, frame: &Placed, pieces: &[Part], range: (usize, usize)) -> ActorBox {
    let f = &frame.axes;
    // Along each of the walker's level axes and the vertical: a piece
    // reaches its centre's projection ± the sum of its half sizes'
    // projections (its corners' extremes, without the corners).
    let dirs = [
        v3(f.forward.x, f.forward.y, 0.0),
        v3(f.right.x, f.right.y, 0.0),
        v3(0.0, 0.0, 1.0),
    ];
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for p in pieces {
        let r = sub(p.c, frame.at);
        for (j, d) in dirs.iter().enumerate() {
            let centre = if j == 2 { p.c.z } else { dot(r, *d) };
            let reach: f32 = (0..3).map(|k| dot(p.axes[k], *d).abs() * p.half[k]).sum();
            lo[j] = lo[j].min(centre - reach);
            hi[j] = hi[j].max(centre + reach);
        }
    }
    // Centred on the walker, as wide as its furthest piece each way.
    let hx = lo[0].abs().max(hi[0].abs()) + 1e-3;
    let hy = lo[1].abs().max(hi[1].abs()) + 1e-3;
    let yaw = f.forward.y.atan2(f.forward.x);
    ActorBox {
        id,
        rect: Rect::new(frame.at.x, frame.at.y, yaw, hx, hy),
        z0: lo[2] - 1e-3,
        z1: hi[2] + 1e-3,
        tag: tag::PEDESTRIANS,
        albedo: [0; 3],
        window_z: f32::INFINITY,
        parts: (range.0 as u32, range.1 as u32),
    }
}
