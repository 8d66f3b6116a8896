//! The map's place on the earth, read as CARLA's client reads it: the
//! `+lat_0` and `+lon_0` of the `<geoReference>` PROJ string; without
//! them, the client's own defaults (42° N, 2° E), so the GNSS sensor and
//! the client's `transform_to_geolocation` agree.

use carla_server::sensor::models::gnss::GeoReference;

/// The client's default when a map names no origin.
pub(crate) const DEFAULT: GeoReference = GeoReference {
    latitude: 42.0,
    longitude: 2.0,
    altitude: 0.0,
};

/// The origin of `proj` (a PROJ string), or [`DEFAULT`] with a warning.
pub(crate) fn origin(proj: Option<&str>, warnings: &mut Vec<String>) -> GeoReference {
    let text = proj.unwrap_or("");
    let value = |key: &str| {
        text.split_whitespace()
            .filter_map(|w| w.split_once('='))
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.parse::<f64>().ok())
            .filter(|v| v.is_finite())
    };
    match (value("+lat_0"), value("+lon_0")) {
        (Some(latitude), Some(longitude)) => GeoReference {
            latitude,
            longitude,
            altitude: 0.0,
        },
        _ => {
            warnings.push(format!(
                "the geoReference {text:?} names no +lat_0 and +lon_0: GNSS uses 42 N, 2 E as CARLA's client does"
            ));
            DEFAULT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_is_read_as_the_client_reads_it() {
        let mut w = Vec::new();
        let g = origin(
            Some("+proj=tmerc +lat_0=4.9000000000000000e+1 +lon_0=8.0000000000000000e+0 +k=1"),
            &mut w,
        );
        assert_eq!((g.latitude, g.longitude), (49.0, 8.0));
        assert!(w.is_empty());
        let g = origin(Some("+proj=utm +zone=32 +datum=WGS84"), &mut w);
        assert_eq!((g.latitude, g.longitude), (42.0, 2.0));
        assert_eq!(w.len(), 1);
        let g = origin(None, &mut w);
        assert_eq!((g.latitude, g.longitude), (42.0, 2.0));
    }
}
