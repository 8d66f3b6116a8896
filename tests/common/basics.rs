//! The helpers every test crate of the workspace shares: free ports, a 0.8
//! settings file, the Python with `carla==0.9.16`. The library's tests
//! reach them through `common`; the demo world's include this file by path.
#![allow(dead_code)]

use std::net::TcpListener;
use std::sync::atomic::{AtomicU16, Ordering};

static NEXT: AtomicU16 = AtomicU16::new(0);

/// A world port P such that P to P+3 were all free a moment ago, below
/// the system's ephemeral range. Each call returns a different P (tests in
/// one binary run in parallel).
///
/// Below the ephemeral range because a host binds P only later (SimGame is
/// compiled first, for up to half a minute), and meanwhile every outgoing
/// connection of the tests running beside it takes an ephemeral port: one
/// landing on P..P+3 made the host fail to listen (a flake in the Unreal
/// glue tests, about one fresh CI run in five).
pub(crate) fn free_port_base() -> u16 {
    let seed = (std::process::id() % 500) as u16;
    let first_ephemeral = first_ephemeral_port();
    let span = first_ephemeral.saturating_sub(20000 + 4).max(100);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = 20000 + ((u32::from(seed) * 37 + u32::from(n) * 4) % u32::from(span)) as u16;
        let free = (0..4).all(|i| TcpListener::bind(("0.0.0.0", base + i)).is_ok());
        if free {
            return base;
        }
    }
}

/// The lowest port the system hands out for outgoing connections (Linux:
/// /proc/sys/net/ipv4/ip_local_port_range, usually 32768; Windows 49152).
fn first_ephemeral_port() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .filter(|&low: &u16| low > 21000)
        .unwrap_or(32768)
}

/// A settings file like the Python client writes, with the given sensors
/// section lines appended.
pub(crate) fn ini(sync: bool, sensors: &[&str], sections: &str) -> String {
    format!(
        "[CARLA/Server]\nSynchronousMode={}\nSendNonPlayerAgentsInfo=False\n\n\
         [CARLA/LevelSettings]\nNumberOfVehicles=20\nNumberOfPedestrians=30\nWeatherId=1\n\n\
         [CARLA/Sensor]\nSensors={}\n\n{}",
        if sync { "True" } else { "False" },
        sensors.join(","),
        sections
    )
}

/// The Python with `carla==0.9.16`: $CARLA_0916_PYTHON, else the venv
/// scripts/test.sh makes under the workspace's `target/` (found from the
/// testing crate's directory: the root or `carla-host/`).
/// The Python with the unmodified `carla` package of `release` (0.9.16:
/// [`carla_python`]): `$CARLA_PYTHON_0_9_N`, or the venv scripts/test.sh
/// makes, target/venv-carla-0.9.N (Python 3.8: the wheels before 0.9.16
/// exist for it only).
pub(crate) fn carla_python_of(release: carla_server::Release) -> std::path::PathBuf {
    if release == carla_server::Release::V0_9_16 {
        return carla_python();
    }
    let var = format!("CARLA_PYTHON_{}", release.as_str().replace('.', "_"));
    if let Some(p) = std::env::var_os(&var) {
        return p.into();
    }
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let tail = format!("target/venv-carla-{release}/bin/python");
    let venv = crate_dir
        .ancestors()
        .map(|d| d.join(&tail))
        .find(|p| p.exists())
        .unwrap_or_else(|| crate_dir.join(&tail));
    assert!(
        venv.exists(),
        "{} is missing: run scripts/test.sh (it installs carla=={release} from PyPI into a \
         Python 3.8 venv), or set {var} to a Python that has it",
        venv.display()
    );
    venv
}

pub(crate) fn carla_python() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("CARLA_0916_PYTHON") {
        return p.into();
    }
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = crate_dir
        .ancestors()
        .map(|d| d.join("target/venv-carla-0.9.16/bin/python"))
        .find(|p| p.exists())
        .unwrap_or_else(|| crate_dir.join("target/venv-carla-0.9.16/bin/python"));
    assert!(
        venv.exists(),
        "{} is missing: run scripts/test.sh (it installs carla==0.9.16 from PyPI), \
         or set CARLA_0916_PYTHON to a Python that has it",
        venv.display()
    );
    venv
}
