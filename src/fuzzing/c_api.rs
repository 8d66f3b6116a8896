//! Target `c_api`: the exported `carla_*` functions called as a C host
//! would, with fuzz-chosen arguments: NULL or valid pointers (never
//! dangling: the C contract is "NULL or valid for the length given"),
//! lengths, ids, attribute strings, image sizes, lidar hits, settings texts.
//!
//! Input: a script of steps, one byte choosing each. The harness keeps a
//! model (live sensors and their kinds, images acquired, settings objects)
//! and checks every return code against it, including which argument is
//! reported first, plus what the outputs hold. Any panic inside an export
//! is a finding even though `catch_unwind` keeps it from the host (the
//! fuzzer's panic hook aborts). Sensors are created on one server, listening
//! on a loopback streaming port, that lives for the whole process; a run
//! destroys what it created. The 0.8 functions, the settings functions and
//! the NULL-handle checks are in `c_api_legacy.rs`.

use super::c_api_data::{images, lidar, queries, safe_distance, send_image, send_raw};
use super::c_api_legacy as legacy;
use super::c_api_model::{
    c_text, check_text, error_buffer, ptr_or_null, text_code, CText, Kind, Run, Sensor,
};
use super::codes::{self, Code};
use super::{quiet_logs, Input};
use crate::ffi::*;
use crate::sensor::blueprint;
use crate::sensor::registry::SensorType;
use std::ffi::c_char;
use std::sync::OnceLock;

const MAX_STEPS: usize = 64;
const MAX_SENSORS: usize = 8;

/// A server handle shared by every run (an address, to be `Sync`).
fn server() -> CarlaServerPtr {
    static SERVER: OnceLock<usize> = OnceLock::new();
    *SERVER.get_or_init(|| {
        let server = carla_make_server();
        assert!(!server.is_null());
        let ip = c"127.0.0.1";
        // SAFETY: a live handle and NUL-terminated strings.
        unsafe {
            assert_eq!(carla_server_set_bind_address(server, ip.as_ptr()), 0);
            assert_eq!(
                carla_server_listen_streaming(server, 0, std::ptr::null_mut()),
                0
            );
        }
        server as usize
    }) as CarlaServerPtr
}

pub fn c_api(data: &[u8]) {
    quiet_logs();
    let server = server();
    let mut input = Input::new(data);
    let mut run = Run {
        sensors: Vec::new(),
        images: Vec::new(),
        settings: Vec::new(),
    };
    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        match input.u8() % 12 {
            0 if run.sensors.len() < MAX_SENSORS => create_known(server, &mut input, &mut run),
            1 => create_raw(server, &mut input),
            2 => destroy(server, &mut input, &mut run),
            3 => queries(server, &mut input, &run),
            4 => send_image(server, &mut input, &run),
            5 => images(server, &mut input, &mut run),
            6 => lidar(server, &mut input, &mut run),
            7 => safe_distance(server, &mut input, &run),
            8 => send_raw(server, &mut input, &run),
            9 => legacy::settings_step(&mut input, &mut run),
            10 => legacy::server_step(&mut input),
            _ => legacy::null_handles(&mut input),
        }
    }
    for (image, _) in run.images.drain(..) {
        // SAFETY: acquired and neither committed nor released.
        unsafe { carla_image_release(image) };
    }
    for s in run.sensors.drain(..) {
        // SAFETY: the live handle.
        assert_eq!(unsafe { carla_sensor_destroy(server, s.id) }, 0);
    }
    for s in run.settings.drain(..) {
        legacy::free_settings(s);
    }
}

/// Calls `carla_sensor_create`; the code it returned and the id.
fn create(
    server: CarlaServerPtr,
    blueprint_id: Option<&[u8]>,
    pairs: &[(CText, CText)],
    arrays: (bool, bool),
    id_out: bool,
    error: &mut Option<Vec<u8>>,
) -> (Code, u32) {
    let keys: Vec<*const c_char> = pairs.iter().map(|p| ptr_or_null(&p.0).cast()).collect();
    let values: Vec<*const c_char> = pairs.iter().map(|p| ptr_or_null(&p.1).cast()).collect();
    let mut id = u32::MAX;
    let (err_ptr, err_size) = error.as_mut().map_or((std::ptr::null_mut(), 0), |e| {
        (e.as_mut_ptr(), e.len() as u32)
    });
    // SAFETY: every pointer is NULL or valid for what `count` claims.
    let code = unsafe {
        carla_sensor_create(
            server,
            blueprint_id.map_or(std::ptr::null(), |b| b.as_ptr().cast()),
            if arrays.0 {
                keys.as_ptr()
            } else {
                std::ptr::null()
            },
            if arrays.1 {
                values.as_ptr()
            } else {
                std::ptr::null()
            },
            pairs.len() as u32,
            if id_out {
                &mut id
            } else {
                std::ptr::null_mut()
            },
            err_ptr.cast(),
            err_size,
        )
    };
    (code, id)
}

const INTERESTING: [&str; 10] = [
    "0",
    "1",
    "-1",
    "1e-50",
    "179.99999999",
    "nan",
    " 8 ",
    "",
    "1e309",
    "90",
];

/// A blueprint from the list with a few attributes kept small enough for
/// images and ray plans; values mix fuzz text with edge cases.
fn create_known(server: CarlaServerPtr, input: &mut Input<'_>, run: &mut Run) {
    let definitions = blueprint::DEFINITIONS;
    let def = &definitions[usize::from(input.u8()) % definitions.len()];
    let kind = SensorType::from_name(def.id).expect("registered");
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut camera = (800, 600);
    if def.id.starts_with("sensor.camera") {
        camera = (
            u32::from(input.u8() % 64) + 1,
            u32::from(input.u8() % 64) + 1,
        );
        pairs.push(("image_size_x".into(), camera.0.to_string()));
        pairs.push(("image_size_y".into(), camera.1.to_string()));
    } else if def.id.starts_with("sensor.lidar") {
        pairs.push(("channels".into(), (input.u8() % 64 + 1).to_string()));
        pairs.push((
            "points_per_second".into(),
            (input.u16() % 50_000 + 1).to_string(),
        ));
    }
    for _ in 0..input.u8() % 3 {
        let Some(attribute) = def
            .attributes
            .get(usize::from(input.u8()) % def.attributes.len().max(1))
        else {
            continue; // collision, lane invasion: no attributes
        };
        if matches!(
            attribute.id,
            "image_size_x" | "image_size_y" | "channels" | "points_per_second"
        ) {
            continue;
        }
        let value = match input.u8() % 2 {
            0 => input.pick(&INTERESTING).to_owned(),
            _ => String::from_utf8_lossy(input.chunk(12)).into_owned(),
        };
        pairs.push((attribute.id.to_owned(), value));
    }
    let c_pairs: Vec<_> = pairs
        .iter()
        .map(|(k, v)| (Some(c_text(k.as_bytes())), Some(c_text(v.as_bytes()))))
        .collect();
    let mut error = error_buffer(input);
    let bp = c_text(def.id.as_bytes());
    let (code, id) = create(server, Some(&bp), &c_pairs, (true, true), true, &mut error);
    let rust_pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.split('\0').next().unwrap_or_default()))
        .collect();
    match blueprint::create(def.id, &rust_pairs) {
        Err(e) => {
            assert_eq!(code, codes::INVALID_ARGUMENT, "{e}");
            check_text(&error, &e.to_string());
            return;
        }
        Ok(_) if code != 0 => {
            // Only the lidar model refuses what the blueprint accepted.
            assert!(
                def.id.starts_with("sensor.lidar"),
                "{} refused: {code}",
                def.id
            );
            assert_eq!(code, codes::INVALID_ARGUMENT);
            return;
        }
        Ok(_) => {}
    }
    let mut type_id = u32::MAX;
    // SAFETY: live handle, writable output.
    assert_eq!(unsafe { carla_sensor_type_id(server, id, &mut type_id) }, 0);
    assert_eq!(type_id, kind.id());
    let kind = if def.id.starts_with("sensor.camera") {
        Kind::Camera {
            width: camera.0,
            height: camera.1,
            pixel_bytes: if kind == SensorType::OpticalFlowCamera {
                8
            } else {
                4
            },
            mirrors: !matches!(kind, SensorType::OpticalFlowCamera | SensorType::DvsCamera),
        }
    } else if def.id.starts_with("sensor.lidar") {
        Kind::Lidar { rays: 0 }
    } else if kind == SensorType::SafeDistance {
        Kind::SafeDistance
    } else {
        Kind::Raw
    };
    run.sensors.push(Sensor { id, kind });
}

/// Arbitrary blueprint id and attributes, NULL arrays and strings; the
/// sensor (if any) is destroyed at once.
fn create_raw(server: CarlaServerPtr, input: &mut Input<'_>) {
    let flags = input.u8();
    let bp = (flags & 1 == 0).then(|| c_text(input.chunk(40)));
    let count = input.u8() % 4;
    let pairs: Vec<_> = (0..count)
        .map(|_| {
            let f = input.u8();
            let key = (f & 1 == 0).then(|| c_text(input.chunk(24)));
            let value = (f & 2 == 0).then(|| c_text(input.chunk(24)));
            (key, value)
        })
        .collect();
    let arrays = (flags & 2 == 0 || count == 0, flags & 4 == 0 || count == 0);
    let id_out = flags & 8 == 0;
    let mut error = error_buffer(input);
    let (code, id) = create(server, bp.as_deref(), &pairs, arrays, id_out, &mut error);

    let mut expected = text_code(bp.as_deref());
    if expected.is_none() && (!arrays.0 || !arrays.1 || !id_out) {
        expected = Some(codes::NULL_ARGUMENT);
    }
    for (k, v) in &pairs {
        expected = expected
            .or_else(|| text_code(k.as_deref()))
            .or_else(|| text_code(v.as_deref()));
    }
    if let Some(want) = expected {
        assert_eq!(code, want, "argument checks");
        return;
    }
    fn str_of(t: &Option<Vec<u8>>) -> &str {
        let t = t.as_deref().expect("checked");
        std::str::from_utf8(&t[..t.len() - 1]).expect("checked")
    }
    let rust_pairs: Vec<_> = pairs.iter().map(|(k, v)| (str_of(k), str_of(v))).collect();
    match blueprint::create(str_of(&bp), &rust_pairs) {
        Err(e) => {
            assert_eq!(code, codes::INVALID_ARGUMENT);
            check_text(&error, &e.to_string());
        }
        Ok(_) if code == 0 => {
            // SAFETY: live handle.
            assert_eq!(unsafe { carla_sensor_destroy(server, id) }, 0);
        }
        Ok(_) => assert_eq!(code, codes::INVALID_ARGUMENT),
    }
}

fn destroy(server: CarlaServerPtr, input: &mut Input<'_>, run: &mut Run) {
    let (id, kind) = run.sensor(input);
    // SAFETY: live handle.
    let code = unsafe { carla_sensor_destroy(server, id) };
    if kind.is_some() {
        assert_eq!(code, 0);
        run.sensors.retain(|s| s.id != id);
    } else {
        assert_eq!(code, codes::UNKNOWN_SENSOR);
    }
}
