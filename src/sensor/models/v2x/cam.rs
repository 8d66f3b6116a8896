//! The V2X messages as the CARLA 0.9.16 client reads them: its
//! `CAMEvent` / `CustomV2XEvent` are arrays of fixed-size records copied
//! byte for byte out of the sensor message (after the sensor header), one
//! record per received message: the received power (`float`, dBm) and the
//! message, an ETSI ITS CAM or a custom text, in the memory layout of the
//! client's C++ structures on x86-64 Linux (`long` is 8 bytes, every
//! field 8-aligned but the `bool` flags and the exterior-light byte).
//!
//! The offsets below were measured with `offsetof` against the client's
//! header (LibCarla `sensor/data/LibITS.h`, 0.9.16) and are checked by the
//! stock client in the CI test (`tests/python/v2x.py`). The two lists the
//! structure holds (the RSU's protected zones and the path history) are
//! C++ vectors whose three pointers are copied as bytes: they are always
//! written as zeros, which the client reads as empty lists (a real pointer
//! would crash it).

/// Bytes of one CAM record (`carla::sensor::data::CAMData`).
pub const CAM_RECORD_BYTES: usize = 464;
/// Bytes of one custom record (`carla::sensor::data::CustomV2XData`).
pub const CUSTOM_RECORD_BYTES: usize = 136;
/// Bytes of the custom message's text field, its NUL included.
pub const CUSTOM_TEXT_BYTES: usize = 100;

/// `ItsPduHeader.messageID` values.
pub const MESSAGE_ID_CUSTOM: i64 = 0;
pub const MESSAGE_ID_CAM: i64 = 2;
/// `ItsPduHeader.protocolVersion` CARLA's sensors send.
pub const PROTOCOL_VERSION: i64 = 2;

/// ETSI station types (`StationType`).
pub mod station {
    pub const UNKNOWN: i64 = 0;
    pub const PEDESTRIAN: i64 = 1;
    pub const CYCLIST: i64 = 2;
    pub const MOTORCYCLE: i64 = 4;
    pub const PASSENGER_CAR: i64 = 5;
    pub const BUS: i64 = 6;
    pub const LIGHT_TRUCK: i64 = 7;
    pub const HEAVY_TRUCK: i64 = 8;
    pub const SPECIAL_VEHICLE: i64 = 10;
    pub const ROAD_SIDE_UNIT: i64 = 15;
}

/// The header every ITS message starts with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PduHeader {
    pub protocol_version: i64,
    pub message_id: i64,
    /// The sending station: CARLA uses the sensor's parent actor id.
    pub station_id: i64,
}

/// Which high-frequency container a CAM carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HighFrequency {
    /// Pedestrians send none.
    #[default]
    Nothing,
    /// A vehicle's dynamics.
    Vehicle(VehicleHighFrequency),
    /// A road-side unit's (its protected-zone list is sent empty).
    RoadSideUnit,
}

/// A vehicle's high-frequency container, in ETSI units (CDD TS 102 894-2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VehicleHighFrequency {
    /// 0.1° clockwise from north; 3601 unavailable.
    pub heading: i64,
    pub heading_confidence: i64,
    /// cm/s; 16383 unavailable.
    pub speed: i64,
    pub speed_confidence: i64,
    /// 0 forward, 1 backward.
    pub drive_direction: i64,
    /// 0.1 m; 1023 unavailable.
    pub length: i64,
    pub length_confidence: i64,
    /// 0.1 m; 62 unavailable.
    pub width: i64,
    /// 0.1 m/s², forward positive; 161 unavailable.
    pub longitudinal_acceleration: i64,
    pub longitudinal_acceleration_confidence: i64,
    /// 30001 unavailable.
    pub curvature: i64,
    pub curvature_confidence: i64,
    pub curvature_calculation_mode: i64,
    /// 0.01°/s, to the left positive; 32767 unavailable.
    pub yaw_rate: i64,
    pub yaw_rate_confidence: i64,
    /// 0.1 m/s², to the left positive; 161 unavailable.
    pub lateral_acceleration: Option<i64>,
    pub lateral_acceleration_confidence: i64,
    /// 0.1 m/s², up positive; 161 unavailable.
    pub vertical_acceleration: Option<i64>,
    pub vertical_acceleration_confidence: i64,
}

/// The low-frequency container (vehicles, at most every 0.5 s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowFrequency {
    /// ETSI `VehicleRole` (0 default, 1 public transport, 6 emergency).
    pub vehicle_role: i64,
    /// ETSI `ExteriorLights` bits, first named light in the top bit.
    pub exterior_lights: u8,
}

/// A Cooperative Awareness Message (ETSI EN 302 637-2) with the fields
/// CARLA's sensor fills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cam {
    pub header: PduHeader,
    /// Milliseconds (of simulated time here) modulo 65536.
    pub generation_delta_time: i64,
    pub station_type: i64,
    /// 0.1 micro-degree; 900000001 unavailable.
    pub latitude: i64,
    /// 0.1 micro-degree; 1800000001 unavailable.
    pub longitude: i64,
    pub semi_major_confidence: i64,
    pub semi_minor_confidence: i64,
    pub semi_major_orientation: i64,
    /// cm; 800001 unavailable.
    pub altitude: i64,
    pub altitude_confidence: i64,
    pub high_frequency: HighFrequency,
    pub low_frequency: Option<LowFrequency>,
}

fn put_i64(record: &mut [u8], at: usize, v: i64) {
    record[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// `values` one after the other from byte `at` on, 8 bytes each.
fn put_i64s(record: &mut [u8], at: usize, values: &[i64]) {
    for (i, &v) in values.iter().enumerate() {
        put_i64(record, at + 8 * i, v);
    }
}

/// Appends a zeroed record of `bytes` bytes and writes what every record
/// starts with: `power` (dBm) at byte 0 and `header` from byte 8 to 32.
fn new_record<'a>(
    out: &'a mut Vec<u8>,
    bytes: usize,
    power: f32,
    header: &PduHeader,
) -> &'a mut [u8] {
    let start = out.len();
    out.resize(start + bytes, 0);
    let r = &mut out[start..];
    r[0..4].copy_from_slice(&power.to_le_bytes());
    let h = [
        header.protocol_version,
        header.message_id,
        header.station_id,
    ];
    put_i64s(r, 8, &h);
    r
}

/// Appends one CAM record: `power` (dBm) and `cam`.
pub fn write_cam(out: &mut Vec<u8>, power: f32, cam: &Cam) {
    let r = new_record(out, CAM_RECORD_BYTES, power, &cam.header);
    // Bytes 32 to 104.
    let words = [
        cam.generation_delta_time,
        cam.station_type,
        cam.latitude,
        cam.longitude,
        cam.semi_major_confidence,
        cam.semi_minor_confidence,
        cam.semi_major_orientation,
        cam.altitude,
        cam.altitude_confidence,
    ];
    put_i64s(r, 32, &words);
    match cam.high_frequency {
        HighFrequency::Nothing => {}
        HighFrequency::RoadSideUnit => put_i64(r, 104, 2),
        HighFrequency::Vehicle(ref v) => {
            put_i64(r, 104, 1);
            write_vehicle(r, v);
        }
    }
    if let Some(low) = cam.low_frequency {
        put_i64(r, 408, 1);
        put_i64(r, 416, low.vehicle_role);
        r[424] = low.exterior_lights;
        // The path history (count at 432, vector at 440) stays empty.
    }
}

fn write_vehicle(r: &mut [u8], v: &VehicleHighFrequency) {
    // Bytes 112 to 232.
    let words = [
        v.heading,
        v.heading_confidence,
        v.speed,
        v.speed_confidence,
        v.drive_direction,
        v.length,
        v.length_confidence,
        v.width,
        v.longitudinal_acceleration,
        v.longitudinal_acceleration_confidence,
        v.curvature,
        v.curvature_confidence,
        v.curvature_calculation_mode,
        v.yaw_rate,
        v.yaw_rate_confidence,
    ];
    put_i64s(r, 112, &words);
    // Acceleration control, lane position, steering wheel angle: absent
    // (their flags at 232, 234, 248 stay false).
    if let Some(lateral) = v.lateral_acceleration {
        r[272] = 1;
        put_i64s(r, 280, &[lateral, v.lateral_acceleration_confidence]);
    }
    if let Some(vertical) = v.vertical_acceleration {
        r[296] = 1;
        put_i64s(r, 304, &[vertical, v.vertical_acceleration_confidence]);
    }
    // Performance class and tolling zone: absent (flags at 320, 336).
}

/// Appends one custom record: `power` (dBm), `header` and `text`, cut to
/// the 99 bytes the client's field holds (at a character boundary; the
/// client reads it up to its NUL).
pub fn write_custom(out: &mut Vec<u8>, power: f32, header: &PduHeader, text: &str) {
    let r = new_record(out, CUSTOM_RECORD_BYTES, power, header);
    let text = fit_text(text);
    r[32..32 + text.len()].copy_from_slice(text.as_bytes());
}

/// `text` up to its first NUL, cut to at most 99 bytes at a character
/// boundary: what a custom message carries.
pub fn fit_text(text: &str) -> &str {
    let text = text.split('\0').next().unwrap_or("");
    let mut end = text.len().min(CUSTOM_TEXT_BYTES - 1);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
