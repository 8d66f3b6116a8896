//! The maps `carla-host` serves: the built-in town, every `*.xodr` of
//! `--maps DIR` (named by its file stem), and the last world a client
//! generated from OpenDRIVE text (`OpenDriveMap`). A map is read and built
//! when a client loads it; a file over the size budget, not UTF-8 or not a
//! map is a clear error and the running world goes on.

use crate::world::map::{builtin, limits, Options};
use crate::world::Town;
use carla_server::log_warn;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The name CARLA gives a world generated from OpenDRIVE text.
pub(crate) const GENERATED: &str = "OpenDriveMap";

enum Source {
    Builtin,
    File(PathBuf),
}

/// The maps by name.
pub(crate) struct Catalog {
    entries: Vec<(String, Source)>,
}

impl Catalog {
    /// The built-in town and the maps of `dir`.
    pub(crate) fn new(dir: Option<&Path>) -> Result<Catalog, String> {
        let mut entries = vec![(builtin::NAME.to_owned(), Source::Builtin)];
        if let Some(dir) = dir {
            let read =
                std::fs::read_dir(dir).map_err(|e| format!("--maps {}: {e}", dir.display()))?;
            let mut files: Vec<PathBuf> = read
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("xodr"))
                        && p.is_file()
                })
                .collect();
            files.sort();
            for path in files {
                let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                    log_warn!("--maps: {} has no UTF-8 name; skipped", path.display());
                    continue;
                };
                if entries.iter().any(|(n, _)| n.eq_ignore_ascii_case(stem)) {
                    log_warn!(
                        "--maps: a map named {} is listed already; {} skipped",
                        stem,
                        path.display()
                    );
                    continue;
                }
                entries.push((stem.to_owned(), Source::File(path)));
            }
        }
        Ok(Catalog { entries })
    }

    /// Every map's name, the built-in town first.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The name as listed of a map named `name` (any case).
    pub(crate) fn find(&self, name: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(n, _)| n.as_str())
    }

    /// Reads and builds map `name`.
    pub(crate) fn load(&self, name: &str) -> Result<Arc<Town>, String> {
        let Some((name, source)) = self
            .entries
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(format!(
                "no map named {name:?} (this server has {})",
                self.names().join(", ")
            ));
        };
        match source {
            Source::Builtin => Ok(Town::builtin()),
            Source::File(path) => {
                let text = read(path)?;
                Town::load(name, text, Options::default())
                    .map_err(|e| format!("map {name} ({}): {e}", path.display()))
            }
        }
    }
}

/// A map file's text, within the size budget.
fn read(path: &Path) -> Result<Arc<str>, String> {
    let len = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    if len > limits::MAX_TEXT_BYTES as u64 {
        return Err(format!(
            "{} is {len} bytes, over the limit of {} MiB",
            path.display(),
            limits::MAX_TEXT_BYTES >> 20
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("{}: not UTF-8 text ({e})", path.display()))?;
    Ok(text.into())
}

/// The options a client's `OpendriveGenerationParameters` ask for.
pub(crate) fn options(p: &carla_server::rpc::OpendriveGenerationParameters) -> Options {
    let finite = |v: f64, lo: f32, hi: f32, default: f32| {
        if v.is_finite() {
            (v as f32).clamp(lo, hi)
        } else {
            default
        }
    };
    Options {
        vertex_distance: finite(p.vertex_distance, 0.25, 200.0, 2.0),
        wall_height: finite(p.wall_height, 0.0, 50.0, 1.0),
        additional_width: finite(p.additional_width, 0.0, 5.0, 0.6),
        smooth_junctions: p.smooth_junctions.get(),
        mesh_visible: p.enable_mesh_visibility.get(),
        pedestrian_navigation: p.enable_pedestrian_navigation.get(),
    }
}
