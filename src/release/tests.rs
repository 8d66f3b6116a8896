use super::*;
use crate::sensor::SensorType as S;

/// 0.9.14's registry, which 0.9.15 kept.
const REGISTRY_14: &str = "collision depth normals dvs gnss imu lane obstacle flow radar \
    semlidar lidar rss rgb semseg instance world gbuf8 gbuff";

/// The registries of the wheels, by position (from each `libcarla`'s
/// `CompositeSerializer` template arguments; docs/releases.md), as
/// whitespace-separated short names.
const REGISTRIES: [(Release, &str); 4] = [
    (
        Release::V0_9_12,
        "collision depth dvs gnss imu lane obstacle flow radar semlidar lidar rss rgb \
         semseg world",
    ),
    (
        Release::V0_9_13,
        "collision depth dvs gnss imu lane obstacle flow radar semlidar lidar rss rgb \
         semseg instance world",
    ),
    (Release::V0_9_14, REGISTRY_14),
    (Release::V0_9_15, REGISTRY_14),
];

/// The short names above for the library's sensors, by sensor type id;
/// the sensors after `GBufferFloat` are "other".
fn short(s: S) -> &'static str {
    "collision depth normals dvs gnss imu lane obstacle flow radar semlidar lidar rss rgb \
     semseg instance cosmos world gbuf8 gbuff"
        .split_whitespace()
        .nth(s as usize)
        .unwrap_or("other")
}

#[test]
fn every_sensor_maps_to_the_same_sensor_of_each_registry() {
    for (release, names) in REGISTRIES {
        let registry: Vec<&str> = names.split_whitespace().collect();
        for s in S::ALL {
            let mapped = release.sensor_type(s as u64);
            match registry.iter().position(|n| *n == short(s)) {
                Some(i) => assert_eq!(mapped, Some(i as u64), "{release} {s}"),
                None => match s {
                    // Image-layout sensors the release lacks: as its RGB.
                    S::CosmosControl => assert_eq!(
                        mapped.map(|id| registry[id as usize]),
                        Some("rgb"),
                        "{release} {s}"
                    ),
                    S::InstanceSegmentationCamera => {
                        assert_eq!(mapped.map(|id| registry[id as usize]), Some("rgb"))
                    }
                    _ => assert_eq!(mapped, None, "{release} {s}"),
                },
            }
        }
    }
    for s in S::ALL {
        assert_eq!(Release::V0_9_16.sensor_type(s as u64), Some(s as u64));
    }
    assert_eq!(Release::V0_9_14.sensor_type(99), None);
}

#[test]
fn world_observer_ids_are_14_15_16_16_17() {
    let ids: Vec<_> = Release::ALL
        .iter()
        .map(|r| r.sensor_type(S::WorldObserver as u64).unwrap())
        .collect();
    assert_eq!(ids, [14, 15, 16, 16, 17]);
}

#[test]
fn blueprint_libraries_list_only_sensors_the_release_decodes() {
    let has = |r: Release, id| r.has_sensor_blueprint(id);
    assert!(!has(
        Release::V0_9_12,
        "sensor.camera.instance_segmentation"
    ));
    assert!(has(Release::V0_9_13, "sensor.camera.instance_segmentation"));
    assert!(!has(Release::V0_9_13, "sensor.camera.normals"));
    assert!(has(Release::V0_9_14, "sensor.camera.normals"));
    assert!(!has(Release::V0_9_15, "sensor.camera.cosmos_visualization"));
    assert!(has(Release::V0_9_16, "sensor.camera.cosmos_visualization"));
    assert!(!has(Release::V0_9_15, "sensor.other.v2x"));
    assert!(has(Release::V0_9_12, "sensor.camera.rgb.wide_angle_lens"));
    assert!(has(Release::V0_9_12, "vehicle.tesla.model3"));
    assert!(has(Release::V0_9_12, "sensor.other.safe_distance"));
    assert!(has(Release::V0_9_12, "sensor.other.safe_distance"));
}

#[test]
fn attribute_types_are_zero_based_before_0_9_16() {
    use crate::rpc::{ATTR_BOOL, ATTR_RGB};
    for r in Release::ALL {
        let (bool_out, rgb_out) = (
            r.attribute_type_out(ATTR_BOOL),
            r.attribute_type_out(ATTR_RGB),
        );
        if r == Release::V0_9_16 {
            assert_eq!((bool_out, rgb_out), (1, 5));
        } else {
            assert_eq!((bool_out, rgb_out), (0, 4), "{r}");
        }
        assert_eq!(r.attribute_type_in(bool_out), ATTR_BOOL);
        assert_eq!(r.attribute_type_in(rgb_out), ATTR_RGB);
    }
}

#[test]
fn old_command_indices_skip_the_ackermann_control() {
    // 0.9.13: 5 = ApplyTransform, 6 = ApplyWalkerState; 0.9.16: 6 and 7.
    assert_eq!(Release::V0_9_13.command_index_in(5), 6);
    assert_eq!(Release::V0_9_12.command_index_in(6), 7);
    assert_eq!(Release::V0_9_12.command_index_in(2), 2);
    assert_eq!(Release::V0_9_14.command_index_in(5), 5);
}

#[test]
fn labels_of_0_9_13_use_the_old_numbering() {
    // Car 14 → Vehicles 10, Pedestrians 12 → 4, TrafficLight 7 → 18,
    // TrafficSigns 8 → 12, Roads 1 → 7; 0.9.14+ unchanged.
    let old: Vec<u8> = [14, 12, 7, 8, 1, 255]
        .iter()
        .map(|&l| Release::V0_9_13.label_out(l))
        .collect();
    assert_eq!(old, [10, 4, 18, 12, 7, 255]);
    assert_eq!(Release::V0_9_14.label_out(14), 14);
}

#[test]
fn stream_ids_carry_their_release() {
    for r in Release::ALL {
        let tagged = r.tag_stream(7);
        assert_eq!(Release::split_stream_id(tagged), Some((r, 7)));
    }
    assert_eq!(Release::V0_9_16.tag_stream(7), 7);
    assert_eq!(Release::split_stream_id(0xF000_0001), None);
}

#[test]
fn names_parse_and_unknown_ones_name_the_releases_served() {
    assert_eq!("0.9.14".parse::<Release>(), Ok(Release::V0_9_14));
    let e = "0.9.11".parse::<Release>().unwrap_err();
    assert!(e.contains("0.9.12, 0.9.13, 0.9.14, 0.9.15, 0.9.16"), "{e}");
}

#[test]
fn old_releases_get_their_labels_in_segmentation_images_and_semantic_lidar() {
    use crate::sensor::serialize::{image, semantic_lidar, SemanticLidarDetection};
    let r = Release::V0_9_13;
    assert!(r.relabels(S::SemanticSegmentationCamera as u64));
    assert!(r.relabels(S::SemanticLidar as u64));
    assert!(!r.relabels(S::RgbCamera as u64));
    assert!(!Release::V0_9_14.relabels(S::SemanticLidar as u64));
    // A 2×1 image: pixels Car (14) and Roads (1) in red; B, G, A kept.
    let mut picture = Vec::new();
    image(&mut picture, 2, 1, 90.0, &[9, 8, 14, 255, 7, 6, 1, 255]).unwrap();
    let mut out = Vec::new();
    r.relabel(S::SemanticSegmentationCamera as u64, &picture, &mut out);
    assert_eq!(&out[12..], &[9, 8, 10, 255, 7, 6, 7, 255]);
    assert_eq!(out[..12], picture[..12]);
    // Two channels, points Pedestrians (12) and TrafficLight (7).
    let point = |object_tag| SemanticLidarDetection {
        x: 1.0,
        y: 2.0,
        z: 3.0,
        cos_inc_angle: 0.5,
        object_idx: 9,
        object_tag,
    };
    let mut lidar = Vec::new();
    semantic_lidar(&mut lidar, 0.0, &[1, 1], &[point(12), point(7)]).unwrap();
    r.relabel(S::SemanticLidar as u64, &lidar, &mut out);
    let tags: Vec<u32> = out[16..]
        .chunks_exact(24)
        .map(|p| u32::from_le_bytes(p[20..24].try_into().unwrap()))
        .collect();
    assert_eq!(tags, [4, 18]);
    assert_eq!(out.len(), lidar.len());
}
