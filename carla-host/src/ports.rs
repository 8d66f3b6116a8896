//! `--port 0` and the ports line: a server that picks free ports for
//! everything it binds and tells a script which, on one JSON line on
//! stdout and in `--ports-file` (what `carla_host.serve()` and parallel CI
//! jobs read instead of agreeing on port numbers).
//!
//! The 0.8 protocol wants three ports in a row (P, P+1, P+2: its clients
//! add 1 and 2 themselves), so a free world port is searched for: the OS
//! offers one, the two after it are tried, and binding is the only claim
//! (another server that took any of them makes `connect` fail and the
//! search go on), so two servers started at once never share a port.

use carla_server::{Error, Release, Server};
use std::fmt::Write as _;
use std::net::{IpAddr, TcpListener};
use std::path::{Path, PathBuf};

/// How many world ports are tried before `--port 0` gives up.
const ATTEMPTS: usize = 64;

/// Binds the 0.8 ports on a free P (the OS's choice; P+1 and P+2 free
/// too); returns P.
pub(crate) fn connect_free(server: &Server, ip: IpAddr, timeout_ms: u32) -> Result<u16, String> {
    let mut last = String::from("no port offered");
    for _ in 0..ATTEMPTS {
        let Some(p) = free_triple(ip) else {
            continue;
        };
        match server.connect(u32::from(p), timeout_ms) {
            Ok(()) => return Ok(p),
            // Taken between the probe and the bind: try another.
            Err(Error::AddressInUse) => last = format!("port {p} was taken meanwhile"),
            Err(e) => return Err(format!("cannot listen on port {p}: {e}")),
        }
    }
    Err(format!(
        "--port 0: no three free ports in a row found in {ATTEMPTS} tries ({last})"
    ))
}

/// A port P the OS calls free whose next two are free now as well; the
/// probes are closed again before the server binds (quietly: a clash is
/// found here, not logged by the library as a failure).
fn free_triple(ip: IpAddr) -> Option<u16> {
    let first = TcpListener::bind((ip, 0)).ok()?;
    let p = first.local_addr().ok()?.port();
    if p > u16::MAX - 3 {
        return None;
    }
    let _second = TcpListener::bind((ip, p + 1)).ok()?;
    let _third = TcpListener::bind((ip, p + 2)).ok()?;
    Some(p)
}

/// Where everything listens, once the world is ready.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ports {
    pub host: IpAddr,
    /// The world port P (0.8.4 clients; 0.9.16 too unless `rpc`).
    pub world: u16,
    /// The 0.9.16 RPC port.
    pub rpc: u16,
    /// The 0.9 streaming port.
    pub streaming: u16,
    /// The older 0.9 releases' RPC ports.
    pub releases: Vec<(Release, u16)>,
    pub ros2_domain: Option<u16>,
    /// The map the world starts on.
    pub map: String,
}

impl Ports {
    /// One line of JSON (no newline): every port by its role, the
    /// process id and the map.
    pub(crate) fn json(&self) -> String {
        let mut releases = String::new();
        for (i, (r, p)) in self.releases.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            let _ = write!(releases, "{sep}\"{r}\": {p}");
        }
        format!(
            "{{\"carla_host\": \"ready\", \"pid\": {}, \"host\": {}, \"port\": {}, \
             \"legacy_stream_port\": {}, \"legacy_control_port\": {}, \"rpc_port\": {}, \
             \"streaming_port\": {}, \"release_ports\": {{{}}}, \"ros2_domain\": {}, \"map\": {}}}",
            std::process::id(),
            quoted(&self.host.to_string()),
            self.world,
            u32::from(self.world) + 1,
            u32::from(self.world) + 2,
            self.rpc,
            self.streaming,
            releases,
            self.ros2_domain
                .map_or_else(|| "null".to_string(), |d| d.to_string()),
            quoted(&self.map)
        )
    }
}

/// A JSON string literal.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Refuses a ports file that could not be written, before anything is
/// bound: its folder must exist.
pub(crate) fn check_file(path: &Path) -> Result<(), String> {
    let folder = match path.parent() {
        Some(f) if !f.as_os_str().is_empty() => f.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if path.as_os_str().is_empty() || path.file_name().is_none() {
        return Err(format!("--ports-file {}: not a file name", path.display()));
    }
    if !folder.is_dir() {
        return Err(format!(
            "--ports-file {}: the folder {} does not exist",
            path.display(),
            folder.display()
        ));
    }
    Ok(())
}

/// Writes the line to `path` whole: a reader that polls the file sees
/// nothing or all of it (written beside it, then renamed over it).
pub(crate) fn write_file(path: &Path, line: &str) -> Result<(), String> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, format!("{line}\n"))
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            format!("--ports-file {}: cannot write it: {e}", path.display())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    #[test]
    fn two_servers_on_port_zero_get_six_different_ports() {
        let (a, b) = (Server::new(), Server::new());
        let pa = connect_free(&a, LOCAL, 1_000).unwrap();
        let pb = connect_free(&b, LOCAL, 1_000).unwrap();
        let mut all: Vec<u16> = [pa, pb].iter().flat_map(|p| [*p, p + 1, p + 2]).collect();
        let addrs = a.local_addrs().unwrap();
        assert_eq!(addrs.map(|s| s.port()), [pa, pa + 1, pa + 2]);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 6, "{pa} and {pb} overlap");
        // Each of them is really held.
        for p in [pa, pa + 1, pa + 2, pb, pb + 1, pb + 2] {
            assert!(TcpListener::bind((LOCAL, p)).is_err(), "port {p} is free");
        }
        a.disconnect();
        b.disconnect();
    }

    #[test]
    fn the_line_is_json_with_every_port() {
        let ports = Ports {
            host: LOCAL,
            world: 41000,
            rpc: 41000,
            streaming: 39000,
            releases: vec![(Release::V0_9_12, 39001), (Release::V0_9_15, 39002)],
            ros2_domain: None,
            map: "Carla/Maps/Town\"01\\".into(),
        };
        let line = ports.json();
        assert!(!line.contains('\n'));
        let want = format!(
            "{{\"carla_host\": \"ready\", \"pid\": {}, \"host\": \"127.0.0.1\", \"port\": 41000, \
             \"legacy_stream_port\": 41001, \"legacy_control_port\": 41002, \"rpc_port\": 41000, \
             \"streaming_port\": 39000, \"release_ports\": {{\"0.9.12\": 39001, \"0.9.15\": 39002}}, \
             \"ros2_domain\": null, \"map\": \"Carla/Maps/Town\\\"01\\\\\"}}",
            std::process::id()
        );
        assert_eq!(line, want);
        assert_eq!(quoted("a\nb"), "\"a\\u000ab\"");
    }

    #[test]
    fn a_ports_file_needs_its_folder_and_is_written_whole() {
        let dir = std::env::temp_dir().join(format!("carla-host-ports-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let err = check_file(&dir.join("ports.json")).unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
        assert!(err.contains(&dir.display().to_string()), "{err}");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("ports.json");
        check_file(&file).unwrap();
        write_file(&file, "{\"port\": 1}").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{\"port\": 1}\n");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "a partial file was left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
