//! Maps: which maps clients may load (`get_available_maps`,
//! `load_new_episode`), worlds the host builds from a client's OpenDRIVE
//! text (`copy_opendrive_to_file`, the first half of
//! `generate_opendrive_world`), and telling connected clients that the map
//! changed (the episode state's MapChange flag).
//!
//! Names: the host lists bare names (`Town01`); clients get them as CARLA
//! answers them, `/Game/Carla/Maps/Town01`, and may ask for `Town01`,
//! `Carla/Maps/Town01` or `/Game/Carla/Maps/Town01` (each also with
//! `.umap`), in any ASCII case. The host is asked for the name as it
//! spelled it.

use super::engine::EngineCall;
use super::error::{bad_arg, refused};
use super::wire::{as_array, as_bool, as_f64, ArgResult};
use super::world::World;
use super::RpcShared;
use crate::episode::OpendriveGenerationParameters;
use crate::types::CBool;
use rmpv::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Where CARLA's maps live, as `get_available_maps` answers them.
const GAME_MAPS: &str = "/Game/Carla/Maps/";
/// Where the map names of `get_map_info` live.
const CARLA_MAPS: &str = "Carla/Maps/";
/// The map a world built from OpenDRIVE text is loaded as.
pub(crate) const OPENDRIVE_MAP: &str = "OpenDriveMap";

/// The least time the library waits for the host to load a map or build a
/// world from OpenDRIVE (the server time-out when that is longer): an
/// engine may take seconds, longer than any tick.
pub(crate) const MAP_LOAD_BOUND: Duration = Duration::from_secs(60);

/// The longest map name the host may list.
const MAX_NAME_BYTES: usize = 256;
/// The most maps the host may list.
pub const MAX_MAPS: u32 = 4096;

/// The bare name of a map a client asked for: `Town01`, `Carla/Maps/Town01`
/// or `/Game/Carla/Maps/Town01`, each with or without `.umap`; `None` for
/// any other path.
fn requested(name: &str) -> Option<&str> {
    fn strip<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
        let head = s.get(..prefix.len())?;
        head.eq_ignore_ascii_case(prefix)
            .then(|| &s[prefix.len()..])
    }
    let bare = strip(name, GAME_MAPS)
        .or_else(|| strip(name, CARLA_MAPS))
        .unwrap_or(name);
    let bare = match bare.len().checked_sub(5) {
        Some(at) if bare.is_char_boundary(at) && bare[at..].eq_ignore_ascii_case(".umap") => {
            &bare[..at]
        }
        _ => bare,
    };
    (!bare.is_empty() && !bare.contains('/')).then_some(bare)
}

/// The last path segment of a map name, without `.umap`: the host's
/// `Carla/Maps/Town01` is `Town01`.
pub(crate) fn basename(name: &str) -> &str {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.strip_suffix(".umap").unwrap_or(base)
}

/// The host's list, checked: at most [`MAX_MAPS`] bare names (a directory
/// or `.umap` is taken off), none empty, none twice.
pub(crate) fn checked_list(names: &[&str]) -> Result<Vec<String>, String> {
    if names.len() > MAX_MAPS as usize {
        return Err(format!(
            "{} map names: at most {MAX_MAPS} may be listed",
            names.len()
        ));
    }
    let mut list: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        let bare = basename(name);
        if bare.is_empty() || bare.len() > MAX_NAME_BYTES || bare.chars().any(char::is_control) {
            return Err(format!(
                "map name {name:?} is not a map name (1 to {MAX_NAME_BYTES} bytes, no control characters)"
            ));
        }
        if list.iter().any(|m| m.eq_ignore_ascii_case(bare)) {
            return Err(format!("map {bare:?} is listed twice"));
        }
        list.push(bare.to_owned());
    }
    Ok(list)
}

/// `get_available_maps`: the host's list (the current map if it gave
/// none), as CARLA names them.
pub(crate) fn available(world: &World) -> Vec<String> {
    match &*world.available_maps.read() {
        Some(list) => list.iter().map(|n| format!("{GAME_MAPS}{n}")).collect(),
        None => vec![format!("{GAME_MAPS}{}", basename(&world.map.read().name))],
    }
}

/// What a client may load: the host's list (or the current map), the
/// current map, and `OpenDriveMap` once a world was built from OpenDRIVE.
fn loadable(world: &World) -> Vec<String> {
    let current = basename(&world.map.read().name).to_owned();
    let mut names = world.available_maps.read().clone().unwrap_or_default();
    let mut add = |n: &str| {
        if !n.is_empty() && !names.iter().any(|m| m.eq_ignore_ascii_case(n)) {
            names.push(n.to_owned());
        }
    };
    add(&current);
    if world.opendrive_world.load(Ordering::Relaxed) {
        add(OPENDRIVE_MAP);
    }
    names
}

/// The map a client's `load_new_episode(name)` asks for, as the host
/// spells it; `""` is the current map.
pub(crate) fn resolve(world: &World, name: &str) -> ArgResult<String> {
    if name.is_empty() {
        return Ok(basename(&world.map.read().name).to_owned());
    }
    let names = loadable(world);
    let found = requested(name)
        .and_then(|bare| names.iter().find(|m| m.eq_ignore_ascii_case(bare)).cloned());
    found.ok_or_else(|| {
        let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
        bad_arg!(
            "map {name:?} is not available: this server has {} (get_available_maps(); \
             a name is Town01, Carla/Maps/Town01 or /Game/Carla/Maps/Town01)",
            list.join(", ")
        )
    })
}

/// How long a map request may wait for the host.
fn bound(s: &RpcShared) -> Duration {
    s.timeout.max(MAP_LOAD_BOUND)
}

/// `client.load_world(name)` / `reload_world()` (name ""): a new episode
/// of the map, which the host builds; the episode id changes before this
/// answers (the client waits for a new id). No world message goes out from
/// the request until the answer ([`super::quiet`]).
pub(crate) fn load_episode(s: &RpcShared, name: &str, reset_settings: bool) -> ArgResult<()> {
    let map = resolve(&s.world, name)?;
    // No world message while the load runs (see `super::quiet`).
    s.quiet.hold();
    let loaded = s.ask_within(
        EngineCall::LoadEpisode {
            map,
            reset_settings,
        },
        bound(s),
    );
    if loaded.is_ok() && reset_settings {
        *s.world.settings.lock() = super::EpisodeSettings::default();
        s.apply_delivery_mode();
    }
    s.quiet.release();
    loaded?;
    Ok(())
}

/// `copy_opendrive_to_file(text, params)`: the host builds a world from
/// the text; once it did, `OpenDriveMap` may be loaded.
pub(crate) fn load_opendrive(
    s: &RpcShared,
    opendrive: &str,
    params: OpendriveGenerationParameters,
) -> ArgResult<()> {
    if opendrive.trim().is_empty() {
        return Err("the OpenDRIVE text is empty".into());
    }
    let call = EngineCall::LoadOpenDrive {
        opendrive: Arc::from(opendrive),
        params,
    };
    s.ask_within(call, bound(s))?;
    s.world.opendrive_world.store(true, Ordering::Relaxed);
    Ok(())
}

/// `rpc::OpendriveGenerationParameters`: `[vertex_distance,
/// max_road_length, wall_height, additional_width, smooth_junctions,
/// enable_mesh_visibility, enable_pedestrian_navigation]`; missing trailing
/// fields keep CARLA's defaults (as msgpack-c reads them), numbers may be
/// integers, sizes must be finite and not negative (the two lengths above
/// 0).
pub(crate) fn as_params(v: &Value) -> ArgResult<OpendriveGenerationParameters> {
    let f = as_array(v, "OpenDRIVE generation parameters")?;
    let d = OpendriveGenerationParameters::default();
    let size = |i: usize, what: &str, default: f64, positive: bool| -> ArgResult<f64> {
        let Some(x) = f.get(i) else {
            return Ok(default);
        };
        let n = as_f64(x, what)?;
        let ok = n.is_finite() && if positive { n > 0.0 } else { n >= 0.0 };
        if !ok {
            let want = if positive {
                "a finite number above 0"
            } else {
                "a finite number, 0 or more"
            };
            return Err(refused!("{what} must be {want} (metres), got {n}"));
        }
        Ok(n)
    };
    let flag = |i: usize, what: &str, default: CBool| -> ArgResult<CBool> {
        f.get(i)
            .map_or(Ok(default), |x| as_bool(x, what).map(CBool::from))
    };
    Ok(OpendriveGenerationParameters {
        vertex_distance: size(0, "vertex_distance", d.vertex_distance, true)?,
        max_road_length: size(1, "max_road_length", d.max_road_length, true)?,
        wall_height: size(2, "wall_height", d.wall_height, false)?,
        additional_width: size(3, "additional_width", d.additional_width, false)?,
        smooth_junctions: flag(4, "smooth_junctions", d.smooth_junctions)?,
        enable_mesh_visibility: flag(5, "enable_mesh_visibility", d.enable_mesh_visibility)?,
        enable_pedestrian_navigation: flag(
            6,
            "enable_pedestrian_navigation",
            d.enable_pedestrian_navigation,
        )?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(list: Option<&[&str]>, current: &str) -> World {
        let w = World::new();
        w.map.write().name = current.into();
        *w.available_maps.write() = list.map(|l| checked_list(l).unwrap());
        w
    }

    #[test]
    fn every_name_form_finds_the_hosts_spelling() {
        let w = world(Some(&["Town01", "Town02"]), "Carla/Maps/Town01");
        for asked in [
            "Town02",
            "town02",
            "Carla/Maps/Town02",
            "carla/maps/TOWN02",
            "/Game/Carla/Maps/Town02",
            "/Game/Carla/Maps/Town02.umap",
            "Town02.UMAP",
        ] {
            assert_eq!(resolve(&w, asked).as_deref(), Ok("Town02"), "{asked}");
        }
        assert_eq!(resolve(&w, "").as_deref(), Ok("Town01"));
        for bad in [
            "Town03",
            "Maps/Town02",
            "/Game/Other/Town02",
            "/Game/Carla/Maps/",
            ".umap",
            "Town0",
        ] {
            let e = resolve(&w, bad).unwrap_err().to_string();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
            assert!(e.contains("\"Town01\", \"Town02\""), "{e}");
        }
    }

    #[test]
    fn without_a_list_only_the_current_map_and_opendrive_once_built() {
        let w = world(None, "Carla/Maps/SyntheticTown");
        assert_eq!(available(&w), ["/Game/Carla/Maps/SyntheticTown"]);
        assert_eq!(
            resolve(&w, "/Game/Carla/Maps/SyntheticTown").as_deref(),
            Ok("SyntheticTown")
        );
        let e = resolve(&w, "OpenDriveMap").unwrap_err().to_string();
        assert!(e.contains("this server has \"SyntheticTown\" ("), "{e}");
        w.opendrive_world.store(true, Ordering::Relaxed);
        assert_eq!(resolve(&w, "opendrivemap").as_deref(), Ok(OPENDRIVE_MAP));
        let w = world(
            Some(&["Carla/Maps/Town01.umap", "Town02"]),
            "Carla/Maps/Town01",
        );
        assert_eq!(
            available(&w),
            ["/Game/Carla/Maps/Town01", "/Game/Carla/Maps/Town02"]
        );
    }

    #[test]
    fn the_hosts_list_is_checked() {
        assert!(checked_list(&["Town01", "town01"])
            .unwrap_err()
            .to_string()
            .contains("twice"));
        assert!(checked_list(&[""]).is_err());
        assert!(checked_list(&["Carla/Maps/"]).is_err());
        assert!(checked_list(&["a\nb"]).is_err());
        assert!(checked_list(&[&"x".repeat(300)]).is_err());
        let many: Vec<String> = (0..=MAX_MAPS).map(|i| format!("Town{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(checked_list(&many).unwrap_err().contains("at most 4096"));
        assert_eq!(checked_list(&many[1..]).unwrap().len(), 4096);
        assert_eq!(checked_list(&[]).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn parameters_decode_with_defaults_ints_and_bounds() {
        let v = |items: Vec<Value>| Value::Array(items);
        // The four numbers, then the three flags.
        let params = |numbers: [Value; 4], flags: [bool; 3]| {
            v(numbers.into_iter().chain(flags.map(Value::from)).collect())
        };
        let carla = params([2.0, 50.0, 1.0, 0.6].map(Value::F64), [true; 3]);
        assert_eq!(
            as_params(&carla),
            Ok(OpendriveGenerationParameters::default())
        );
        let numbers = [
            Value::from(3),
            Value::F64(25.5),
            Value::from(0),
            Value::F32(0.25),
        ];
        let given = params(numbers, [false, true, false]);
        let p = as_params(&given).unwrap();
        assert_eq!(
            (
                p.vertex_distance,
                p.max_road_length,
                p.wall_height,
                p.additional_width
            ),
            (3.0, 25.5, 0.0, 0.25)
        );
        assert_eq!(
            (
                p.smooth_junctions.get(),
                p.enable_mesh_visibility.get(),
                p.enable_pedestrian_navigation.get()
            ),
            (false, true, false)
        );
        let short = as_params(&v(vec![Value::F64(4.0)])).unwrap();
        assert_eq!(short.vertex_distance, 4.0);
        assert_eq!(short.max_road_length, 50.0);
        for (i, bad) in [
            (0, Value::F64(0.0)),
            (0, Value::F64(f64::NAN)),
            (1, Value::F64(f64::INFINITY)),
            (2, Value::F64(-1.0)),
            (3, Value::from(-2)),
        ] {
            let mut items = vec![Value::F64(1.0); 4];
            items[i] = bad;
            let e = as_params(&v(items)).unwrap_err().to_string();
            assert!(e.contains("must be a finite number"), "{e}");
        }
        assert!(as_params(&v(vec![Value::from("2")])).is_err());
        assert!(as_params(&Value::from(2)).is_err());
        let e = as_params(&v(vec![
            Value::F64(2.0),
            Value::F64(2.0),
            Value::F64(2.0),
            Value::F64(2.0),
            Value::from(1),
        ]))
        .unwrap_err()
        .to_string();
        assert!(e.contains("smooth_junctions"), "{e}");
    }
}
