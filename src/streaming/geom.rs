//! Geometry shared by the 0.9 pipeline.

use crate::types::{Rotation3D, Vector3D};

/// A 0.9 transform: location in metres, rotation in degrees (pitch, yaw,
/// roll, Unreal's left-handed frame: x forward, y right, z up). 24 bytes,
/// the layout of `carla::geom::Transform` on the wire.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ActorTransform {
    pub location: Vector3D,
    pub rotation: Rotation3D,
}

#[cfg(test)]
mod tests {
    #[test]
    fn transform_is_24_bytes() {
        assert_eq!(std::mem::size_of::<super::ActorTransform>(), 24);
    }
}
