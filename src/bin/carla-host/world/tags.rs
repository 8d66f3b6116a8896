//! CARLA 0.9.16's semantic tags, and the mapping from the town's own tag
//! numbers (CARLA 0.8's, [`super::town::tag`]) that every 0.9 stream uses.

use super::town::tag;

/// 0.9.16's tag of a town tag (0.8 numbering). Unknown values are 0.
pub(crate) fn tag_0916(t: u8) -> u8 {
    match t {
        tag::ROADS => 1,
        tag::SIDEWALKS => 2,
        tag::BUILDINGS => 3,
        tag::WALLS => 4,
        tag::FENCES => 5,
        tag::POLES => 6,
        tag::TRAFFIC_SIGNS => 8,
        tag::VEGETATION => 9,
        tag::PEDESTRIANS => 12,
        tag::VEHICLES => 14,
        tag::OTHER => 22,
        tag::ROAD_LINES => 24,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classes_a_client_checks_have_their_0916_numbers() {
        assert_eq!(tag_0916(tag::ROADS), 1);
        assert_eq!(tag_0916(tag::VEHICLES), 14);
        assert_eq!(tag_0916(tag::PEDESTRIANS), 12);
        assert_eq!(tag_0916(tag::ROAD_LINES), 24);
        assert_eq!(tag_0916(tag::NONE), 0);
    }
}
