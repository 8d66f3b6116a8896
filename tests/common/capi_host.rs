//! A C-API host with a 0.9 streaming port, shared by the allocation test
//! and the pipeline benchmark (which includes this file by path).
#![allow(dead_code)]

use carla_server::ffi::*;
use std::ffi::CString;
use std::thread;
use std::time::{Duration, Instant};

/// A server with its streaming port on an ephemeral port.
pub(crate) struct Host {
    pub server: CarlaServerPtr,
    pub port: u32,
}

impl Host {
    pub(crate) fn new() -> Host {
        let server = carla_make_server();
        let mut port = 0;
        assert_eq!(
            // SAFETY: live server, writable port.
            unsafe { carla_server_listen_streaming(server, 0, &mut port) },
            0
        );
        Host { server, port }
    }

    /// Creates a sensor; returns its id (= its stream id).
    pub(crate) fn sensor(&self, blueprint: &str, attrs: &[(&str, &str)]) -> u32 {
        let bp = CString::new(blueprint).unwrap();
        let keys: Vec<CString> = attrs.iter().map(|a| CString::new(a.0).unwrap()).collect();
        let vals: Vec<CString> = attrs.iter().map(|a| CString::new(a.1).unwrap()).collect();
        let kp: Vec<_> = keys.iter().map(|k| k.as_ptr()).collect();
        let vp: Vec<_> = vals.iter().map(|v| v.as_ptr()).collect();
        let mut id = 0;
        // SAFETY: every pointer is valid for the call; error may be NULL.
        let rc = unsafe {
            carla_sensor_create(
                self.server,
                bp.as_ptr(),
                kp.as_ptr(),
                vp.as_ptr(),
                attrs.len() as u32,
                &mut id,
                std::ptr::null_mut(),
                0,
            )
        };
        assert_eq!(rc, 0, "create {blueprint}");
        id
    }

    /// Waits until `n` subscribers are on `sensor`.
    pub(crate) fn wait_subscribers(&self, sensor: u32, n: u32) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mut count = 0;
            assert_eq!(
                // SAFETY: live server, writable count.
                unsafe { carla_sensor_subscriber_count(self.server, sensor, &mut count) },
                0
            );
            if count >= n {
                return;
            }
            assert!(Instant::now() < deadline, "subscribers did not arrive");
            thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        // SAFETY: the server is live and not used afterwards.
        unsafe { carla_free_server(self.server) };
    }
}
