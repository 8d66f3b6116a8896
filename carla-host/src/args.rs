//! `carla-host`'s options, parsed with `clap` (derive): `--help` is
//! generated from these doc comments, and every option can also come from
//! a `CARLA_HOST_*` environment variable (what CI jobs and containers
//! set); a flag on the command line wins over its variable.

use crate::world::WorldConfig;
use carla_server::legacy::settings::Budget;
use carla_server::ros2::Ros2Options;
use carla_server::rpc::ClientBudget;
use carla_server::Release;
use clap::Parser;
use std::net::IpAddr;
use std::path::PathBuf;

/// A headless CARLA server: a world built from OpenDRIVE maps that
/// unmodified CARLA 0.8.4 and 0.9.12-0.9.16 clients drive.
#[derive(Parser, Debug)]
#[command(name = "carla-host", version, about, long_about = None)]
pub(crate) struct Args {
    /// World port P; 0.8 clients' stream and control ports are P+1 and P+2.
    /// 0: free ports for everything (P, P+1, P+2, streams, older releases),
    /// named on the JSON line printed when ready.
    #[arg(short, long, env = "CARLA_HOST_PORT", default_value_t = 2000)]
    pub port: u16,
    /// Also write the JSON ports line to this file (whole, when ready).
    #[arg(long, env = "CARLA_HOST_PORTS_FILE")]
    pub ports_file: Option<PathBuf>,
    /// Stop when standard input closes: a parent holding the other end of a
    /// pipe takes the server with it when it exits, however it dies.
    #[arg(long, env = "CARLA_HOST_EXIT_WITH_STDIN")]
    pub exit_with_stdin: bool,
    /// The 0.9 streaming port (default P+3; 0: any free port).
    #[arg(long, env = "CARLA_HOST_STREAM_PORT")]
    pub stream_port: Option<u16>,
    /// A port of their own for 0.9.16 clients (default: P, shared with 0.8).
    #[arg(long, env = "CARLA_HOST_RPC_PORT")]
    pub rpc_port: Option<u16>,
    /// The older 0.9 client releases served besides 0.9.16: `all`, or a
    /// list such as 0.9.12,0.9.14.
    #[arg(long, env = "CARLA_HOST_RELEASES", default_value = "all", value_parser = parse_releases)]
    pub releases: Releases,
    /// Release 0.9.N's RPC port is this + N (default P: 2012 ... 2015; 0:
    /// free ports, named in the banner).
    #[arg(long, env = "CARLA_HOST_RELEASE_PORTS")]
    pub release_ports: Option<u16>,
    /// Bind address.
    #[arg(long, env = "CARLA_HOST_HOST", default_value = "0.0.0.0")]
    pub host: IpAddr,
    /// Server time-out, ms.
    #[arg(long, env = "CARLA_HOST_TIMEOUT", default_value_t = 10_000)]
    pub timeout: u32,
    /// Ticks per second in asynchronous mode.
    #[arg(long, env = "CARLA_HOST_FPS", default_value_t = 30.0)]
    pub fps: f32,
    /// A folder of OpenDRIVE maps: each *.xodr is a map named by its file
    /// stem (Town01, ...), listed by get_available_maps and loaded by
    /// load_world.
    #[arg(long, env = "CARLA_HOST_MAPS")]
    pub maps: Option<PathBuf>,
    /// The map to start on (default: the built-in town).
    #[arg(long, env = "CARLA_HOST_MAP")]
    pub map: Option<String>,
    /// Seeds the town's own traffic (the cars and walkers every 0.9 world
    /// starts with); 0.8 episodes take theirs from the client's settings.
    #[arg(long, env = "CARLA_HOST_SEED")]
    pub seed: Option<u64>,
    /// Vehicles of the world's own traffic in every 0.9 world (CARLA's
    /// worlds have none: 0 gives an empty town, as CARLA's).
    #[arg(long, env = "CARLA_HOST_TOWN_VEHICLES", default_value_t = 5)]
    pub town_vehicles: u32,
    /// The world's own walkers in every 0.9 world.
    #[arg(long, env = "CARLA_HOST_TOWN_WALKERS", default_value_t = 15)]
    pub town_walkers: u32,
    /// The cameras' picture quality, as CARLA's `-quality-level`: `epic`
    /// (the sun casts shadows) or `low` (no shadows: the RGB camera about
    /// 1.6x faster).
    #[arg(long, env = "CARLA_HOST_QUALITY_LEVEL", value_enum, ignore_case = true, default_value_t = Quality::Epic)]
    pub quality_level: Quality,
    /// Publish the sensors clients enable for ROS on DDS, as CARLA's flag
    /// (domain $ROS_DOMAIN_ID, else 0).
    #[arg(long, env = "CARLA_HOST_ROS2")]
    pub ros2: bool,
    /// Publish on ROS 2's DDS domain N.
    #[arg(long, env = "CARLA_HOST_ROS2_DOMAIN")]
    pub ros2_domain: Option<u16>,
    /// ROS 2: the largest UDP datagram to a reader on another machine, in
    /// bytes (up to 65000; the kernel cuts it into IP fragments). 0 keeps
    /// datagrams within the network's MTU: safe on lossy links, slow for
    /// images. 65000 on a clean LAN (docs/ros2.md, "Across machines").
    #[arg(long, env = "CARLA_HOST_ROS2_DATAGRAM", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=i64::from(Ros2Options::MAX_DATAGRAM)))]
    pub ros2_datagram: u32,
    /// The folder of start_recorder's relative names (created when needed).
    #[arg(long, env = "CARLA_HOST_RECORDINGS", default_value = "recordings")]
    pub recordings: PathBuf,
    /// One 0.8 episode's settings: most sensors.
    #[arg(long, env = "CARLA_HOST_MAX_SENSORS", default_value_t = 64)]
    pub max_sensors: u64,
    /// One 0.8 episode's settings: most bytes all sensors make per frame, MiB.
    #[arg(long, env = "CARLA_HOST_MAX_FRAME_MB", default_value_t = 128)]
    pub max_frame_mb: u64,
    /// One 0.8 episode's settings: longest settings text, KiB.
    #[arg(long, env = "CARLA_HOST_MAX_INI_KB", default_value_t = 1024)]
    pub max_ini_kb: u64,
    /// One 0.8 episode's settings: longest sensor name, bytes.
    #[arg(long, env = "CARLA_HOST_MAX_NAME_BYTES", default_value_t = 256)]
    pub max_name_bytes: u64,
    /// One 0.8 episode's settings: deepest sensor name (A/B/C...).
    #[arg(long, env = "CARLA_HOST_MAX_NAME_DEPTH", default_value_t = 8)]
    pub max_name_depth: u64,
    /// Each 0.9 client's share: most sensors.
    #[arg(long, env = "CARLA_HOST_MAX_CLIENT_SENSORS", default_value_t = 64)]
    pub max_client_sensors: usize,
    /// Each 0.9 client's share: most actors.
    #[arg(long, env = "CARLA_HOST_MAX_CLIENT_ACTORS", default_value_t = 2_500)]
    pub max_client_actors: usize,
    /// Each 0.9 client's share: most requests waiting for the world.
    #[arg(long, env = "CARLA_HOST_MAX_CLIENT_REQUESTS", default_value_t = 1_024)]
    pub max_client_requests: usize,
    /// Each 0.9 client's share: most sensor data per tick, MiB.
    #[arg(long, env = "CARLA_HOST_MAX_CLIENT_FRAME_MB", default_value_t = 128)]
    pub max_client_frame_mb: u64,
    /// Most connections from one address.
    #[arg(
        long,
        env = "CARLA_HOST_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 32
    )]
    pub max_connections_per_address: usize,
}

/// The releases served besides 0.9.16 (which always is).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Releases(pub Vec<Release>);

/// `all` or a comma-separated list of releases.
fn parse_releases(list: &str) -> Result<Releases, String> {
    if list.trim() == "all" {
        return Ok(Releases(Release::ALL.to_vec()));
    }
    let mut releases = vec![Release::V0_9_16];
    for name in list.split(',').filter(|n| !n.trim().is_empty()) {
        let r: Release = name.trim().parse()?;
        if !releases.contains(&r) {
            releases.push(r);
        }
    }
    releases.sort();
    Ok(Releases(releases))
}

/// `--quality-level`'s values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quality {
    Low,
    Epic,
}

impl Args {
    /// The traffic of every 0.9 world: the 0.8.4 server's defaults,
    /// seeded by `--seed` if given.
    pub(crate) fn world_config(&self) -> WorldConfig {
        let default = WorldConfig {
            vehicles: self.town_vehicles.min(crate::world::MAX_VEHICLES),
            pedestrians: self.town_walkers.min(crate::world::MAX_PEDESTRIANS),
            ..WorldConfig::default()
        };
        match self.seed {
            Some(seed) => WorldConfig {
                seed_vehicles: seed,
                seed_pedestrians: seed.rotate_left(32) ^ 0x5EED,
                ..default
            },
            None => default,
        }
    }

    /// The budget of one 0.8 episode's settings.
    pub(crate) fn budget(&self) -> Budget {
        Budget {
            max_sensors: self.max_sensors,
            max_frame_bytes: self.max_frame_mb.saturating_mul(1 << 20),
            max_ini_bytes: self.max_ini_kb.saturating_mul(1 << 10),
            max_name_bytes: self.max_name_bytes,
            max_name_depth: self.max_name_depth,
            ..Budget::default()
        }
    }

    /// Each 0.9 client's share.
    pub(crate) fn client_budget(&self) -> ClientBudget {
        ClientBudget {
            max_sensors: self.max_client_sensors,
            max_actors: self.max_client_actors,
            max_requests: self.max_client_requests,
            max_frame_bytes: self.max_client_frame_mb.saturating_mul(1 << 20),
            max_connections_per_address: self.max_connections_per_address,
        }
    }

    /// The DDS domain to publish on, if any: `--ros2-domain`, else with
    /// `--ros2` `$ROS_DOMAIN_ID` (0 when unset).
    pub(crate) fn ros2_domain(&self) -> Result<Option<u16>, String> {
        if let Some(d) = self.ros2_domain {
            return Ok(Some(d));
        }
        if !self.ros2 {
            return Ok(None);
        }
        let domain = std::env::var("ROS_DOMAIN_ID").unwrap_or_else(|_| "0".into());
        domain
            .trim()
            .parse()
            .map(Some)
            .map_err(|e| format!("ROS_DOMAIN_ID {domain:?}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_defaults_parse_as_documented() {
        let a = Args::try_parse_from(["carla-host"]).unwrap();
        assert_eq!((a.port, a.timeout, a.fps), (2000, 10_000, 30.0));
        assert_eq!(a.budget(), Budget::default());
        assert_eq!(a.client_budget(), ClientBudget::default());
        assert_eq!(a.releases, Releases(Release::ALL.to_vec()));
        let a = Args::try_parse_from([
            "carla-host",
            "-p",
            "3000",
            "--releases",
            "0.9.14",
            "--maps",
            "/tmp/maps",
            "--map",
            "Town01",
        ])
        .unwrap();
        assert_eq!(a.port, 3000);
        assert_eq!(
            a.releases,
            Releases(vec![Release::V0_9_14, Release::V0_9_16])
        );
        assert_eq!(a.map.as_deref(), Some("Town01"));
        assert!(Args::try_parse_from(["carla-host", "--port", "70000"]).is_err());
        assert!(Args::try_parse_from(["carla-host", "--releases", "0.8"]).is_err());
        assert!(Args::try_parse_from(["carla-host", "--nonsense"]).is_err());
        assert_eq!(a.world_config(), WorldConfig::default());
        let seeded = Args::try_parse_from(["carla-host", "--seed", "7"]).unwrap();
        let (one, other) = (seeded.world_config(), a.world_config());
        assert_eq!(one.seed_vehicles, 7);
        assert_ne!(one.seed_pedestrians, other.seed_pedestrians);
        assert_eq!(
            (one.vehicles, one.pedestrians),
            (other.vehicles, other.pedestrians)
        );
    }
}
