//! CARLA's recorder and replayer, in CARLA 0.9.16's file format.
//!
//! - recording: while a recording runs, every episode state the host
//!   sends ([`crate::rpc::RpcServer::send_episode_state`]) becomes one
//!   frame (`capture`): actors added and removed with their blueprints
//!   and attributes, parents, positions, traffic-light states, vehicle
//!   controls and lights, walker speeds, the collisions the host reported,
//!   and with `additional_data` velocities, bounding boxes, platform time
//!   and light times. A thread of its own writes the file (`writer`);
//! - reading: `file` reads packet by packet with bounded memory;
//!   `query` prints CARLA's three reports of a file;
//! - replaying: `replay` moves the recorded actors in the running world
//!   through the host's usual requests.
//!
//! The file format is in [`mod@format`]; docs/recorder.md is the reference.

mod capture;
mod file;
pub mod format;
mod physics_text;
mod query;
pub(crate) mod replay;
mod show_all;
mod text;
mod writer;

#[cfg(test)]
mod tests;

pub(crate) use capture::{RecordedActor, Recording};
pub(crate) use replay::{Replay, ReplayOptions};
pub use writer::RecordingSummary;

use std::path::{Component, Path, PathBuf};

/// Where a recording's name leads: an absolute path where it says; a
/// relative one inside `folder`, which it may not leave (`..`).
pub(crate) fn resolve(folder: &Path, name: &str) -> Result<PathBuf, String> {
    if name.is_empty() {
        return Err("a recording needs a file name".into());
    }
    if name.contains('\0') {
        return Err(format!("{name:?}: a file name cannot hold a NUL byte"));
    }
    let p = Path::new(name);
    if p.is_absolute() {
        return Ok(p.to_owned());
    }
    for c in p.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            _ => {
                return Err(format!(
                    "{name:?} leaves the recording folder {} (a relative name may not hold \"..\" or a drive); give an absolute path to write elsewhere",
                    folder.display()
                ))
            }
        }
    }
    Ok(folder.join(p))
}

/// The recording folder a library starts with: `recordings` in the
/// current directory.
pub(crate) fn default_folder() -> PathBuf {
    std::env::current_dir()
        .unwrap_or_else(|_| PathBuf::from("."))
        .join("recordings")
}

/// Starts writing `path`: creates its folder if needed and writes the
/// header. The first frame is the next episode state's.
pub(crate) fn create(path: &Path, map: &str, additional: bool) -> Result<Recording, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the folder {}: {e}", dir.display()))?;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let mut head = Vec::new();
    format::header(&mut head, now, map);
    let w = writer::Writer::create(path, &head)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Recording::new(w, additional))
}

/// `show_recorder_file_info`'s text.
pub fn file_info(path: &Path, show_all: bool) -> String {
    query::info(path, show_all)
}

/// `show_recorder_collisions`' text; types are `h` (hero), `v`, `w`, `t`,
/// `o` or `a` (any).
pub fn collisions(path: &Path, type1: u8, type2: u8) -> String {
    query::collisions(path, type1, type2)
}

/// `show_recorder_actors_blocked`' text; `min_distance` in cm.
pub fn actors_blocked(path: &Path, min_time: f64, min_distance: f64) -> String {
    query::blocked(path, min_time, min_distance)
}
