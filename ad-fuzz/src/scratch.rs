//! A scratch crate that depends on `ad-runtime`: the fuzzer writes a `main.rs` into it,
//! compiles it with cargo (diagnostics as JSON) and runs the binary.
//!
//! Each scratch crate is its own workspace with its own target directory under
//! `target/ad-fuzz/`, so campaigns running side by side do not wait on each other's build lock,
//! and `ad-runtime` is compiled once per scratch crate.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The workspace this fuzzer belongs to (its `ad-runtime` is the one under test).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("ad-fuzz sits in the workspace")
        .to_path_buf()
}

/// A source file assembled from named pieces, remembering which lines each piece holds, so a
/// diagnostic can be traced back to the function it is about.
#[derive(Default, Clone)]
pub struct Source {
    pub text: String,
    pieces: Vec<(String, usize, usize)>,
}

impl Source {
    /// Appends text that belongs to no piece (imports, the driver's `main`).
    pub fn push_shared(&mut self, text: &str) {
        self.text.push_str(text);
        if !text.ends_with('\n') {
            self.text.push('\n');
        }
    }

    /// Appends the piece `name`; its lines are remembered.
    pub fn push_piece(&mut self, name: &str, text: &str) {
        let first = self.text.lines().count() + 1;
        self.push_shared(text);
        let last = self.text.lines().count();
        self.pieces.push((name.to_string(), first, last));
    }

    /// The piece that holds 1-based `line`.
    pub fn piece_at(&self, line: usize) -> Option<&str> {
        self.pieces
            .iter()
            .find(|(_, first, last)| (*first..=*last).contains(&line))
            .map(|(name, _, _)| name.as_str())
    }
}

/// One compiler message about the scratch crate's own code.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub level: String,
    /// `E0308` and the like; `None` for `compile_error!` (the macros' refusals) and a few others.
    pub code: Option<String>,
    pub message: String,
    /// The whole message as rustc prints it.
    pub rendered: String,
    /// The primary span's line in `main.rs`, following macro expansions back to the user's
    /// file.
    pub line: Option<usize>,
    /// The primary span lies in code a macro generated (the macro's name, `#[reverse]`, ...),
    /// rather than on tokens the user wrote.
    pub expansion: Option<String>,
}

impl Diagnostic {
    pub fn is_error(&self) -> bool {
        self.level == "error"
    }

    /// A proc macro panicked (rustc reports it as an error at the attribute).
    pub fn is_macro_panic(&self) -> bool {
        self.message.contains("panicked") || self.message.contains("internal error of the macro")
    }

    /// A message one of our macros raised on purpose (`compile_error!` spanned on the user's
    /// tokens): no error code, no expansion.
    pub fn is_refusal(&self) -> bool {
        !self.is_macro_panic() && self.code.is_none() && self.expansion.is_none()
    }

    /// The message names generated items or lies in generated code: something the user did not
    /// write.
    pub fn points_inside_generated_code(&self) -> bool {
        self.expansion.as_deref().is_some_and(|name| {
            ["forward", "reverse", "checkpoint", "Differentiable"]
                .iter()
                .any(|ours| name.contains(ours))
        }) || ["__ad", "__S", "__private"]
            .iter()
            .any(|generated| self.message.contains(generated))
    }
}

pub struct Compiled {
    pub success: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// cargo's own failure when it printed no compiler message (a broken scratch crate).
    pub cargo_error: Option<String>,
    pub elapsed: Duration,
}

impl Compiled {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }
}

pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    /// The exit code; `None` when killed by a signal (stack overflow, timeout).
    pub status: Option<i32>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// `cargo check`: type errors only, no binary.
    Check,
    /// `cargo build`: a binary to run.
    Build,
}

pub struct Scratch {
    name: String,
    dir: PathBuf,
}

impl Scratch {
    /// Creates (or reuses) `target/ad-fuzz/<name>`, a binary crate named `name` depending on this
    /// workspace's `ad-runtime`, with this workspace's `Cargo.lock`.
    pub fn new(name: &str) -> std::io::Result<Scratch> {
        let root = workspace_root();
        let dir = root.join("target").join("ad-fuzz").join(name);
        std::fs::create_dir_all(dir.join("src"))?;
        let manifest = format!(
            r#"[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
ad-runtime = {{ path = {runtime:?} }}

# Its own workspace: not a member of the one it sits in.
[workspace]

[profile.dev]
debug = 0
incremental = false

# The macros run at every expansion: an optimized macro crate expands big batches faster.
[profile.dev.build-override]
opt-level = 2
"#,
            runtime = root.join("ad-runtime").display().to_string(),
        );
        write_if_changed(&dir.join("Cargo.toml"), &manifest)?;
        let lock = std::fs::read_to_string(root.join("Cargo.lock"))?;
        if !dir.join("Cargo.lock").exists() {
            std::fs::write(dir.join("Cargo.lock"), lock)?;
        }
        Ok(Scratch {
            name: name.to_string(),
            dir,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `source` as `src/main.rs` and compiles it.
    pub fn compile(&self, source: &str, build: Build) -> std::io::Result<Compiled> {
        std::fs::write(self.dir.join("src").join("main.rs"), source)?;
        let started = Instant::now();
        let output = Command::new(env!("CARGO"))
            .arg(match build {
                Build::Check => "check",
                Build::Build => "build",
            })
            .args(["--quiet", "--message-format=json"])
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", self.dir.join("target"))
            .env_remove("RUSTFLAGS")
            .stdin(Stdio::null())
            .output()?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let diagnostics: Vec<Diagnostic> = stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|value| value["reason"] == "compiler-message")
            .filter(|value| value["target"]["name"] == self.name.as_str())
            .filter_map(|value| diagnostic(&value["message"]))
            .collect();
        let success = output.status.success();
        let cargo_error = (!success && diagnostics.iter().all(|d| !d.is_error()))
            .then(|| String::from_utf8_lossy(&output.stderr).into_owned());
        Ok(Compiled {
            success,
            diagnostics,
            cargo_error,
            elapsed: started.elapsed(),
        })
    }

    /// Runs the binary last built, killing it after `timeout`.
    pub fn run(&self, args: &[String], timeout: Duration) -> std::io::Result<RunOutput> {
        let binary = self.dir.join("target").join("debug").join(&self.name);
        let mut child = Command::new(binary)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let mut stdout_pipe = child.stdout.take().expect("piped");
        let mut stderr_pipe = child.stderr.take().expect("piped");
        let stdout_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stdout_pipe.read_to_string(&mut text);
            text
        });
        let stderr_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            text
        });
        let started = Instant::now();
        let mut timed_out = false;
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            if started.elapsed() > timeout {
                timed_out = true;
                let _ = child.kill();
                break child.wait()?;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        Ok(RunOutput {
            stdout: stdout_reader.join().unwrap_or_default(),
            stderr: stderr_reader.join().unwrap_or_default(),
            timed_out,
            status: status.code(),
        })
    }
}

fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text)?;
    }
    Ok(())
}

fn diagnostic(message: &serde_json::Value) -> Option<Diagnostic> {
    let level = message["level"].as_str()?.to_string();
    if !matches!(level.as_str(), "error" | "warning") {
        return None;
    }
    let spans = message["spans"].as_array();
    let primary = spans.and_then(|spans| spans.iter().find(|span| span["is_primary"] == true));
    let (line, expansion) = match primary {
        Some(span) => user_line(span),
        None => (None, None),
    };
    Some(Diagnostic {
        level,
        code: message["code"]["code"].as_str().map(str::to_string),
        message: message["message"].as_str().unwrap_or_default().to_string(),
        rendered: message["rendered"].as_str().unwrap_or_default().to_string(),
        line,
        expansion,
    })
}

/// The line of `main.rs` a span comes from, and the innermost macro that generated it, if any.
fn user_line(span: &serde_json::Value) -> (Option<usize>, Option<String>) {
    let mut expansion = None;
    let mut current = span;
    for _ in 0..64 {
        let in_main = current["file_name"]
            .as_str()
            .is_some_and(|file| file.ends_with("main.rs"));
        let next = &current["expansion"];
        if next.is_null() {
            let line = in_main
                .then(|| current["line_start"].as_u64())
                .flatten()
                .map(|line| line as usize);
            return (line, expansion);
        }
        if expansion.is_none() {
            expansion = next["macro_decl_name"].as_str().map(str::to_string);
        }
        current = &next["span"];
    }
    (None, expansion)
}
