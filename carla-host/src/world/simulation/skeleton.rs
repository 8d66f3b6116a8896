//! A walker's skeleton: CARLA's bone names and hierarchy (its walkers'
//! `crl_*` bones, fingers and eyes included), a rest pose of an adult
//! 1.8 m tall, a walking cycle that follows the walker's speed, and a pose
//! a client sets bone by bone (`set_bones`) and blends over the cycle
//! (`blend_pose`). The body's bones are what the cameras draw
//! ([`super::figure`]) and what `get_bones` reports ([`super::bones`]).
//!
//! Frames: a bone's transform is relative to its parent's (offset, then
//! rotation, Unreal's rotator: x forward, y right, z up); the root's is
//! relative to the walker (its origin at the capsule's centre,
//! [`super::pedestrians::HALF_HEIGHT`] above the ground).

use crate::world::math::{add, scale, sub, v3, Axes};
use carla_server::types::{ActorTransform, Rotation3D, Vector3D};

/// Bones drawn (the body's; the fingers and eyes follow).
pub(crate) const BODY: usize = 26;
/// Every bone.
pub(crate) const COUNT: usize = 66;
/// `(name, parent, rest offset from the parent in its frame, metres)`,
/// parents first (the root's parent is itself).
#[rustfmt::skip]
pub(crate) const BONES: [(&str, u8, [f32; 3]); COUNT] = [
    ("crl_root", 0, [0.0, 0.0, -0.9]),
    ("crl_hips__C", 0, [0.0, 0.0, 0.95]),
    ("crl_spine__C", 1, [0.0, 0.0, 0.1]),
    ("crl_spine01__C", 2, [0.0, 0.0, 0.25]),
    ("crl_neck__C", 3, [0.0, 0.0, 0.19]),
    ("crl_Head__C", 4, [0.0, 0.0, 0.09]),
    ("crl_eye__L", 5, [0.09, -0.032, 0.07]),
    ("crl_eye__R", 5, [0.09, 0.032, 0.07]),
    ("crl_shoulder__L", 3, [0.0, -0.06, 0.15]),
    ("crl_arm__L", 8, [0.0, -0.155, 0.0]),
    ("crl_foreArm__L", 9, [0.0, 0.0, -0.28]),
    ("crl_hand__L", 10, [0.0, 0.0, -0.25]),
    ("crl_shoulder__R", 3, [0.0, 0.06, 0.15]),
    ("crl_arm__R", 12, [0.0, 0.155, 0.0]),
    ("crl_foreArm__R", 13, [0.0, 0.0, -0.28]),
    ("crl_hand__R", 14, [0.0, 0.0, -0.25]),
    ("crl_thigh__L", 1, [0.0, -0.1, -0.04]),
    ("crl_leg__L", 16, [0.0, 0.0, -0.43]),
    ("crl_foot__L", 17, [0.0, 0.0, -0.41]),
    ("crl_toe__L", 18, [0.13, 0.0, -0.05]),
    ("crl_toeEnd__L", 19, [0.06, 0.0, 0.0]),
    ("crl_thigh__R", 1, [0.0, 0.1, -0.04]),
    ("crl_leg__R", 21, [0.0, 0.0, -0.43]),
    ("crl_foot__R", 22, [0.0, 0.0, -0.41]),
    ("crl_toe__R", 23, [0.13, 0.0, -0.05]),
    ("crl_toeEnd__R", 24, [0.06, 0.0, 0.0]),
    ("crl_handThumb__L", 11, [0.035, -0.01, -0.03]),
    ("crl_handThumb01__L", 26, [0.018, 0.0, -0.018]),
    ("crl_handThumb02__L", 27, [0.0153, 0.0, -0.0153]),
    ("crl_handThumbEnd__L", 28, [0.0126, 0.0, -0.0126]),
    ("crl_handIndex__L", 11, [0.025, -0.01, -0.085]),
    ("crl_handIndex01__L", 30, [0.0, 0.0, -0.03]),
    ("crl_handIndex02__L", 31, [0.0, 0.0, -0.0255]),
    ("crl_handIndexEnd__L", 32, [0.0, 0.0, -0.021]),
    ("crl_handMiddle__L", 11, [0.008, -0.01, -0.09]),
    ("crl_handMiddle01__L", 34, [0.0, 0.0, -0.032]),
    ("crl_handMiddle02__L", 35, [0.0, 0.0, -0.0272]),
    ("crl_handMiddleEnd__L", 36, [0.0, 0.0, -0.0224]),
    ("crl_handRing__L", 11, [-0.008, -0.01, -0.085]),
    ("crl_handRing01__L", 38, [0.0, 0.0, -0.03]),
    ("crl_handRing02__L", 39, [0.0, 0.0, -0.0255]),
    ("crl_handRingEnd__L", 40, [0.0, 0.0, -0.021]),
    ("crl_handPinky__L", 11, [-0.024, -0.01, -0.075]),
    ("crl_handPinky01__L", 42, [0.0, 0.0, -0.024]),
    ("crl_handPinky02__L", 43, [0.0, 0.0, -0.0204]),
    ("crl_handPinkyEnd__L", 44, [0.0, 0.0, -0.0168]),
    ("crl_handThumb__R", 15, [0.035, 0.01, -0.03]),
    ("crl_handThumb01__R", 46, [0.018, 0.0, -0.018]),
    ("crl_handThumb02__R", 47, [0.0153, 0.0, -0.0153]),
    ("crl_handThumbEnd__R", 48, [0.0126, 0.0, -0.0126]),
    ("crl_handIndex__R", 15, [0.025, 0.01, -0.085]),
    ("crl_handIndex01__R", 50, [0.0, 0.0, -0.03]),
    ("crl_handIndex02__R", 51, [0.0, 0.0, -0.0255]),
    ("crl_handIndexEnd__R", 52, [0.0, 0.0, -0.021]),
    ("crl_handMiddle__R", 15, [0.008, 0.01, -0.09]),
    ("crl_handMiddle01__R", 54, [0.0, 0.0, -0.032]),
    ("crl_handMiddle02__R", 55, [0.0, 0.0, -0.0272]),
    ("crl_handMiddleEnd__R", 56, [0.0, 0.0, -0.0224]),
    ("crl_handRing__R", 15, [-0.008, 0.01, -0.085]),
    ("crl_handRing01__R", 58, [0.0, 0.0, -0.03]),
    ("crl_handRing02__R", 59, [0.0, 0.0, -0.0255]),
    ("crl_handRingEnd__R", 60, [0.0, 0.0, -0.021]),
    ("crl_handPinky__R", 15, [-0.024, 0.01, -0.075]),
    ("crl_handPinky01__R", 62, [0.0, 0.0, -0.024]),
    ("crl_handPinky02__R", 63, [0.0, 0.0, -0.0204]),
    ("crl_handPinkyEnd__R", 64, [0.0, 0.0, -0.0168]),
];

/// Bones the cycle moves.
const HIPS: usize = 1;
const SPINE: usize = 2;
const ARM: [usize; 2] = [9, 13];
const FOREARM: [usize; 2] = [10, 14];
const THIGH: [usize; 2] = [16, 21];
const LEG: [usize; 2] = [17, 22];
const FOOT: [usize; 2] = [18, 23];

/// Metres walked per cycle (two steps).
const CYCLE: f32 = 1.3;
/// The speed (m/s) of a full-size stride; faster strides swing further.
const STRIDE_SPEED: f32 = 1.4;

/// A bone's transform relative to its parent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Local {
    pub offset: Vector3D,
    pub rotation: Rotation3D,
}

/// A bone placed in a frame (the walker's or the world's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placed {
    pub at: Vector3D,
    pub axes: Axes,
}

impl Default for Placed {
    fn default() -> Placed {
        Placed {
            at: Vector3D::default(),
            axes: Axes::from_rotation(&Rotation3D::default()),
        }
    }
}

impl Placed {
    /// `local` placed inside this frame.
    fn then(&self, local: &Local) -> Placed {
        // Most bones are not turned against their parent: no trigonometry.
        let axes = if local.rotation == Rotation3D::default() {
            self.axes
        } else {
            Axes::from_rotation(&local.rotation).within(&self.axes)
        };
        Placed {
            at: add(self.at, self.axes.to_world(local.offset)),
            axes,
        }
    }
    /// As an Unreal transform.
    pub(crate) fn transform(&self) -> ActorTransform {
        ActorTransform {
            location: self.at,
            rotation: rotator(&self.axes),
        }
    }
}

/// The rotator of orthonormal axes (the inverse of
/// [`Axes::from_rotation`]).
pub(crate) fn rotator(a: &Axes) -> Rotation3D {
    let f = a.forward;
    Rotation3D {
        pitch: f.z.clamp(-1.0, 1.0).asin().to_degrees(),
        yaw: f.y.atan2(f.x).to_degrees(),
        roll: (-a.right.z).atan2(a.up.z).to_degrees(),
    }
}

/// The index of the bone named `name`.
pub(crate) fn index(name: &str) -> Option<usize> {
    BONES.iter().position(|(n, _, _)| *n == name)
}

/// A walker's skeleton: where it is in its walking cycle, and the pose a
/// client set.
#[derive(Clone, Debug)]
pub(crate) struct Skeleton {
    /// Its size against the adult's (a child's is smaller).
    size: f32,
    /// Radians into the cycle.
    phase: f32,
    /// How far the limbs swing: 0 standing, 1 at [`STRIDE_SPEED`].
    swing: f32,
    /// The client's pose (`set_bones`), from the rest pose.
    set: Option<Box<[Local; COUNT]>>,
    /// How much of it shows (`blend_pose`).
    blend: f32,
}

impl Default for Skeleton {
    fn default() -> Skeleton {
        Skeleton::of_size(1.0)
    }
}

impl Skeleton {
    /// A skeleton `size` times the adult's (0.5 to 1.5), standing.
    pub(crate) fn of_size(size: f32) -> Skeleton {
        Skeleton {
            size: if size.is_finite() {
                size.clamp(0.5, 1.5)
            } else {
                1.0
            },
            phase: 0.0,
            swing: 0.0,
            set: None,
            blend: 0.0,
        }
    }

    /// Its size against the adult's.
    pub(crate) fn size(&self) -> f32 {
        self.size
    }

    /// Walks `dt` seconds at `speed` m/s: the cycle advances by the
    /// distance, the swing follows the speed within a few tenths of a
    /// second.
    pub(crate) fn advance(&mut self, speed: f32, dt: f32) {
        let (speed, dt) = (finite(speed).abs().min(20.0), finite(dt).clamp(0.0, 1.0));
        let tau = std::f32::consts::TAU;
        self.phase = (self.phase + tau * speed * dt / (CYCLE * self.size)) % tau;
        let target = (speed / STRIDE_SPEED).min(1.4);
        self.swing += (target - self.swing) * (dt * 8.0).min(1.0);
    }

    /// Bone `i` as the walking cycle has it now.
    pub(crate) fn animated(&self, i: usize) -> Local {
        let mut l = Local {
            offset: self.rest(i),
            rotation: Rotation3D::default(),
        };
        let a = self.swing;
        if a == 0.0 {
            return l;
        }
        let pitch = |deg: f32| Rotation3D {
            pitch: deg,
            yaw: 0.0,
            roll: 0.0,
        };
        for side in 0..2 {
            // The right side half a cycle behind the left.
            let phase = self.phase + side as f32 * std::f32::consts::PI;
            let (s, c) = phase.sin_cos();
            let thigh = 26.0 * a * s;
            // The knee bends most as the leg swings forward.
            let knee = -a * (6.0 + 44.0 * c.max(0.0));
            if i == THIGH[side] {
                l.rotation = pitch(thigh);
            } else if i == LEG[side] {
                l.rotation = pitch(knee);
            } else if i == FOOT[side] {
                // The sole stays nearly level.
                l.rotation = pitch(-0.8 * (thigh + knee));
            } else if i == ARM[side] {
                l.rotation = pitch(-20.0 * a * s);
            } else if i == FOREARM[side] {
                l.rotation = pitch(a * (10.0 + 14.0 * (-s).max(0.0)));
            }
        }
        if i == HIPS {
            // The body is highest as a leg passes under it.
            l.offset.z -= 0.025 * a * self.phase.sin().abs();
        } else if i == SPINE {
            l.rotation = pitch(-4.0 * a);
        }
        l
    }

    /// Bone `i`'s offset from its parent at rest (the root stands on the
    /// ground whatever the size).
    fn rest(&self, i: usize) -> Vector3D {
        let r = BONES[i].2;
        let k = if i == 0 { 1.0 } else { self.size };
        v3(r[0] * k, r[1] * k, r[2] * k)
    }

    /// Bone `i` as drawn: the cycle with the client's pose blended over.
    pub(crate) fn local(&self, i: usize) -> Local {
        let anim = self.animated(i);
        match &self.set {
            Some(set) if self.blend > 0.0 => mix(&anim, &set[i], self.blend),
            _ => anim,
        }
    }

    /// The first `out.len()` bones (at most [`COUNT`]) placed in `frame`.
    pub(crate) fn place(&self, frame: &Placed, out: &mut [Placed]) {
        for i in 0..out.len().min(COUNT) {
            let parent = if i == 0 {
                *frame
            } else {
                out[BONES[i].1 as usize]
            };
            out[i] = parent.then(&self.local(i));
        }
    }

    /// `set_bones`: these bones' transforms (relative to their parents;
    /// unknown names and non-finite numbers are skipped). The others keep
    /// what was set before, or the rest pose.
    pub(crate) fn set_bones(&mut self, bones: &[(String, ActorTransform)]) {
        let rest: [Local; COUNT] = std::array::from_fn(|i| Local {
            offset: self.rest(i),
            rotation: Rotation3D::default(),
        });
        let set = self.set.get_or_insert_with(|| Box::new(rest));
        for (name, t) in bones {
            let numbers = [t.location.x, t.location.y, t.location.z];
            let angles = [t.rotation.pitch, t.rotation.yaw, t.rotation.roll];
            if numbers.iter().chain(&angles).any(|v| !v.is_finite()) {
                continue;
            }
            if let Some(i) = index(name) {
                set[i] = Local {
                    offset: t.location,
                    rotation: t.rotation,
                };
            }
        }
    }

    /// `blend_pose`: how much of the set pose shows, 0 to 1.
    pub(crate) fn blend(&mut self, blend: f32) {
        self.blend = finite(blend).clamp(0.0, 1.0);
    }

    /// `get_pose_from_animation`: the set pose becomes the cycle's pose
    /// of this moment.
    pub(crate) fn pose_from_animation(&mut self) {
        self.set = Some(Box::new(std::array::from_fn(|i| self.animated(i))));
    }
}

/// `a` moved `k` of the way to `b` (angles the short way round).
fn mix(a: &Local, b: &Local, k: f32) -> Local {
    let angle = |x: f32, y: f32| {
        let d = (y - x + 540.0).rem_euclid(360.0) - 180.0;
        x + d * k
    };
    Local {
        offset: add(a.offset, scale(sub(b.offset, a.offset), k)),
        rotation: Rotation3D {
            pitch: angle(a.rotation.pitch, b.rotation.pitch),
            yaw: angle(a.rotation.yaw, b.rotation.yaw),
            roll: angle(a.rotation.roll, b.rotation.roll),
        },
    }
}

fn finite(x: f32) -> f32 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(s: &Skeleton) -> [Placed; COUNT] {
        let mut out = [Placed::default(); COUNT];
        s.place(&Placed::default(), &mut out);
        out
    }

    fn at(s: &Skeleton, name: &str) -> Vector3D {
        placed(s)[index(name).unwrap()].at
    }

    #[test]
    fn bones_come_parents_first_with_carlas_names() {
        for (i, (name, parent, _)) in BONES.iter().enumerate() {
            assert!(name.starts_with("crl_"), "{name}");
            assert!(i == 0 || (*parent as usize) < i, "{name}");
            assert_eq!(index(name), Some(i), "{name} once");
        }
        for name in [
            "crl_hips__C",
            "crl_Head__C",
            "crl_handPinkyEnd__R",
            "crl_toeEnd__L",
        ] {
            assert!(index(name).is_some(), "{name}");
        }
        assert_eq!(
            BONES[index("crl_foreArm__L").unwrap()].1 as usize,
            index("crl_arm__L").unwrap()
        );
    }

    #[test]
    fn at_rest_it_stands_1_8_m_tall_on_the_ground() {
        let s = Skeleton::default();
        let ground = -super::super::pedestrians::HALF_HEIGHT;
        assert!((at(&s, "crl_root").z - ground).abs() < 1e-6);
        let head = at(&s, "crl_Head__C").z - ground;
        assert!((1.55..1.7).contains(&head), "head bone {head}");
        let foot = at(&s, "crl_foot__L").z - ground;
        assert!((0.0..0.12).contains(&foot), "ankle {foot}");
        // Left is −y (Unreal's y points right).
        assert!(at(&s, "crl_hand__L").y < 0.0 && at(&s, "crl_hand__R").y > 0.0);
    }

    #[test]
    fn a_childs_skeleton_is_the_adults_smaller_on_the_same_ground() {
        let (adult, child) = (Skeleton::default(), Skeleton::of_size(0.72));
        let ground = -super::super::pedestrians::HALF_HEIGHT;
        assert_eq!(at(&child, "crl_root").z, ground);
        let (a, c) = (
            at(&adult, "crl_Head__C").z - ground,
            at(&child, "crl_Head__C").z - ground,
        );
        assert!((c / a - 0.72).abs() < 1e-4, "{c} against {a}");
        // Sizes outside 0.5-1.5 (or not numbers) are held to them.
        assert_eq!(Skeleton::of_size(f32::NAN).size(), 1.0);
        assert_eq!(Skeleton::of_size(9.0).size(), 1.5);
    }

    #[test]
    fn walking_swings_the_legs_in_turn_and_standing_stops_them() {
        let mut s = Skeleton::default();
        let mut fronts = Vec::new();
        for _ in 0..60 {
            s.advance(1.4, 1.0 / 30.0);
            let (l, r) = (at(&s, "crl_foot__L").x, at(&s, "crl_foot__R").x);
            fronts.push(l - r);
        }
        // Two seconds at 1.4 m/s: 2.15 cycles, each foot ahead in turn.
        let ahead = fronts.iter().filter(|d| **d > 0.2).count();
        let behind = fronts.iter().filter(|d| **d < -0.2).count();
        assert!(ahead > 10 && behind > 10, "{ahead} {behind}");
        let stride = fronts.iter().fold(0.0f32, |m, d| m.max(d.abs()));
        assert!(
            (0.5..1.0).contains(&stride),
            "feet {stride} m apart at most"
        );
        // The arms swing against the legs.
        let (foot, hand) = (at(&s, "crl_foot__L").x, at(&s, "crl_hand__L").x);
        assert!(foot * hand <= 0.0, "left foot {foot}, left hand {hand}");
        for _ in 0..30 {
            s.advance(0.0, 1.0 / 30.0);
        }
        let rest = placed(&Skeleton::default());
        let now = placed(&s);
        for (a, b) in rest.iter().zip(&now) {
            assert!(crate::world::math::length(sub(a.at, b.at)) < 0.01);
        }
    }

    #[test]
    fn a_set_pose_shows_as_blended_and_bad_numbers_are_skipped() {
        let mut s = Skeleton::default();
        let raised = ActorTransform {
            location: v3(0.0, -0.155, 0.0),
            rotation: Rotation3D {
                pitch: 180.0,
                yaw: 0.0,
                roll: 0.0,
            },
        };
        let nan = ActorTransform {
            location: v3(f32::NAN, 0.0, 0.0),
            rotation: Rotation3D::default(),
        };
        let bones = [
            ("crl_arm__L".to_string(), raised),
            ("crl_leg__R".to_string(), nan),
            ("no_such_bone".to_string(), raised),
        ];
        s.set_bones(&bones);
        let down = at(&s, "crl_hand__L").z;
        s.blend(1.0);
        let up = at(&s, "crl_hand__L").z;
        assert!(up - down > 0.9, "the arm raised: {down} -> {up}");
        s.blend(0.5);
        let half = at(&s, "crl_hand__L").z;
        assert!(half > down + 0.2 && half < up - 0.2, "{half}");
        s.blend(f32::NAN);
        assert_eq!(at(&s, "crl_hand__L").z, down);
        // The NaN bone kept its rest pose.
        s.blend(1.0);
        assert!(at(&s, "crl_foot__R").z.is_finite());
        // The cycle's pose, taken as the set pose, shows the same.
        for _ in 0..7 {
            s.advance(1.4, 0.05);
        }
        s.blend(0.0);
        let walking = at(&s, "crl_foot__L");
        s.pose_from_animation();
        s.blend(1.0);
        assert!(crate::world::math::length(sub(walking, at(&s, "crl_foot__L"))) < 1e-5);
    }

    #[test]
    fn the_rotator_of_axes_gives_them_back() {
        for (p, y, r) in [(10.0, 20.0, 30.0), (-80.0, 170.0, -45.0), (0.0, -90.0, 5.0)] {
            let rot = Rotation3D {
                pitch: p,
                yaw: y,
                roll: r,
            };
            let back = rotator(&Axes::from_rotation(&rot));
            assert!((back.pitch - p).abs() < 1e-3 && (back.yaw - y).abs() < 1e-3);
            assert!((back.roll - r).abs() < 1e-3, "{back:?}");
        }
    }
}
