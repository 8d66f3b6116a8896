//! The subset of CarlaSettings.ini the demo host needs: the mode and the
//! sensors (issue 5 replaces this with the library's full parser).
//! Sections and keys are matched case-insensitively, as Unreal does.

use std::collections::HashMap;

/// What one requested sensor is.
#[derive(Clone, Debug, PartialEq)]
pub enum SensorKind {
    /// `post` is the 0.8 image type: 0 None, 1 SceneFinal, 2 Depth, 3 SemSeg.
    Camera {
        post: u32,
        width: u32,
        height: u32,
        fov: f32,
    },
    Lidar {
        channels: u32,
        range: f32,
        points_per_second: u32,
        rotation_frequency: f32,
        upper_fov: f32,
        lower_fov: f32,
    },
}

/// One sensor of the settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorSettings {
    pub name: String,
    pub kind: SensorKind,
}

/// The parsed settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub synchronous: bool,
    pub send_non_player_agents: bool,
    pub sensors: Vec<SensorSettings>,
}

struct Ini(HashMap<(String, String), String>);

impl Ini {
    fn parse(text: &str) -> Ini {
        let mut map = HashMap::new();
        let mut section = String::new();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = name.trim().to_ascii_lowercase();
            } else if let Some((k, v)) = line.split_once('=') {
                map.insert(
                    (section.clone(), k.trim().to_ascii_lowercase()),
                    v.trim().to_owned(),
                );
            }
        }
        Ini(map)
    }

    fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.0
            .get(&(section.to_ascii_lowercase(), key.to_ascii_lowercase()))
            .map(String::as_str)
    }

    /// A sensor key: `[CARLA/Sensor]`, then each parent section of the
    /// name (`A/B` reads `.../A`, then `.../A/B`); the deepest wins.
    fn sensor_key(&self, name: &str, key: &str) -> Option<&str> {
        let mut section = String::from("CARLA/Sensor");
        let mut found = self.get(&section, key);
        for part in name.split('/') {
            section.push('/');
            section.push_str(part);
            found = self.get(&section, key).or(found);
        }
        found
    }
}

fn boolean(v: Option<&str>, default: bool) -> bool {
    match v.map(|s| s.to_ascii_lowercase()) {
        Some(s) if ["true", "yes", "on"].contains(&s.as_str()) => true,
        Some(s) if ["false", "no", "off"].contains(&s.as_str()) => false,
        Some(s) => s.parse::<i64>().map(|n| n != 0).unwrap_or(default),
        None => default,
    }
}

fn number<T: std::str::FromStr>(v: Option<&str>, default: T) -> T {
    v.and_then(|s| s.parse().ok()).unwrap_or(default)
}

impl Settings {
    /// Parses the client's text; `previous_sync` is kept when the key is absent.
    pub fn parse(text: &str, previous_sync: bool) -> Settings {
        let ini = Ini::parse(text);
        let sync = boolean(ini.get("CARLA/Server", "SynchronousMode"), previous_sync);
        let agents = boolean(ini.get("CARLA/Server", "SendNonPlayerAgentsInfo"), false);
        let names = ini.get("CARLA/Sensor", "Sensors").unwrap_or("");
        let sensors = names
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .filter_map(|name| {
                let kind = match ini
                    .sensor_key(name, "SensorType")
                    .map(|s| s.to_ascii_uppercase())
                {
                    Some(t) if t == "CAMERA" => {
                        let deepest = format!("CARLA/Sensor/{name}");
                        let post = match ini
                            .get(&deepest, "PostProcessing")
                            .map(|s| s.to_ascii_lowercase())
                        {
                            None => 1,
                            Some(p) => match p.as_str() {
                                "none" => 0,
                                "scenefinal" => 1,
                                "depth" => 2,
                                "semanticsegmentation" => 3,
                                _ => 5,
                            },
                        };
                        let size = |k, d| match number(ini.sensor_key(name, k), d) {
                            0 => d,
                            n => n,
                        };
                        SensorKind::Camera {
                            post,
                            width: size("ImageSizeX", 720),
                            height: size("ImageSizeY", 512),
                            fov: number(ini.sensor_key(name, "FOV"), 90.0),
                        }
                    }
                    Some(t) if t == "LIDAR_RAY_CAST" => SensorKind::Lidar {
                        channels: number(ini.sensor_key(name, "Channels"), 32u32).max(1),
                        range: number(ini.sensor_key(name, "Range"), 50.0),
                        points_per_second: match number(
                            ini.sensor_key(name, "PointsPerSecond"),
                            56000u32,
                        ) {
                            0 => 56000,
                            n => n,
                        },
                        rotation_frequency: number(ini.sensor_key(name, "RotationFrequency"), 10.0),
                        upper_fov: number(ini.sensor_key(name, "UpperFovLimit"), 10.0),
                        lower_fov: number(ini.sensor_key(name, "LowerFovLimit"), -30.0),
                    },
                    other => {
                        carla_server::log_error!(
                            "sensor {name}: unsupported SensorType {other:?}; skipped"
                        );
                        return None;
                    }
                };
                Some(SensorSettings {
                    name: name.to_owned(),
                    kind,
                })
            })
            .collect();
        Settings {
            synchronous: sync,
            send_non_player_agents: agents,
            sensors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_python_clients_sensors_with_inheritance() {
        let text = "[CARLA/Server]\nSynchronousMode=False\n[CARLA/Sensor]\nSensors=CameraRGB,Cams/Depth,Lidar32,Bad\n\
            ImageSizeX=100\n[CARLA/Sensor/CameraRGB]\nSensorType=CAMERA\nImageSizeY=50\n\
            [CARLA/Sensor/Cams]\nSensorType=CAMERA\nPostProcessing=Depth\n[CARLA/Sensor/Cams/Depth]\nFOV=70\n\
            [CARLA/Sensor/Lidar32]\nSensorType=LIDAR_RAY_CAST\nchannels=16\nPointsPerSecond=1000\n\
            [CARLA/Sensor/Bad]\nSensorType=RADAR\n";
        let s = Settings::parse(text, true);
        assert!(!s.synchronous);
        assert_eq!(s.sensors.len(), 3);
        assert_eq!(
            s.sensors[0].kind,
            SensorKind::Camera {
                post: 1,
                width: 100,
                height: 50,
                fov: 90.0
            }
        );
        // PostProcessing is not inherited: only the deepest section counts.
        assert_eq!(
            s.sensors[1].kind,
            SensorKind::Camera {
                post: 1,
                width: 100,
                height: 512,
                fov: 70.0
            }
        );
        match s.sensors[2].kind {
            SensorKind::Lidar {
                channels,
                points_per_second,
                ..
            } => assert_eq!((channels, points_per_second), (16, 1000)),
            ref k => panic!("{k:?}"),
        }
        assert!(
            Settings::parse("", true).synchronous,
            "absent key keeps the previous mode"
        );
    }
}
