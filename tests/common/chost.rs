//! Building and running the C/C++ test hosts (`tests/c/`): compiled with
//! the `cc` crate's compiler against `include/`, linked to this build's
//! `libcarla_server.so`, run as child processes.
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

/// The directory holding the `libcarla_server.so` of this build, or the
/// one `CARLA_LIB_DIR` names (`scripts/sanitize.sh`: an instrumented build).
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
    .find(|d| d.join("libcarla_server.so").is_file())
    .unwrap_or_else(|| {
        panic!(
            "libcarla_server.so not found in {} or its parent",
            deps.display()
        )
    })
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

/// Compiles and links `tests/c/<source>` into `<tmp>/<exe>`: C99 with
/// `-pedantic`, or C++17 for `.cpp`, warnings as errors, pthreads.
/// `compiler` overrides the `cc` crate's choice (which honours `CC`/`CXX`).
pub(crate) fn build(source: &str, exe: &str, compiler: Option<&str>) -> PathBuf {
    build_against(
        source,
        exe,
        compiler,
        &Path::new(CRATE).join("include"),
        &lib_dir(),
    )
}

/// `build` with the header from `include` (the directory holding
/// `carla/carla_server.h`) and the `libcarla_server.so` in `lib`, which is
/// also the executable's RUNPATH.
pub(crate) fn build_against(
    source: &str,
    exe: &str,
    compiler: Option<&str>,
    include: &Path,
    lib: &Path,
) -> PathBuf {
    let cpp = source.ends_with(".cpp");
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let triple = target_triple();
    let mut build = cc::Build::new();
    build
        .cargo_metadata(false)
        .target(&triple)
        .host(&triple)
        .opt_level(1)
        .debug(true)
        .out_dir(&out_dir)
        .cpp(cpp);
    if let Some(c) = compiler {
        build.compiler(c);
    }
    let output = out_dir.join(exe);
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
        .arg(&output)
        .arg(format!("-L{}", lib.display()))
        .arg("-lcarla_server")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-pthread")
        .args(sanitizer_flags());
    let result = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        result.status.success(),
        "compiling {source} failed: {cmd:?}\n{}{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
    output
}

// --------------------------------------------------------- the child host

/// A running host program. Its stdout lines arrive on `lines`; everything
/// it prints is also collected in `output`. Killed (and its output printed)
/// if the test panics before it exits.
pub(crate) struct Host {
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
            stdin: child.stdin.take(),
            child,
            lines,
            output,
            readers: vec![stdout_reader, stderr_reader],
        }
    }

    /// The next stdout line (panics if none arrives within 30 s).
    pub(crate) fn next_line(&self) -> String {
        match self.lines.recv_timeout(Duration::from_secs(30)) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no line from the host within 30 s"),
            Err(RecvTimeoutError::Disconnected) => panic!("the host closed its stdout"),
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

    /// The host runs the library of this build, not another copy.
    pub(crate) fn assert_loaded_library(&self) {
        self.assert_loaded(&lib_dir().join("libcarla_server.so"));
    }

    /// The host runs `lib` (a `libcarla_server.so`) and no other copy.
    pub(crate) fn assert_loaded(&self, lib: &Path) {
        let maps = std::fs::read_to_string(format!("/proc/{}/maps", self.child.id()))
            .expect("read the host's /proc/PID/maps");
        let want = lib.canonicalize().expect("canonical path");
        let mut loaded: Vec<PathBuf> = maps
            .lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .filter(|path| path.ends_with("/libcarla_server.so"))
            .map(PathBuf::from)
            .collect();
        loaded.dedup();
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
