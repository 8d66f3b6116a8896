//! Building and running the C/C++ test hosts (`tests/c/`): compiled with
//! the `cc` crate's compiler against `include/`, linked to this build's
//! `libcarla_server.so` (Windows: `carla_server.dll` through its import
//! library), run as child processes.
//!
//! Under Wine a Windows test cannot run a Linux compiler (Wine starts it but
//! gives back no process to wait for), so the Windows hosts are compiled
//! natively before the Windows run, by the same code
//! ([`build_windows_hosts`], which `scripts/test-windows.sh` calls through
//! an ignored test), into `<lib dir>/c-hosts/<exe>/`; [`build`] then only
//! finds them.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a host may run before it is killed.
pub(crate) const CHILD_LIMIT: Duration = Duration::from_secs(60);
const CRATE: &str = env!("CARGO_MANIFEST_DIR");

// ---------------------------------------------------------------- building

/// The library file a host loads.
const LIBRARY: &str = if cfg!(windows) {
    "carla_server.dll"
} else {
    "libcarla_server.so"
};

/// The directory holding the `libcarla_server.so` (`carla_server.dll`) of
/// this build, or the one `CARLA_LIB_DIR` names (`scripts/sanitize.sh`: an
/// instrumented build; `scripts/test-windows.sh`: the Windows build).
pub(crate) fn lib_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARLA_LIB_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe
        .parent()
        .expect("test binary has a directory")
        .to_path_buf();
    [
        deps.clone(),
        deps.parent().map(Path::to_path_buf).unwrap_or_default(),
    ]
    .into_iter()
    .find(|d| d.join(LIBRARY).is_file())
    .unwrap_or_else(|| panic!("{LIBRARY} not found in {} or its parent", deps.display()))
}

/// Compile and link flags for `CARLA_SANITIZE` (`scripts/sanitize.sh`):
/// `address` (ASan + LeakSanitizer + UBSan, every report fatal) or
/// `thread` (TSan), plus the files `CARLA_SANITIZE_LINK` lists (objects
/// the script links into every host); nothing when unset.
pub(crate) fn sanitizer_flags() -> Vec<String> {
    let mut flags: Vec<String> = match std::env::var("CARLA_SANITIZE").as_deref() {
        Err(_) | Ok("") => return Vec::new(),
        Ok("address") => vec![
            "-fsanitize=address,undefined".into(),
            "-fno-sanitize-recover=all".into(),
        ],
        Ok("thread") => vec!["-fsanitize=thread".into()],
        Ok(other) => panic!("CARLA_SANITIZE={other}: expected address or thread"),
    };
    flags.push("-fno-omit-frame-pointer".into());
    let link = std::env::var("CARLA_SANITIZE_LINK").unwrap_or_default();
    flags.extend(link.split_whitespace().map(String::from));
    flags
}

fn target_triple() -> String {
    let env = if cfg!(target_env = "musl") {
        "musl"
    } else {
        "gnu"
    };
    format!("{}-unknown-linux-{env}", std::env::consts::ARCH)
}

/// The Windows target the hosts are built for.
const WINDOWS_TRIPLE: &str = "x86_64-pc-windows-gnu";

/// Compiles and links `tests/c/<source>` into `<tmp>/<exe>`: C99 with
/// `-pedantic`, or C++17 for `.cpp`, warnings as errors, pthreads.
/// `compiler` overrides the `cc` crate's choice (which honours `CC`/`CXX`).
/// On Windows: the host compiled before the run (see the module's docs).
/// Compiled once per test binary: tests sharing a host wait for the first
/// build (rewriting an executable another test runs fails with ETXTBSY).
pub(crate) fn build(source: &str, exe: &str, compiler: Option<&str>) -> PathBuf {
    if cfg!(windows) {
        return prebuilt(exe);
    }
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let key = format!("{exe} {compiler:?}");
    if let Some((_, path)) = built.iter().find(|(k, _)| *k == key) {
        return path.clone();
    }
    let path = build_against(
        source,
        exe,
        compiler,
        &Path::new(CRATE).join("include"),
        &lib_dir(),
    );
    built.push((key, path.clone()));
    path
}

/// `build` with the header from `include` (the directory holding
/// `carla/carla_server.h`) and the `libcarla_server.so` in `lib`, which is
/// also the executable's RUNPATH (Linux).
pub(crate) fn build_against(
    source: &str,
    exe: &str,
    compiler: Option<&str>,
    include: &Path,
    lib: &Path,
) -> PathBuf {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    compile(
        source,
        &target_triple(),
        (include, lib),
        &out_dir.join(exe),
        compiler,
    )
}

/// The hosts the Windows tests run, as (source, executable name).
pub(crate) const WINDOWS_HOSTS: [(&str, &str); 10] = [
    ("host.c", "host_c"),
    ("host.cpp", "host_cpp"),
    ("legacy_abi.cpp", "legacy_abi"),
    ("sensors_host.c", "sensors_host"),
    ("exit_race.c", "exit_race_host"),
    ("lidar_mirror_host.c", "lidar_mirror_host"),
    ("rpc_actors_host.c", "rpc_actors_host"),
    ("rpc_bones_host.c", "rpc_bones_host"),
    ("rpc_maps_host.c", "rpc_maps_host"),
    ("recorder_host.c", "recorder_host"),
];

/// Compiles [`WINDOWS_HOSTS`] with mingw-w64 against the Windows build in
/// `lib` (its `carla_server.dll` and import library) into `lib/c-hosts/`.
/// The C++ hosts need the compiler with POSIX threads (`std::thread`); the
/// runtimes are linked statically, so a host needs only the library's DLL.
pub(crate) fn build_windows_hosts(lib: &Path) {
    for (source, exe) in WINDOWS_HOSTS {
        let compiler = if source.ends_with(".cpp") {
            "x86_64-w64-mingw32-g++-posix"
        } else {
            "x86_64-w64-mingw32-gcc-posix"
        };
        let output = lib.join("c-hosts").join(exe).join(format!("{exe}.exe"));
        std::fs::create_dir_all(output.parent().unwrap()).expect("create the hosts' directory");
        let include = Path::new(CRATE).join("include");
        compile(
            source,
            WINDOWS_TRIPLE,
            (&include, lib),
            &output,
            Some(compiler),
        );
    }
}

/// A host [`build_windows_hosts`] compiled (in the profile's directory,
/// the parent of the test's `deps/`).
fn prebuilt(exe: &str) -> PathBuf {
    let test = std::env::current_exe().expect("current_exe");
    let profile = test
        .parent()
        .and_then(Path::parent)
        .expect("test binary in <profile>/deps");
    let path = profile.join("c-hosts").join(exe).join(format!("{exe}.exe"));
    assert!(
        path.is_file(),
        "{} is missing: run scripts/test-windows.sh (it compiles the C hosts \
         with mingw-w64 before the Windows tests)",
        path.display()
    );
    path
}

/// Compiles and links `tests/c/<source>` for `triple` into `output`,
/// against the library in `lib`.
fn compile(
    source: &str,
    triple: &str,
    (include, lib): (&Path, &Path),
    output: &Path,
    compiler: Option<&str>,
) -> PathBuf {
    let cpp = source.ends_with(".cpp");
    let windows = triple.contains("windows");
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .target(triple)
        .host(triple)
        .opt_level(1)
        .debug(true)
        .out_dir(&out_dir)
        .cpp(cpp);
    if let Some(c) = compiler {
        build.compiler(c);
    }
    let mut cmd = build.get_compiler().to_command();
    if cpp {
        cmd.arg("-std=c++17");
    } else {
        cmd.args(["-std=c99", "-pedantic"]);
    }
    cmd.args(["-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", include.display()))
        .arg(Path::new(CRATE).join("tests/c").join(source))
        .arg("-o")
        .arg(output);
    if windows {
        // The import library by path: with `-static` (the C and C++
        // runtimes and winpthreads inside the host) `-lcarla_server` would
        // pick the static library instead of the DLL.
        cmd.arg(lib.join("libcarla_server.dll.a"))
            .args(["-pthread", "-static"]);
    } else {
        cmd.arg(format!("-L{}", lib.display()))
            .arg("-lcarla_server")
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .arg("-pthread")
            .args(sanitizer_flags());
    }
    let result = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        result.status.success(),
        "compiling {source} failed: {cmd:?}\n{}{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
    output.to_path_buf()
}

// --------------------------------------------------------- the child host

/// A running host program. Its stdout lines arrive on `lines`; everything
/// it prints is also collected in `output`. Killed (and its output printed)
/// if the test panics before it exits.
pub(crate) struct Host {
    exe: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    output: Arc<Mutex<String>>,
    readers: Vec<JoinHandle<()>>,
}

impl Host {
    /// Starts `exe` with `args`, stdin and stdout piped.
    pub(crate) fn spawn(exe: &Path, args: &[String]) -> Host {
        Host::spawn_with_env(exe, args, &[])
    }

    /// `spawn` with extra environment variables.
    pub(crate) fn spawn_with_env(exe: &Path, args: &[String], envs: &[(&str, &Path)]) -> Host {
        // Windows loads a DLL from the executable's directory first: this
        // build's, copied there by the first spawn of each host in this
        // test process (two tests may run one host at once, and Windows
        // refuses to overwrite a DLL a running host has loaded).
        if cfg!(windows) {
            static COPIED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
            let mut copied = COPIED.lock().unwrap_or_else(|e| e.into_inner());
            let beside = exe.with_file_name(LIBRARY);
            if !copied.contains(&beside) {
                std::fs::copy(lib_dir().join(LIBRARY), &beside)
                    .unwrap_or_else(|e| panic!("copy {LIBRARY} to {}: {e}", beside.display()));
                copied.push(beside);
            }
        }
        // `cargo test` puts target/debug (with the library of the last
        // `cargo build`, possibly stale) before target/debug/deps in
        // LD_LIBRARY_PATH, which wins over the executable's RUNPATH.
        let mut child = Command::new(exe)
            .env("LD_LIBRARY_PATH", lib_dir())
            .envs(envs.iter().copied())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", exe.display()));
        let output = Arc::new(Mutex::new(String::new()));
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let out = output.clone();
        let stdout_reader = thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                out.lock().unwrap().push_str(&format!("{line}\n"));
                let _ = tx.send(line);
            }
        });
        let err = output.clone();
        let stderr_reader = thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                err.lock().unwrap().push_str(&format!("{line}\n"));
            }
        });
        Host {
            exe: exe.to_path_buf(),
            stdin: child.stdin.take(),
            child,
            lines,
            output,
            readers: vec![stdout_reader, stderr_reader],
        }
    }

    /// The next stdout line (panics if none arrives within 30 s, saying
    /// how long it waited and what the host printed).
    pub(crate) fn next_line(&self) -> String {
        let started = Instant::now();
        match self.lines.recv_timeout(Duration::from_secs(30)) {
            Ok(line) => line,
            Err(e) => {
                let why = match e {
                    RecvTimeoutError::Timeout => "no line",
                    RecvTimeoutError::Disconnected => "the host closed its stdout",
                };
                let printed = self.output.lock().map(|o| o.clone()).unwrap_or_default();
                panic!(
                    "waited {:?} for the host's next stdout line: {why}; it printed:\n{printed}",
                    started.elapsed()
                )
            }
        }
    }

    pub(crate) fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .expect("write to the host's stdin");
    }

    /// Closes the host's stdin (hosts that serve until then exit).
    pub(crate) fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// The host runs the library of this build, not another copy. Windows
    /// (no `/proc`): the DLL beside the host is this build's (copied at
    /// spawn; Windows looks there first).
    #[cfg(windows)]
    pub(crate) fn assert_loaded_library(&self) {
        let ours = std::fs::read(lib_dir().join(LIBRARY)).expect("read this build's DLL");
        let beside = self.exe.with_file_name(LIBRARY);
        assert!(
            std::fs::read(&beside).is_ok_and(|b| b == ours),
            "{} is not this build's DLL",
            beside.display()
        );
    }

    /// The host runs the library of this build, not another copy.
    #[cfg(not(windows))]
    pub(crate) fn assert_loaded_library(&self) {
        self.assert_loaded(&lib_dir().join("libcarla_server.so"));
    }

    /// The host runs `lib` (a `libcarla_server.so`) and no other copy.
    ///
    /// Read from `/proc/PID/maps`, up to 20 times 50 ms apart: twice in
    /// full runs (kernel 6.18) one read of a host that had printed that it
    /// listened listed 13 mappings and no library at all, the process
    /// running; a read that misses the library is printed and read again.
    #[cfg(not(windows))]
    pub(crate) fn assert_loaded(&self, lib: &Path) {
        let want = lib.canonicalize().expect("canonical path");
        let proc_file = |name: &str| {
            std::fs::read_to_string(format!("/proc/{}/{name}", self.child.id()))
                .unwrap_or_else(|e| format!("({e})"))
        };
        let mut loaded = Vec::new();
        for attempt in 0..20 {
            let maps = proc_file("maps");
            loaded = maps
                .lines()
                .filter_map(|l| l.split_whitespace().nth(5))
                .filter(|path| path.ends_with("/libcarla_server.so"))
                .map(PathBuf::from)
                .collect::<Vec<_>>();
            loaded.dedup();
            if !loaded.is_empty() {
                break;
            }
            eprintln!(
                "read {attempt} of the host's maps lists no libcarla_server.so \
                 (state {:?}, exe {:?}):\n{maps}",
                proc_file("stat").split_whitespace().nth(2).unwrap_or("?"),
                std::fs::read_link(format!("/proc/{}/exe", self.child.id())),
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            loaded == [want.clone()],
            "the host loaded {loaded:?}, expected {}",
            want.display()
        );
    }

    /// Whether the host has exited.
    pub(crate) fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Waits up to `CHILD_LIMIT` for the exit, asserts status 0 and returns
    /// everything the host printed.
    pub(crate) fn finish(mut self) -> String {
        let deadline = Instant::now() + CHILD_LIMIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break Some(status);
            }
            if Instant::now() > deadline {
                break None;
            }
            thread::sleep(Duration::from_millis(10));
        };
        let output = self.drain();
        match status {
            Some(s) if s.success() => output,
            Some(s) => panic!("host exited with {s}; its output:\n{output}"),
            None => {
                panic!("host still running after {CHILD_LIMIT:?}; killed; its output:\n{output}")
            }
        }
    }

    /// Kills the child if it still runs, then returns everything it printed.
    pub(crate) fn drain(&mut self) -> String {
        self.stdin.take();
        let _ = self.child.kill();
        let _ = self.child.wait();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        self.output.lock().unwrap().clone()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if !self.readers.is_empty() {
            let output = self.drain();
            eprintln!("---- host output ----\n{output}---------------------");
        }
    }
}
