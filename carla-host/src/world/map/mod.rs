//! The map: OpenDRIVE text in, the lane graph and the geometry the rest of
//! the world is built from out. Nothing above this module knows OpenDRIVE.
//!
//! [`Map::load`] checks the text against a budget ([`limits`]), reads it
//! ([`import`], with the `xodr` crate), and derives the signals
//! ([`signals`]), spawn points ([`spawn`]), walkable polygons
//! ([`walkable`]) and the geographic origin ([`geo`]). The built-in
//! town is one generated text ([`builtin`]) that takes the same path.

pub(crate) mod builtin;
pub(crate) mod geo;
pub(crate) mod import;
mod lane;
pub(crate) mod lanes;
pub(crate) mod limits;
mod locate;
pub(crate) mod mouths;
pub(crate) mod signals;
pub(crate) mod spawn;
pub(crate) mod walkable;

use carla_server::rpc::nav::NavPolygon;
use carla_server::sensor::models::gnss::GeoReference;
use carla_server::types::Transform;
use import::MarkPiece;
use lanes::{LaneIx, Lanes};
use std::sync::Arc;

/// How far sidewalks stand above the road, metres.
pub(crate) const CURB_HEIGHT: f32 = 0.15;

/// What a client asked of a world built from OpenDRIVE text (CARLA's
/// `OpendriveGenerationParameters`, where they mean something here).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Options {
    /// Longest distance between two vertices of a road's surface, metres.
    pub vertex_distance: f32,
    /// Walls this high along the outer edges of the roads (0: none).
    pub wall_height: f32,
    /// Extra width of junction lanes' surface on each side, metres.
    pub additional_width: f32,
    /// Junctions drawn as one filled surface rather than lane by lane.
    pub smooth_junctions: bool,
    /// Whether cameras see the road surface.
    pub mesh_visible: bool,
    /// Whether walkers get a navigation mesh.
    pub pedestrian_navigation: bool,
}

impl Default for Options {
    /// What maps loaded by name get.
    fn default() -> Options {
        Options {
            vertex_distance: 2.0,
            wall_height: 0.0,
            additional_width: 0.0,
            smooth_junctions: false,
            mesh_visible: true,
            pedestrian_navigation: true,
        }
    }
}

/// A loaded map.
pub(crate) struct Map {
    /// Its name, as `get_available_maps` lists it (no path).
    pub name: String,
    /// The text it was built from, byte for byte.
    pub opendrive: Arc<str>,
    pub options: Options,
    pub lanes: Lanes,
    pub marks: Vec<MarkPiece>,
    pub signs: signals::Signs,
    pub spawn_points: Vec<Transform>,
    /// Crosswalks and sidewalk corners at junctions.
    pub mouths: mouths::Mouths,
    pub walkable: Vec<NavPolygon>,
    pub geo: GeoReference,
    /// What the load let pass (unknown elements, link gaps...).
    pub warnings: Vec<String>,
}

impl Map {
    /// Builds the map `name` from `text`; a refusal names the element and
    /// the limit.
    pub(crate) fn load(name: &str, text: Arc<str>, options: Options) -> Result<Map, String> {
        let checked = limits::check(&text)?;
        let imported = import::import(&text)?;
        let mut warnings = checked.warnings;
        warnings.extend(imported.warnings);
        let lanes = imported.lanes;
        if lanes.driving().next().is_none() {
            return Err("the map has no driving lane".into());
        }
        if let Some(lane) = short_loop(&lanes) {
            return Err(format!(
                "{}: its lanes lead back to it within a metre (circular links)",
                lanes.name(lane)
            ));
        }
        let signs = signals::build(
            &lanes,
            &imported.signals,
            &imported.controllers,
            &mut warnings,
        );
        let spawn_points = spawn::spawn_points(&lanes);
        let mouths = mouths::mouths(&lanes, CURB_HEIGHT);
        let walkable = if options.pedestrian_navigation {
            walkable::walkable(&lanes, &mouths)
        } else {
            Vec::new()
        };
        let geo = geo::origin(imported.geo_reference.as_deref(), &mut warnings);
        Ok(Map {
            name: name.to_owned(),
            opendrive: text,
            options,
            lanes,
            marks: imported.marks,
            signs,
            spawn_points,
            mouths,
            walkable,
            geo,
            warnings,
        })
    }
}

/// A driving lane from which following successors comes back to it within
/// a metre of driving: a loop that traffic would go round forever without
/// moving.
fn short_loop(lanes: &Lanes) -> Option<LaneIx> {
    for (start, lane) in lanes.driving() {
        if lane.length() >= 1.0 {
            continue;
        }
        // Depth-first over successors while the distance stays under 1 m.
        let mut stack = vec![(start, lane.length())];
        let mut steps = 0;
        while let Some((at, used)) = stack.pop() {
            steps += 1;
            if steps > 10_000 {
                break;
            }
            for &next in &lanes.lane(at).successors {
                if next == start {
                    return Some(start);
                }
                let more = used + lanes.lane(next).length();
                if more < 1.0 {
                    stack.push((next, more));
                }
            }
        }
    }
    None
}

#[cfg(test)]
#[path = "map_tests.rs"]
mod tests;
