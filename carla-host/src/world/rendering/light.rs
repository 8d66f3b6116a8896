//! The light a camera's picture is lit by, worked out once per image from
//! the world's `carla.WeatherParameters`: where the sun is and its colour,
//! the sky's light (ambient) and colours, the distance fog, and how wet
//! the ground is. [`super::shade`] applies it.
//!
//! - **Sun**: from `sun_azimuth_angle` (degrees about the vertical, from
//!   the world's +x towards +y) and `sun_altitude_angle` (degrees above the
//!   horizon). It yellows and then reddens as it sets, dims through the
//!   last 10° above the horizon, and `cloudiness` takes up to 85% of it.
//! - **Sky light**: a blue-white ambient, greyer and a little weaker under
//!   clouds and rain, fading into a dim blue moonlight from 5° above the
//!   horizon to 10° below it (night).
//! - **Sky colours**: the zenith and horizon of a clear day, greyed by
//!   clouds and rain, warmed at sunset, dark blue at night; the sun's disc
//!   in it (1.5° across) while it is up and the cover thin.
//! - **Fog**: past `fog_distance` metres, a thickness of `fog_density`
//!   (0-100: at 100 half the light of a surface 10 m into the fog is
//!   lost), thinning with height by `fog_falloff`; beside it a faint
//!   aerial haze (half at 700 m) in every weather.
//! - **Wetness**: `max(wetness, precipitation, 0.8 · precipitation_deposits)`
//!   (CARLA's presets wet the ground with the last) darkens roads by up to
//!   45%, sidewalks and terrain by up to 30%; `precipitation_deposits` (puddles) adds
//!   patches of standing water on roads that mirror the sky.

use crate::world::math::v3;
use carla_server::rpc::Weather;
use carla_server::types::Vector3D;

/// The fields of [`Weather`], by index.
mod field {
    pub(super) const CLOUDINESS: usize = 0;
    pub(super) const PRECIPITATION: usize = 1;
    pub(super) const DEPOSITS: usize = 2;
    pub(super) const AZIMUTH: usize = 4;
    pub(super) const ALTITUDE: usize = 5;
    pub(super) const FOG_DENSITY: usize = 6;
    pub(super) const FOG_DISTANCE: usize = 7;
    pub(super) const FOG_FALLOFF: usize = 8;
    pub(super) const WETNESS: usize = 9;
}

/// A clear day's zenith and horizon, RGB.
const CLEAR_ZENITH: [f32; 3] = [95.0, 140.0, 205.0];
const CLEAR_HORIZON: [f32; 3] = [205.0, 215.0, 225.0];
/// An overcast sky, RGB.
const OVERCAST: [f32; 3] = [150.0, 155.0, 162.0];
/// The night sky's zenith and horizon, RGB.
const NIGHT_ZENITH: [f32; 3] = [4.0, 6.0, 14.0];
const NIGHT_HORIZON: [f32; 3] = [14.0, 18.0, 30.0];
/// A sunset's horizon, RGB.
const SUNSET_HORIZON: [f32; 3] = [235.0, 150.0, 95.0];

/// The cosine of the sun disc's angular radius (0.75°).
const DISC_COS: f32 = 0.999_914_3;

/// How a picture is lit (see the module's text).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lighting {
    /// Unit vector towards the sun (its light is zero when it is down).
    pub sun: Vector3D,
    /// The sun's light on a surface facing it, RGB factors.
    pub sun_rgb: [f32; 3],
    /// The sky's light on a surface facing up, RGB factors (a wall gets
    /// 84% of it).
    pub ambient: [f32; 3],
    /// The sky's colours overhead and at the horizon, RGB levels; the fog
    /// and haze take the horizon's.
    pub zenith: [f32; 3],
    pub horizon: [f32; 3],
    /// Fog: where it starts (m), its thickness (per m) and its thinning
    /// with height (per m).
    pub fog_start: f32,
    pub fog_per_m: f32,
    pub fog_falloff: f32,
    /// The sun's disc in the sky, RGB levels, where it shows (up and not
    /// hidden by clouds).
    pub disc: Option<[f32; 3]>,
    /// How bright the street lamps are: 0 by day, 1 at night.
    pub night: f32,
    /// 0 (dry) to 1 (soaked).
    pub wet: f32,
    /// The share of a road covered by puddles, 0 to about 0.6.
    pub puddles: f32,
}

impl Default for Lighting {
    fn default() -> Lighting {
        Lighting::of(&carla_server::rpc::DEFAULT_WEATHER)
    }
}

/// `x` made safe: finite and within `lo..=hi`, else `default`.
fn clean(x: f32, default: f32, lo: f32, hi: f32) -> f32 {
    if x.is_finite() {
        x.clamp(lo, hi)
    } else {
        default
    }
}

/// 0 below `a`, 1 above `b`, smooth between.
fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    std::array::from_fn(|i| a[i] + (b[i] - a[i]) * t)
}

impl Lighting {
    /// The light of weather `w` (any values: non-finite ones read as
    /// ClearNoon's, the rest clamped to CARLA's ranges).
    pub(crate) fn of(w: &Weather) -> Lighting {
        let d = &carla_server::rpc::DEFAULT_WEATHER;
        let get = |i: usize, lo: f32, hi: f32| clean(w[i], d[i], lo, hi);
        let clouds = get(field::CLOUDINESS, 0.0, 100.0) / 100.0;
        let rain = get(field::PRECIPITATION, 0.0, 100.0) / 100.0;
        let deposits = get(field::DEPOSITS, 0.0, 100.0) / 100.0;
        let wetness = get(field::WETNESS, 0.0, 100.0) / 100.0;
        let azimuth = get(field::AZIMUTH, -1e6, 1e6).to_radians();
        let altitude = get(field::ALTITUDE, -90.0, 90.0);
        let (sin_alt, cos_alt) = altitude.to_radians().sin_cos();
        let sun = v3(cos_alt * azimuth.cos(), cos_alt * azimuth.sin(), sin_alt);
        // The sun: yellower from 25° down, red at the horizon, gone below
        // it; clouds and rain hide most of it.
        let up = smoothstep(0.0, 10.0, altitude);
        let warm = 1.0 - smoothstep(2.0, 25.0, altitude);
        let tint = [1.0, 1.0 - 0.3 * warm, 1.0 - 0.6 * warm];
        let cover = (clouds + 0.5 * rain).min(1.0);
        let strength = 0.62 * up * (1.0 - 0.85 * cover);
        let sun_rgb = tint.map(|t| t * strength);
        // The sky's light: day to night from 5° above the horizon to 10°
        // below; greyer and weaker under cover.
        let day = smoothstep(-10.0, 5.0, altitude);
        let sky_day = mix([0.47, 0.5, 0.55], [0.44, 0.44, 0.45], cover);
        let sky_day = sky_day.map(|c| c * (1.0 - 0.2 * cover));
        let ambient = mix([0.035, 0.045, 0.08], sky_day, day);
        // The sky's colours.
        let zenith_day = mix(CLEAR_ZENITH, OVERCAST.map(|c| c * 0.85), cover);
        let horizon_day = mix(
            mix(CLEAR_HORIZON, SUNSET_HORIZON, warm * up * (1.0 - cover)),
            OVERCAST,
            cover,
        );
        let dim = 1.0 - 0.3 * rain;
        let zenith = mix(NIGHT_ZENITH, zenith_day.map(|c| c * dim), day);
        let horizon = mix(NIGHT_HORIZON, horizon_day.map(|c| c * dim), day);
        // The disc: white-yellow, reddening with the light; through thin
        // cloud only.
        let disc = (altitude > -1.0 && cover < 0.7).then(|| {
            let shine = 1.0 - cover / 0.7;
            std::array::from_fn(|i| {
                let sky = horizon_day[i];
                sky + (255.0 * tint[i] - sky) * shine
            })
        });
        Lighting {
            sun,
            sun_rgb,
            disc,
            ambient,
            zenith,
            horizon,
            fog_start: get(field::FOG_DISTANCE, 0.0, 1e6),
            // Density 100: e^(-10 m · k) = ½.
            fog_per_m: get(field::FOG_DENSITY, 0.0, 100.0) / 100.0
                * (std::f32::consts::LN_2 / 10.0),
            fog_falloff: get(field::FOG_FALLOFF, 0.0, 1e3) * 0.1,
            night: 1.0 - day,
            wet: wetness.max(rain).max(0.8 * deposits),
            puddles: 0.6 * deposits,
        }
    }

    /// The light on a surface of unit normal `n`, RGB factors.
    #[inline]
    pub(crate) fn on(&self, n: Vector3D) -> [f32; 3] {
        let facing = self.sun_cos(n).max(0.0);
        let sky = self.sky_on(n);
        std::array::from_fn(|i| sky[i] + self.sun_rgb[i] * facing)
    }

    /// The sun's disc seen along unit direction `d`, if `d` points at it
    /// (1° across and a half: larger than the real sun, so that it shows
    /// on a camera's pixels).
    #[inline]
    pub(crate) fn disc_along(&self, d: Vector3D) -> Option<[f32; 3]> {
        let c = self.disc?;
        (self.sun_cos(d) > DISC_COS).then_some(c)
    }

    /// The sky's light alone on a surface of unit normal `n` (in the
    /// sun's shadow), RGB factors.
    #[inline]
    pub(crate) fn sky_on(&self, n: Vector3D) -> [f32; 3] {
        let sky = 0.84 + 0.16 * n.z;
        self.ambient.map(|a| a * sky)
    }

    /// The cosine between unit normal `n` and the sun (≤ 0: facing away).
    #[inline]
    pub(crate) fn sun_cos(&self, n: Vector3D) -> f32 {
        n.x * self.sun.x + n.y * self.sun.y + n.z * self.sun.z
    }

    /// How much of the horizon's colour a surface `metres` away at height
    /// `z` (m) takes: the aerial haze and the fog together.
    #[inline]
    pub(crate) fn fog(&self, metres: f32, z: f32) -> f32 {
        // The haze lets 1/(1 + x) through; the fog e^(−x), as
        // (1 + x/8)^(−8) (no exp per pixel; within 0.02 of it).
        let haze = metres * (1.0 / 700.0);
        let thin = 1.0 / (1.0 + self.fog_falloff * z.max(0.0));
        let fog = (metres - self.fog_start).max(0.0) * self.fog_per_m * thin;
        let p2 = (1.0 + fog * 0.125) * (1.0 + fog * 0.125);
        let p4 = p2 * p2;
        1.0 - 1.0 / ((1.0 + haze) * p4 * p4)
    }

    /// Luminance-weighted brightness of a colour, for tests.
    #[cfg(test)]
    pub(crate) fn luma(c: [f32; 3]) -> f32 {
        0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::math::dot;
    use carla_server::rpc::DEFAULT_WEATHER;

    fn weather(changes: &[(usize, f32)]) -> Lighting {
        let mut w = DEFAULT_WEATHER;
        for &(i, v) in changes {
            w[i] = v;
        }
        Lighting::of(&w)
    }

    #[test]
    fn the_sun_stands_where_the_weather_puts_it_and_sets() {
        let noon = weather(&[(field::AZIMUTH, 90.0), (field::ALTITUDE, 30.0)]);
        assert!(
            (noon.sun.y - 30f32.to_radians().cos()).abs() < 1e-5,
            "{noon:?}"
        );
        assert!((noon.sun.z - 0.5).abs() < 1e-5);
        assert!(noon.sun.x.abs() < 1e-5);
        let up = v3(0.0, 0.0, 1.0);
        let lit = |l: &Lighting| Lighting::luma(l.on(up));
        let low = weather(&[(field::ALTITUDE, 8.0)]);
        let night = weather(&[(field::ALTITUDE, -90.0)]);
        assert!(
            lit(&noon) > lit(&low) && lit(&low) > lit(&night),
            "{noon:?} {low:?} {night:?}"
        );
        assert!(lit(&night) < 0.1 * lit(&noon));
        // Low sun: redder light and a warm horizon.
        assert!(low.sun_rgb[0] > 1.3 * low.sun_rgb[2], "{low:?}");
        assert!(low.horizon[0] > low.horizon[2], "{low:?}");
        // A face turned from the sun gets the sky's light only.
        let away = scale_neg(noon.sun);
        let sky: [f32; 3] = std::array::from_fn(|i| noon.ambient[i] * (0.84 + 0.16 * away.z));
        assert_eq!(noon.on(away), sky);
        assert!(dot(away, noon.sun) < 0.0);
    }

    #[test]
    fn the_sun_shows_in_the_sky_where_it_stands() {
        let noon = weather(&[]);
        let disc = noon.disc_along(noon.sun).expect("a disc at noon");
        assert!(disc.iter().all(|&c| c > 240.0), "{disc:?}");
        // 2° off it, the sky.
        let (s, c) = 2f32.to_radians().sin_cos();
        let off = v3(
            noon.sun.x * c - noon.sun.y * s,
            noon.sun.x * s + noon.sun.y * c,
            noon.sun.z,
        );
        assert_eq!(noon.disc_along(off), None);
        let night = weather(&[(field::ALTITUDE, -20.0)]);
        assert_eq!(night.disc_along(night.sun), None);
        let overcast = weather(&[(field::CLOUDINESS, 90.0)]);
        assert_eq!(overcast.disc_along(overcast.sun), None);
        let hazy = weather(&[(field::CLOUDINESS, 50.0)]).disc.unwrap();
        assert!(hazy[0] < disc[0] - 20.0, "{hazy:?}");
    }

    #[test]
    fn clouds_hide_the_sun_and_grey_the_sky() {
        let clear = weather(&[]);
        let cloudy = weather(&[(field::CLOUDINESS, 80.0)]);
        assert!(cloudy.sun_rgb[0] < 0.4 * clear.sun_rgb[0], "{cloudy:?}");
        // The clear sky is bluer than the overcast one.
        let blue = |c: [f32; 3]| c[2] - c[0];
        assert!(blue(clear.zenith) > blue(cloudy.zenith) + 30.0);
        let rain = weather(&[(field::PRECIPITATION, 60.0)]);
        assert!(rain.wet >= 0.6 && rain.sun_rgb[0] < clear.sun_rgb[0]);
    }

    #[test]
    fn fog_starts_at_its_distance_thickens_with_density_and_thins_up() {
        let foggy = weather(&[(field::FOG_DENSITY, 100.0), (field::FOG_DISTANCE, 20.0)]);
        let clear = weather(&[(field::FOG_DENSITY, 0.0)]);
        // Before the start only the haze.
        assert_eq!(foggy.fog(15.0, 0.0), clear.fog(15.0, 0.0));
        assert!(clear.fog(15.0, 0.0) < 0.03);
        // 10 m into it, about half the light (x/(1+x) for 1 − e^−x).
        let f = foggy.fog(30.0, 0.0);
        assert!((0.45..0.55).contains(&f), "{f}");
        assert!(foggy.fog(80.0, 0.0) > 0.8);
        // Higher up, thinner.
        let falling = weather(&[(field::FOG_DENSITY, 100.0), (field::FOG_FALLOFF, 5.0)]);
        assert!(falling.fog(50.0, 20.0) < falling.fog(50.0, 0.0));
    }

    #[test]
    fn any_weather_gives_finite_light() {
        let odd = Lighting::of(&[
            f32::NAN,
            f32::INFINITY,
            -1e30,
            0.0,
            1e30,
            f32::NAN,
            1e30,
            -5.0,
            f32::NAN,
            1e9,
            0.0,
            0.0,
            0.0,
            0.0,
        ]);
        let all = [
            odd.sun.x,
            odd.sun.y,
            odd.sun.z,
            odd.fog_start,
            odd.fog_per_m,
            odd.fog_falloff,
            odd.wet,
            odd.puddles,
        ];
        assert!(all.iter().all(|x| x.is_finite()), "{odd:?}");
        for c in [odd.sun_rgb, odd.ambient, odd.zenith, odd.horizon] {
            assert!(c.iter().all(|x| x.is_finite() && *x >= 0.0), "{odd:?}");
        }
        assert!(odd.fog(1e6, 1e6).is_finite());
        assert_eq!(Lighting::of(&[f32::NAN; 14]), Lighting::default());
    }

    fn scale_neg(v: Vector3D) -> Vector3D {
        v3(-v.x, -v.y, -v.z)
    }
}
