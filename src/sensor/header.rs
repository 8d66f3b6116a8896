//! The 48-byte header that starts every sensor message (LibCarla's sensor
//! header). Packed, little-endian, no magic and
//! no length of its own; the payload starts at byte 48.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | `sensor_type` u64 (registry id) |
//! | 8 | 8 | `frame` u64 |
//! | 16 | 8 | `timestamp` f64 (simulated seconds since episode start) |
//! | 24 | 12 | location x, y, z f32 (metres) |
//! | 36 | 12 | rotation pitch, yaw, roll f32 (degrees) |

use super::registry::SensorType;
use crate::types::ActorTransform;
use crate::types::{Rotation3D, Vector3D};

/// Size of the sensor header in bytes.
pub const HEADER_SIZE: usize = 48;

/// The header of one sensor message.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SensorHeader {
    /// Registry id ([`SensorType::id`]).
    pub sensor_type: u64,
    /// Frame counter.
    pub frame: u64,
    /// Simulated seconds since the episode started.
    pub timestamp: f64,
    /// Sensor transform in the world (metres, degrees).
    pub transform: ActorTransform,
}

fn f32_at(bytes: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

impl SensorHeader {
    /// A header for a registered sensor.
    pub fn new(sensor: SensorType, frame: u64, timestamp: f64, transform: ActorTransform) -> Self {
        SensorHeader {
            sensor_type: u64::from(sensor.id()),
            frame,
            timestamp,
            transform,
        }
    }

    /// The registered sensor type, if `sensor_type` is a known id.
    pub fn sensor(&self) -> Option<SensorType> {
        u32::try_from(self.sensor_type)
            .ok()
            .and_then(SensorType::from_id)
    }

    /// Writes the 48 header bytes into `out`.
    pub fn write_into(&self, out: &mut [u8; HEADER_SIZE]) {
        let loc = self.transform.location;
        let rot = self.transform.rotation;
        out[0..8].copy_from_slice(&self.sensor_type.to_le_bytes());
        out[8..16].copy_from_slice(&self.frame.to_le_bytes());
        out[16..24].copy_from_slice(&self.timestamp.to_le_bytes());
        let floats = [loc.x, loc.y, loc.z, rot.pitch, rot.yaw, rot.roll];
        for (i, v) in floats.iter().enumerate() {
            let at = 24 + 4 * i;
            out[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    }

    /// The 48 header bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        let mut out = [0u8; HEADER_SIZE];
        self.write_into(&mut out);
        out
    }

    /// Reads a header from the first 48 bytes of `bytes` (a whole message may
    /// be passed; the payload after byte 48 is ignored). `None` if fewer than
    /// 48 bytes are given.
    pub fn parse(bytes: &[u8]) -> Option<SensorHeader> {
        if bytes.len() < HEADER_SIZE {
            return None;
        }
        Some(SensorHeader {
            sensor_type: u64_at(bytes, 0),
            frame: u64_at(bytes, 8),
            timestamp: f64::from_bits(u64_at(bytes, 16)),
            transform: ActorTransform {
                location: Vector3D {
                    x: f32_at(bytes, 24),
                    y: f32_at(bytes, 28),
                    z: f32_at(bytes, 32),
                },
                rotation: Rotation3D {
                    pitch: f32_at(bytes, 36),
                    yaw: f32_at(bytes, 40),
                    roll: f32_at(bytes, 44),
                },
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_util::hex;

    fn sample() -> SensorHeader {
        SensorHeader::new(
            SensorType::RgbCamera,
            0x0102_0304_0506_0708,
            1.5,
            ActorTransform {
                location: Vector3D {
                    x: 1.0,
                    y: -2.0,
                    z: 0.5,
                },
                rotation: Rotation3D {
                    pitch: 90.0,
                    yaw: -45.0,
                    roll: 180.0,
                },
            },
        )
    }

    #[test]
    fn golden_bytes() {
        // 13 (RGB camera), frame, 1.5 = 0x3ff8_0000_0000_0000,
        // 1.0 = 0x3f80_0000, -2.0 = 0xc000_0000, 0.5 = 0x3f00_0000,
        // 90 = 0x42b4_0000, -45 = 0xc234_0000, 180 = 0x4334_0000.
        let expected = hex("0d00000000000000 0807060504030201 000000000000f83f
             0000803f 000000c0 0000003f
             0000b442 000034c2 00003443");
        assert_eq!(expected.len(), HEADER_SIZE);
        let h = sample();
        assert_eq!(h.to_bytes().to_vec(), expected);
        let mut buf = [0xffu8; HEADER_SIZE];
        h.write_into(&mut buf);
        assert_eq!(buf.to_vec(), expected);
    }

    #[test]
    fn parse_round_trip() {
        let h = sample();
        let mut message = h.to_bytes().to_vec();
        assert_eq!(SensorHeader::parse(&message), Some(h));
        message.extend_from_slice(&[1, 2, 3]); // payload is ignored
        assert_eq!(SensorHeader::parse(&message), Some(h));
        assert_eq!(SensorHeader::parse(&message[..47]), None);
        assert_eq!(SensorHeader::parse(&[]), None);
        assert_eq!(h.sensor(), Some(SensorType::RgbCamera));
        let unknown = SensorHeader {
            sensor_type: 1 << 40,
            ..h
        };
        assert_eq!(unknown.sensor(), None);
    }
}
