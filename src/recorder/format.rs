//! CARLA 0.9.16's recorder file format: little-endian values, strings as
//! a u16 byte length and UTF-8 without a terminator, a header (version 2,
//! `CARLA_RECORDER`, the date as i64 Unix seconds, the map name), then
//! packets of `u8 id, u32 size, size bytes` grouped into frames from
//! `FrameStart` to `FrameEnd`. docs/recorder.md has the packet table.

/// The format version CARLA 0.9.16 writes (version 1 numbered attribute
/// types from 0).
pub const VERSION: u16 = 2;
/// The magic string after the version.
pub const MAGIC: &str = "CARLA_RECORDER";

pub(crate) const FRAME_START: u8 = 0;
pub(crate) const FRAME_END: u8 = 1;
pub(crate) const EVENT_ADD: u8 = 2;
pub(crate) const EVENT_DEL: u8 = 3;
pub(crate) const EVENT_PARENT: u8 = 4;
pub(crate) const COLLISION: u8 = 5;
pub(crate) const POSITION: u8 = 6;
pub(crate) const STATE: u8 = 7;
pub(crate) const ANIM_VEHICLE: u8 = 8;
pub(crate) const ANIM_WALKER: u8 = 9;
pub(crate) const VEHICLE_LIGHT: u8 = 10;
pub(crate) const SCENE_LIGHT: u8 = 11;
pub(crate) const KINEMATICS: u8 = 12;
pub(crate) const BOUNDING_BOX: u8 = 13;
pub(crate) const PLATFORM_TIME: u8 = 14;
pub(crate) const PHYSICS_CONTROL: u8 = 15;
pub(crate) const TRAFFIC_LIGHT_TIME: u8 = 16;
pub(crate) const TRIGGER_VOLUME: u8 = 17;
pub(crate) const WALKER_BONES: u8 = 19;
pub(crate) const VISUAL_TIME: u8 = 20;
pub(crate) const ANIM_VEHICLE_WHEELS: u8 = 21;
pub(crate) const ANIM_BIKER: u8 = 22;
pub(crate) const VEHICLE_DOOR: u8 = 23;

/// `FCarlaActor::ActorType`, the `type` of an `EventAdd` record.
pub mod actor_type {
    pub const OTHER: u8 = 0;
    pub const VEHICLE: u8 = 1;
    pub const WALKER: u8 = 2;
    pub const TRAFFIC_LIGHT: u8 = 3;
    pub const TRAFFIC_SIGN: u8 = 4;
    pub const SENSOR: u8 = 5;
}

/// The type of an actor of blueprint `id`, as CARLA classifies it.
pub fn type_of_blueprint(id: &str) -> u8 {
    use actor_type::*;
    if id.starts_with("vehicle.") {
        VEHICLE
    } else if id.starts_with("walker.pedestrian") {
        WALKER
    } else if id.starts_with("traffic.traffic_light") {
        TRAFFIC_LIGHT
    } else if id.starts_with("traffic.") {
        TRAFFIC_SIGN
    } else if id.starts_with("sensor.") {
        SENSOR
    } else {
        OTHER
    }
}

/// Appends little-endian values and CARLA strings to a buffer.
pub(crate) trait Put {
    fn u8(&mut self, v: u8);
    fn u16(&mut self, v: u16);
    fn u32(&mut self, v: u32);
    fn f32(&mut self, v: f32);
    fn f64(&mut self, v: f64);
    fn vec3(&mut self, v: [f32; 3]);
    /// A u16 byte length and the UTF-8 bytes (cut at 65,535 bytes, on a
    /// character boundary).
    fn string(&mut self, s: &str);
    /// Starts a packet: its id and a size to be set by [`Put::end`];
    /// returns where the size is.
    fn begin(&mut self, id: u8) -> usize;
    /// Sets the size of the packet begun at `at`.
    fn end(&mut self, at: usize);
}

impl Put for Vec<u8> {
    fn u8(&mut self, v: u8) {
        self.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn vec3(&mut self, v: [f32; 3]) {
        for c in v {
            self.f32(c);
        }
    }
    fn string(&mut self, s: &str) {
        let mut n = s.len().min(u16::MAX as usize);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.u16(n as u16);
        self.extend_from_slice(&s.as_bytes()[..n]);
    }
    fn begin(&mut self, id: u8) -> usize {
        self.push(id);
        let at = self.len();
        self.u32(0);
        at
    }
    fn end(&mut self, at: usize) {
        let size = (self.len() - at - 4) as u32;
        self[at..at + 4].copy_from_slice(&size.to_le_bytes());
    }
}

/// The file header: version, magic, date, map.
pub(crate) fn header(out: &mut Vec<u8>, unix_seconds: i64, map: &str) {
    out.u16(VERSION);
    out.string(MAGIC);
    out.extend_from_slice(&unix_seconds.to_le_bytes());
    out.string(map);
}

/// A malformed or cut-short file.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatError(pub String);

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads values from a byte slice; every read checks the length.
#[derive(Clone)]
pub(crate) struct Get<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Get<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Get<'a> {
        Get { bytes, at: 0 }
    }
    pub(crate) fn left(&self) -> usize {
        self.bytes.len() - self.at
    }
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        if self.left() < n {
            return Err(FormatError(format!(
                "cut short: {n} bytes wanted at offset {}, {} left",
                self.at,
                self.left()
            )));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], FormatError> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }
    pub(crate) fn u8(&mut self) -> Result<u8, FormatError> {
        Ok(self.take(1)?[0])
    }
    pub(crate) fn bool(&mut self) -> Result<bool, FormatError> {
        Ok(self.u8()? != 0)
    }
    pub(crate) fn u16(&mut self) -> Result<u16, FormatError> {
        self.array().map(u16::from_le_bytes)
    }
    pub(crate) fn u32(&mut self) -> Result<u32, FormatError> {
        self.array().map(u32::from_le_bytes)
    }
    pub(crate) fn i32(&mut self) -> Result<i32, FormatError> {
        self.array().map(i32::from_le_bytes)
    }
    pub(crate) fn u64(&mut self) -> Result<u64, FormatError> {
        self.array().map(u64::from_le_bytes)
    }
    pub(crate) fn f32(&mut self) -> Result<f32, FormatError> {
        self.array().map(f32::from_le_bytes)
    }
    pub(crate) fn f64(&mut self) -> Result<f64, FormatError> {
        self.array().map(f64::from_le_bytes)
    }
    pub(crate) fn vec3(&mut self) -> Result<[f32; 3], FormatError> {
        Ok([self.f32()?, self.f32()?, self.f32()?])
    }
    /// A CARLA string; invalid UTF-8 is replaced, as a reader must show
    /// something.
    pub(crate) fn string(&mut self) -> Result<String, FormatError> {
        let n = self.u16()? as usize;
        let bytes = self.take(n)?;
        // CARLA's reader stops at an embedded NUL.
        let bytes = bytes.split(|b| *b == 0).next().unwrap_or_default();
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// A file's header.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    pub version: u16,
    pub magic: String,
    pub date: i64,
    pub map: String,
}

/// `EventAdd`'s record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActorAdd {
    pub id: u32,
    pub kind: u8,
    /// cm.
    pub location: [f32; 3],
    /// Roll, pitch, yaw, degrees.
    pub rotation: [f32; 3],
    pub uid: u32,
    pub blueprint: String,
    /// `(type, id, value)`; types 1 Bool … 5 RGBColor.
    pub attributes: Vec<(u8, String, String)>,
}

impl ActorAdd {
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.u32(self.id);
        out.u8(self.kind);
        out.vec3(self.location);
        out.vec3(self.rotation);
        out.u32(self.uid);
        out.string(&self.blueprint);
        out.u16(self.attributes.len().min(u16::MAX as usize) as u16);
        for (kind, id, value) in self.attributes.iter().take(u16::MAX as usize) {
            out.u8(*kind);
            out.string(id);
            out.string(value);
        }
    }

    pub(crate) fn read(g: &mut Get<'_>) -> Result<ActorAdd, FormatError> {
        let mut a = ActorAdd {
            id: g.u32()?,
            kind: g.u8()?,
            location: g.vec3()?,
            rotation: g.vec3()?,
            uid: g.u32()?,
            blueprint: g.string()?,
            attributes: Vec::new(),
        };
        let n = g.u16()?;
        for _ in 0..n {
            a.attributes.push((g.u8()?, g.string()?, g.string()?));
        }
        Ok(a)
    }

    /// An attribute's value.
    pub fn attribute(&self, id: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(_, k, _)| k == id)
            .map(|(_, _, v)| v.as_str())
    }
}

/// A `Position` record: id, location (cm), rotation (roll, pitch, yaw).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pose {
    pub id: u32,
    pub location: [f32; 3],
    pub rotation: [f32; 3],
}

impl Pose {
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.u32(self.id);
        out.vec3(self.location);
        out.vec3(self.rotation);
    }
    pub(crate) fn read(g: &mut Get<'_>) -> Result<Pose, FormatError> {
        Ok(Pose {
            id: g.u32()?,
            location: g.vec3()?,
            rotation: g.vec3()?,
        })
    }
}

/// A counted packet's records: the u16 count, then `read` for each.
pub(crate) fn records<T>(
    g: &mut Get<'_>,
    mut read: impl FnMut(&mut Get<'_>) -> Result<T, FormatError>,
) -> Result<Vec<T>, FormatError> {
    let n = g.u16()?;
    (0..n).map(|_| read(g)).collect()
}

/// A `Collision` record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CollisionRecord {
    pub id: u32,
    pub actor1: u32,
    pub actor2: u32,
    pub hero1: bool,
    pub hero2: bool,
}

impl CollisionRecord {
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.u32(self.id);
        out.u32(self.actor1);
        out.u32(self.actor2);
        out.u8(self.hero1.into());
        out.u8(self.hero2.into());
    }
    pub(crate) fn read(g: &mut Get<'_>) -> Result<CollisionRecord, FormatError> {
        Ok(CollisionRecord {
            id: g.u32()?,
            actor1: g.u32()?,
            actor2: g.u32()?,
            hero1: g.bool()?,
            hero2: g.bool()?,
        })
    }
}

/// A `State` record (a traffic light).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LightRecord {
    pub id: u32,
    pub frozen: bool,
    pub elapsed: f32,
    /// 0 red, 1 yellow, 2 green, 3 off.
    pub state: u8,
}

impl LightRecord {
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.u32(self.id);
        out.u8(self.frozen.into());
        out.f32(self.elapsed);
        out.u8(self.state);
    }
    pub(crate) fn read(g: &mut Get<'_>) -> Result<LightRecord, FormatError> {
        Ok(LightRecord {
            id: g.u32()?,
            frozen: g.bool()?,
            elapsed: g.f32()?,
            state: g.u8()?,
        })
    }
}

/// An `AnimVehicle` record: the control applied.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VehicleAnim {
    pub id: u32,
    pub steer: f32,
    pub throttle: f32,
    pub brake: f32,
    pub hand_brake: bool,
    pub gear: i32,
}

impl VehicleAnim {
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.u32(self.id);
        out.f32(self.steer);
        out.f32(self.throttle);
        out.f32(self.brake);
        out.u8(self.hand_brake.into());
        out.extend_from_slice(&self.gear.to_le_bytes());
    }
    pub(crate) fn read(g: &mut Get<'_>) -> Result<VehicleAnim, FormatError> {
        Ok(VehicleAnim {
            id: g.u32()?,
            steer: g.f32()?,
            throttle: g.f32()?,
            brake: g.f32()?,
            hand_brake: g.bool()?,
            gear: g.i32()?,
        })
    }
}
