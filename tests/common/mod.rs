//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub(crate) mod capi_host;
#[cfg(any(target_os = "linux", windows))]
pub(crate) mod chost;
#[cfg(any(target_os = "linux", windows))]
pub(crate) mod legacy_host;
pub(crate) mod rpc_host;

use std::net::TcpListener;
use std::sync::atomic::{AtomicU16, Ordering};

static NEXT: AtomicU16 = AtomicU16::new(0);

/// A world port P such that P, P+1 and P+2 were all free a moment ago.
/// Each call returns a different P (tests in one binary run in parallel).
pub(crate) fn free_port_base() -> u16 {
    let seed = (std::process::id() % 500) as u16;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = 20000 + ((seed * 37 + n * 3) % 40000);
        let free = (0..3).all(|i| TcpListener::bind(("0.0.0.0", base + i)).is_ok());
        if free {
            return base;
        }
    }
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
