//! GNSS: a world location (metres, Unreal frame) to latitude, longitude and
//! altitude, the way CARLA 0.9's `GeoLocation::Transform` does it.
//!
//! The map has a geo-reference (the latitude/longitude/altitude of the world
//! origin). A location is converted by working in the Mercator projection
//! scaled by `cos(reference latitude)`, the "Mercator scale", on a sphere of
//! the WGS-84 equatorial radius (6 378 137 m): the reference point is
//! projected, the location's x (east) and −y (north; Unreal's y axis points
//! south in CARLA maps) in metres are added, and the result is projected back.
//! The scaling makes the projection locally metric around the reference, so
//! 1 m east or north moves the result by 1 m on the ground there.
//!
//! For a reference latitude φ₀ (degrees), longitude λ₀ and R' = R · cos φ₀:
//!
//! * mx = R' · rad(λ₀) + x
//! * my = R' · ln(tan(45° + φ₀/2)) − y
//! * longitude = deg(mx / R')
//! * latitude = deg(2 · atan(exp(my / R'))) − 90°
//! * altitude = reference altitude + z
//!
//! Note: the newest CARLA sources replace this with a spherical transverse
//! Mercator projection; this module follows the long-standing 0.9 formula.

use crate::types::Vector3D;
use std::f64::consts::PI;
use std::fmt;

/// WGS-84 equatorial radius, metres.
pub const EARTH_RADIUS_EQUATOR_M: f64 = 6_378_137.0;

/// Geographic position of the world origin: degrees and metres.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GeoReference {
    pub latitude: f64,
    pub longitude: f64,
    pub altitude: f64,
}

/// A geo-reference value outside its domain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InvalidGeoReference {
    pub field: &'static str,
    pub value: f64,
}

impl fmt::Display for InvalidGeoReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (field, value) = (self.field, self.value);
        let domain = if field == "latitude" {
            "strictly between -90 and 90 degrees"
        } else {
            "finite"
        };
        write!(f, "geo-reference {field} must be {domain}, got {value}")
    }
}

impl std::error::Error for InvalidGeoReference {}

impl GeoReference {
    /// The latitude must be strictly inside (−90°, 90°) — the Mercator
    /// scale is 0 at the poles — and every value finite.
    pub fn validate(&self) -> Result<(), InvalidGeoReference> {
        let lat = self.latitude;
        if !(lat.is_finite() && lat > -90.0 && lat < 90.0) {
            return Err(InvalidGeoReference {
                field: "latitude",
                value: lat,
            });
        }
        for (field, value) in [("longitude", self.longitude), ("altitude", self.altitude)] {
            if !value.is_finite() {
                return Err(InvalidGeoReference { field, value });
            }
        }
        Ok(())
    }
}

/// Converts a world location (metres; x forward/east, y right/south, z up)
/// to `(latitude°, longitude°, altitude m)`. With a reference at a pole the
/// result is not finite (see [`GeoReference::validate`]).
pub fn to_geo(reference: &GeoReference, location: Vector3D) -> (f64, f64, f64) {
    let scaled_radius = EARTH_RADIUS_EQUATOR_M * reference.latitude.to_radians().cos();
    let (x, y, z) = (location.x as f64, location.y as f64, location.z as f64);
    let mx = scaled_radius * reference.longitude.to_radians() + x;
    let my = scaled_radius
        * (PI / 4.0 + reference.latitude.to_radians() / 2.0)
            .tan()
            .ln()
        - y;
    let longitude = (mx / scaled_radius).to_degrees();
    let latitude = (2.0 * (my / scaled_radius).exp().atan()).to_degrees() - 90.0;
    (latitude, longitude, reference.altitude + z)
}

/// The conversion of CARLA 0.9.16 (`GeoLocation::Transform`, the client's
/// `map.transform_to_geolocation` and the 0.9.16 engine's V2X messages): a
/// spherical transverse Mercator projection (scale 0.9996, radius
/// 6 378 137 m) centred on the reference, with the location's x east and
/// its y taken as north (unlike the formula of [`to_geo`]). The altitude is
/// the reference's plus z (0.9.16 adds the reference's twice).
pub fn to_geo_0916(reference: &GeoReference, location: Vector3D) -> (f64, f64, f64) {
    const K0: f64 = 0.9996;
    let r = EARTH_RADIUS_EQUATOR_M;
    let d = f64::from(location.x) / (K0 * r);
    let e = f64::from(location.y) / (K0 * r) + reference.latitude.to_radians();
    let latitude = (e.sin() / d.cosh()).asin().to_degrees();
    let longitude = reference.longitude + d.sinh().atan2(e.cos()).to_degrees();
    (
        latitude,
        longitude,
        reference.altitude + f64::from(location.z),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1000 m of arc on the equator in degrees: 1000 / (6378137 · π/180)
    /// = 1000 / 111319.4908 = 0.0089831528.
    const KM_DEG: f64 = 0.008_983_152_8;

    fn at(x: f32, y: f32, z: f32) -> Vector3D {
        Vector3D { x, y, z }
    }

    fn geo(latitude: f64, longitude: f64, altitude: f64) -> GeoReference {
        GeoReference {
            latitude,
            longitude,
            altitude,
        }
    }

    #[test]
    fn reference_maps_to_itself() {
        let r = geo(49.0, 8.0, 10.0);
        let (lat, lon, alt) = to_geo(&r, at(0.0, 0.0, 0.0));
        assert!(
            (lat - 49.0).abs() < 1e-9 && (lon - 8.0).abs() < 1e-9,
            "{lat} {lon}"
        );
        assert_eq!(alt, 10.0);
        let (lat, lon, _) = to_geo(&GeoReference::default(), at(0.0, 0.0, 0.0));
        assert!(lat.abs() < 1e-12 && lon.abs() < 1e-12);
    }

    #[test]
    fn x_is_east_at_the_equator() {
        // 1000 m along x at (0, 0): Δlon = 1000 / (R · π/180) = 0.0089831528°.
        let (lat, lon, _) = to_geo(&GeoReference::default(), at(1000.0, 0.0, 0.0));
        assert!((lon - KM_DEG).abs() < 1e-9, "{lon}");
        assert!(lat.abs() < 1e-12);
        let (_, lon, _) = to_geo(&GeoReference::default(), at(-1000.0, 0.0, 0.0));
        assert!((lon + KM_DEG).abs() < 1e-9, "{lon}");
    }

    #[test]
    fn the_0916_projection_is_metric_near_the_reference_with_y_north() {
        let r = geo(49.0, 8.0, 10.0);
        let (lat, lon, alt) = to_geo_0916(&r, at(0.0, 0.0, 2.0));
        assert!((lat - 49.0).abs() < 1e-12 && (lon - 8.0).abs() < 1e-12 && alt == 12.0);
        // 100 m "north" (+y) and east: a degree is R·π/180 on the sphere.
        let (lat, lon, _) = to_geo_0916(&r, at(100.0, 100.0, 0.0));
        let north = (lat - 49.0) * EARTH_RADIUS_EQUATOR_M.to_radians() * 0.9996;
        let east =
            (lon - 8.0) * EARTH_RADIUS_EQUATOR_M.to_radians() * 0.9996 * 49f64.to_radians().cos();
        assert!((north - 100.0).abs() < 0.05, "{north}");
        assert!((east - 100.0).abs() < 0.05, "{east}");
    }

    #[test]
    fn y_points_south() {
        // +1000 m along y (south): my = −1000, latitude = deg(2·atan(e^(−k)))
        // − 90 with k = 1000/R = 1.5679e-4; that is −k + O(k³) rad =
        // −0.0089831528° (the k³/6 term is 6e-13 rad).
        let (lat, lon, _) = to_geo(&GeoReference::default(), at(0.0, 1000.0, 0.0));
        assert!((lat + KM_DEG).abs() < 1e-9, "{lat}");
        assert!(lon.abs() < 1e-12);
        let (lat, _, _) = to_geo(&GeoReference::default(), at(0.0, -1000.0, 0.0));
        assert!((lat - KM_DEG).abs() < 1e-9, "{lat}");
    }

    #[test]
    fn mercator_scale_at_sixty_degrees() {
        let r = geo(60.0, 10.0, 100.0);
        // East: R' = R · cos 60° = R/2, so 1000 m is 2 · 0.0089831528 =
        // 0.0179663057° of longitude; latitude and altitude unchanged + z.
        let (lat, lon, alt) = to_geo(&r, at(1000.0, 0.0, 5.5));
        assert!((lon - (10.0 + 2.0 * KM_DEG)).abs() < 1e-9, "{lon}");
        assert!((lat - 60.0).abs() < 1e-9, "{lat}");
        assert_eq!(alt, 105.5);
        // North (−y): d(lat)/d(my) = cos φ / R' = 1/R at the reference, so
        // 1000 m ≈ 0.0089831528°; the second-order term is about
        // k²·tan φ/2 ≈ 2e-8 rad ≈ 1.2e-6°, hence the looser tolerance.
        let (lat, lon, _) = to_geo(&r, at(0.0, -1000.0, 0.0));
        assert!((lat - (60.0 + KM_DEG)).abs() < 5e-6, "{lat}");
        assert!((lon - 10.0).abs() < 1e-9);
    }

    #[test]
    fn validation() {
        assert_eq!(GeoReference::default().validate(), Ok(()));
        let pole = geo(90.0, 0.0, 0.0);
        assert_eq!(pole.validate().unwrap_err().field, "latitude");
        assert!(pole.validate().unwrap_err().to_string().contains("between"));
        let bad = geo(0.0, f64::NAN, 0.0);
        assert_eq!(bad.validate().unwrap_err().field, "longitude");
        let bad = geo(0.0, 0.0, f64::INFINITY);
        assert_eq!(bad.validate().unwrap_err().field, "altitude");
    }
}
