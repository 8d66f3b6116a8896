//! A `carla-host` process for a test: its ports, its log lines, its
//! memory; killed when dropped.

use crate::common;
use carla_server::client::Client;
use carla_server::types::Control;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The host process with its log lines.
pub(crate) struct HostProcess {
    pub(crate) child: Child,
    pub(crate) port: u16,
    /// The 0.9 streaming port (from the banner).
    pub(crate) stream_port: u16,
    /// The banner line (the ports of the older releases).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) banner: String,
    pub(crate) log: Arc<Mutex<Vec<String>>>,
}

impl HostProcess {
    pub(crate) fn start() -> HostProcess {
        Self::start_with_timeout(3000)
    }

    pub(crate) fn start_with_timeout(ms: u32) -> HostProcess {
        Self::start_with(ms, None, &[])
    }

    /// Starts `carla-host` with the server time-out `ms`, under a
    /// descriptor limit (`ulimit -n`) if given, with `extra` arguments.
    pub(crate) fn start_with(ms: u32, fd_limit: Option<u32>, extra: &[&str]) -> HostProcess {
        let port = common::free_port_base();
        let exe = env!("CARGO_BIN_EXE_carla-host");
        let mut command = match fd_limit {
            Some(n) => {
                let mut c = Command::new("sh");
                c.args(["-c", &format!("ulimit -n {n} && exec \"$0\" \"$@\""), exe]);
                c
            }
            None => Command::new(exe),
        };
        let mut child = command
            .args(["--port", &port.to_string(), "--host", "127.0.0.1"])
            .args(["--stream-port", "0", "--timeout", &ms.to_string()])
            .args(["--release-ports", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start carla-host");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let banner = lines.next().expect("a banner").expect("stdout");
        assert!(banner.contains("serving"), "{banner}");
        let stream_port = banner
            .split("0.9 streams on port ")
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no stream port in {banner}"));
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let stderr = child.stderr.take().unwrap();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        HostProcess {
            child,
            port,
            stream_port,
            banner,
            log,
        }
    }

    pub(crate) fn client(&self) -> Client {
        Client::connect("127.0.0.1", self.port, Duration::from_secs(10)).expect("connect")
    }

    /// `VmHWM` (peak resident) or `VmRSS`, in bytes.
    pub(crate) fn memory(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status
            .lines()
            .find(|l| l.starts_with(field))
            .expect("the field");
        let kib: u64 = line
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.parse().ok())
            .unwrap();
        kib * 1024
    }

    /// Open descriptors and threads of the process now.
    pub(crate) fn fds_and_threads(&self) -> (usize, usize) {
        let pid = self.child.id();
        let count = |dir: &str| {
            std::fs::read_dir(format!("/proc/{pid}/{dir}"))
                .unwrap()
                .count()
        };
        (count("fd"), count("task"))
    }

    /// Log lines so far containing `word`, and all log bytes so far.
    pub(crate) fn logged(&self, word: &str) -> (Vec<String>, usize) {
        let log = self.log.lock().unwrap();
        let hits = log.iter().filter(|l| l.contains(word)).cloned().collect();
        (hits, log.iter().map(|l| l.len() + 1).sum())
    }

    /// Waits up to `within` for a log line containing `word`.
    pub(crate) fn wait_for_line(&self, word: &str, within: Duration) -> Option<String> {
        let started = Instant::now();
        loop {
            if let Some(l) = self.logged(word).0.into_iter().next() {
                return Some(l);
            }
            if started.elapsed() > within {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A normal episode works.
    pub(crate) fn serves_the_next_client(&self) {
        let mut client = self.client();
        let ini = common::ini(true, &["Cam"], &camera("Cam", 32, 24));
        client.load_settings(&ini).unwrap();
        client.start_episode(0).unwrap();
        let frame = client.read_frame().unwrap();
        assert_eq!(frame.sensors.len(), 1);
        client.send_control(&Control::default()).unwrap();
    }

    /// Sends SIGINT and waits for the process to exit.
    pub(crate) fn interrupt(&mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for HostProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn camera(name: &str, w: u32, h: u32) -> String {
    format!("[CARLA/Sensor/{name}]\nSensorType=CAMERA\nImageSizeX={w}\nImageSizeY={h}\n")
}
