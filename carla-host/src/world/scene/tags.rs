//! The semantic tags: the world's internal tags ([`tag`]: CARLA 0.8's
//! numbering plus finer classes of the demo world's own) and their
//! tables to CARLA 0.8's and CARLA 0.9.16's numbering. Every camera output
//! and, through [`tag_0916`], the lidar use these.

/// CARLA's semantic tags (the whole 0.8 table, some unused here) and the
/// world's finer classes.
#[allow(dead_code)]
pub(crate) mod tag {
    pub(crate) const NONE: u8 = 0;
    pub(crate) const BUILDINGS: u8 = 1;
    pub(crate) const FENCES: u8 = 2;
    pub(crate) const OTHER: u8 = 3;
    pub(crate) const PEDESTRIANS: u8 = 4;
    pub(crate) const POLES: u8 = 5;
    pub(crate) const ROAD_LINES: u8 = 6;
    pub(crate) const ROADS: u8 = 7;
    pub(crate) const SIDEWALKS: u8 = 8;
    pub(crate) const VEGETATION: u8 = 9;
    pub(crate) const VEHICLES: u8 = 10;
    pub(crate) const WALLS: u8 = 11;
    pub(crate) const TRAFFIC_SIGNS: u8 = 12;
    // Finer classes of the demo world's own, beyond 0.8's table: 0.8
    // outputs report them as the 0.8 tag named, 0.9.16 outputs as their
    // own class.
    /// No surface at all (0.8: NONE; 0.9.16: Sky).
    pub(crate) const SKY: u8 = 13;
    /// Grass and bare ground (0.8: VEGETATION; 0.9.16: Terrain).
    pub(crate) const TERRAIN: u8 = 14;
    /// Traffic-light lamp housings (0.8: TRAFFIC_SIGNS; 0.9.16: TrafficLight).
    pub(crate) const TRAFFIC_LIGHTS: u8 = 15;
    /// A vehicle's lit lamps, which shine at any hour (0.8: VEHICLES;
    /// 0.9.16: Car).
    pub(crate) const VEHICLE_LAMPS: u8 = 16;
    /// Street lamp heads, which glow at night (0.8: POLES; 0.9.16: Pole).
    pub(crate) const STREET_LAMPS: u8 = 17;
}

/// CARLA 0.8's tag of an internal tag ([`tag`]); unknown tags are 0.
pub(crate) const fn tag_08(internal: u8) -> u8 {
    match internal {
        tag::SKY => tag::NONE,
        tag::TERRAIN => tag::VEGETATION,
        tag::TRAFFIC_LIGHTS => tag::TRAFFIC_SIGNS,
        tag::VEHICLE_LAMPS => tag::VEHICLES,
        tag::STREET_LAMPS => tag::POLES,
        t if t <= tag::TRAFFIC_SIGNS => t,
        _ => tag::NONE,
    }
}

/// CARLA 0.9.16's semantic tag (CityScapes-like: 1 Roads, 2 SideWalks,
/// 3 Building, 4 Wall, 5 Fence, 6 Pole, 7 TrafficLight, 8 TrafficSign,
/// 9 Vegetation, 10 Terrain, 11 Sky, 12 Pedestrian, 14 Car, 22 Other,
/// 24 RoadLine, ...) of an internal tag ([`tag`]): the one table every
/// 0.9.16 output uses. Unknown tags are 0 (Unlabeled).
pub(crate) const fn tag_0916(internal: u8) -> u8 {
    match internal {
        tag::BUILDINGS => 3,
        tag::FENCES => 5,
        tag::OTHER => 22,
        tag::PEDESTRIANS => 12,
        tag::POLES | tag::STREET_LAMPS => 6,
        tag::ROAD_LINES => 24,
        tag::ROADS => 1,
        tag::SIDEWALKS => 2,
        tag::VEGETATION => 9,
        tag::VEHICLES | tag::VEHICLE_LAMPS => 14,
        tag::WALLS => 4,
        tag::TRAFFIC_SIGNS => 8,
        tag::SKY => 11,
        tag::TERRAIN => 10,
        tag::TRAFFIC_LIGHTS => 7,
        _ => 0,
    }
}

const fn table(of_0916: bool) -> [u8; 256] {
    let mut t = [0; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = if of_0916 {
            tag_0916(i as u8)
        } else {
            tag_08(i as u8)
        };
        i += 1;
    }
    t
}
/// CARLA 0.9.16's actor type of unregistered level geometry with internal
/// tag `t`: "static." and the tag's name, lower case, a final "s" dropped
/// (`static.building`, `static.pole`...), as CARLA names what a collision
/// or obstacle sensor hit that is not an actor.
pub(crate) fn static_type_id(t: u8) -> String {
    const NAMES: [&str; 29] = [
        "",
        "Roads",
        "Sidewalks",
        "Buildings",
        "Walls",
        "Fences",
        "Poles",
        "TrafficLight",
        "TrafficSigns",
        "Vegetation",
        "Terrain",
        "Sky",
        "Pedestrians",
        "Rider",
        "Car",
        "Truck",
        "Bus",
        "Train",
        "Motorcycle",
        "Bicycle",
        "Static",
        "Dynamic",
        "",
        "Water",
        "RoadLines",
        "Ground",
        "Bridge",
        "RailTrack",
        "GuardRail",
    ];
    let name = NAMES.get(usize::from(tag_0916(t))).copied().unwrap_or("");
    if name.is_empty() {
        return "static.unknown".into();
    }
    let lower = name.to_ascii_lowercase();
    format!("static.{}", lower.strip_suffix('s').unwrap_or(&lower))
}

/// [`tag_08`] and [`tag_0916`] of every byte, for the per-pixel outputs.
pub(crate) const TAGS_08: [u8; 256] = table(false);
pub(crate) const TAGS_0916: [u8; 256] = table(true);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_tables_follow_0_8_and_0_9_16() {
        assert_eq!(TAGS_08[tag::SKY as usize], 0);
        assert_eq!(TAGS_08[tag::TERRAIN as usize], tag::VEGETATION);
        assert_eq!(TAGS_08[tag::TRAFFIC_LIGHTS as usize], tag::TRAFFIC_SIGNS);
        for t in 0..=tag::TRAFFIC_SIGNS {
            assert_eq!(TAGS_08[t as usize], t);
        }
        let expect = [
            (tag::NONE, 0),
            (tag::ROADS, 1),
            (tag::SIDEWALKS, 2),
            (tag::BUILDINGS, 3),
            (tag::WALLS, 4),
            (tag::FENCES, 5),
            (tag::POLES, 6),
            (tag::TRAFFIC_LIGHTS, 7),
            (tag::TRAFFIC_SIGNS, 8),
            (tag::VEGETATION, 9),
            (tag::TERRAIN, 10),
            (tag::SKY, 11),
            (tag::PEDESTRIANS, 12),
            (tag::VEHICLES, 14),
            (tag::OTHER, 22),
            (tag::ROAD_LINES, 24),
            (200, 0),
        ];
        for (internal, carla) in expect {
            assert_eq!(tag_0916(internal), carla, "{internal}");
            assert_eq!(TAGS_0916[internal as usize], carla);
        }
    }

    #[test]
    fn level_geometry_is_named_as_carla_names_it() {
        assert_eq!(static_type_id(tag::BUILDINGS), "static.building");
        assert_eq!(static_type_id(tag::POLES), "static.pole");
        assert_eq!(static_type_id(tag::WALLS), "static.wall");
        assert_eq!(static_type_id(tag::TRAFFIC_LIGHTS), "static.trafficlight");
        assert_eq!(static_type_id(tag::VEGETATION), "static.vegetation");
        assert_eq!(static_type_id(tag::NONE), "static.unknown");
        assert_eq!(static_type_id(tag::OTHER), "static.unknown");
    }
}
