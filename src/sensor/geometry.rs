//! Unreal's frames: rotating between a sensor's (or any actor's) frame and
//! the world, and placing a child transform on its parent. Left-handed,
//! centimetre-free (metres), angles in degrees, as CARLA's transforms.

use crate::types::{ActorTransform, Rotation3D, Vector3D};

/// Unreal's rotator axes (left-handed, degrees): rows are the rotated
/// forward (x), right (y) and up (z) unit vectors in world coordinates.
pub(crate) fn axes(r: &Rotation3D) -> [[f64; 3]; 3] {
    let (sp, cp) = (r.pitch as f64).to_radians().sin_cos();
    let (sy, cy) = (r.yaw as f64).to_radians().sin_cos();
    let (sr, cr) = (r.roll as f64).to_radians().sin_cos();
    [
        [cp * cy, cp * sy, sp],
        [sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, -sr * cp],
        [-(cr * sp * cy + sr * sy), cy * sr - cr * sp * sy, cr * cp],
    ]
}

/// Rotates a sensor-frame vector into the world frame.
pub fn rotate_to_world(rotation: &Rotation3D, v: Vector3D) -> Vector3D {
    let a = axes(rotation);
    let (x, y, z) = (v.x as f64, v.y as f64, v.z as f64);
    let c = |k: usize| (x * a[0][k] + y * a[1][k] + z * a[2][k]) as f32;
    Vector3D {
        x: c(0),
        y: c(1),
        z: c(2),
    }
}

/// Rotates a world-frame vector into the sensor frame (inverse of
/// [`rotate_to_world`]); use it for hit normals.
pub fn rotate_to_local(rotation: &Rotation3D, v: Vector3D) -> Vector3D {
    let a = axes(rotation);
    let (x, y, z) = (v.x as f64, v.y as f64, v.z as f64);
    let c = |k: usize| (x * a[k][0] + y * a[k][1] + z * a[k][2]) as f32;
    Vector3D {
        x: c(0),
        y: c(1),
        z: c(2),
    }
}

/// A world point (metres) expressed in the sensor frame.
pub fn world_point_to_sensor(sensor: &ActorTransform, world: Vector3D) -> Vector3D {
    let offset = Vector3D {
        x: world.x - sensor.location.x,
        y: world.y - sensor.location.y,
        z: world.z - sensor.location.z,
    };
    rotate_to_local(&sensor.rotation, offset)
}

/// `child` (a transform relative to `parent`) in the parent's frame: the
/// child's offset rotated by the parent, its angles added to the parent's
/// angle by angle (exact for the usual yaw and small pitch/roll offsets,
/// as CARLA places attached actors).
pub fn compose(parent: &ActorTransform, child: &ActorTransform) -> ActorTransform {
    let offset = rotate_to_world(&parent.rotation, child.location);
    let (p, c) = (parent.rotation, child.rotation);
    ActorTransform {
        location: Vector3D {
            x: parent.location.x + offset.x,
            y: parent.location.y + offset.y,
            z: parent.location.z + offset.z,
        },
        rotation: Rotation3D {
            pitch: p.pitch + c.pitch,
            yaw: p.yaw + c.yaw,
            roll: p.roll + c.roll,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f32, y: f32, z: f32, yaw: f32) -> ActorTransform {
        ActorTransform {
            location: Vector3D { x, y, z },
            rotation: Rotation3D {
                yaw,
                ..Default::default()
            },
        }
    }

    #[test]
    fn a_child_ahead_of_a_parent_turned_right_lands_on_its_right() {
        // Unreal is left-handed: yaw 90 turns forward (+x) to +y.
        let w = compose(&at(10.0, 20.0, 1.0, 90.0), &at(2.0, 0.0, 0.5, 5.0));
        assert!((w.location.x - 10.0).abs() < 1e-5, "{w:?}");
        assert!((w.location.y - 22.0).abs() < 1e-5, "{w:?}");
        assert_eq!((w.location.z, w.rotation.yaw), (1.5, 95.0));
        let back = world_point_to_sensor(&at(10.0, 20.0, 1.0, 90.0), w.location);
        assert!(
            (back.x - 2.0).abs() < 1e-5 && back.y.abs() < 1e-5,
            "{back:?}"
        );
    }
}
