//! A UCI engine as a child process. Its stdout is read by a thread into a channel so
//! that every wait has a deadline; the process is killed when the `Engine` is
//! dropped, so engines never outlive the runner (nor a game they ruined).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::config::EngineConfig;
use turncoat_rules::variants::VariantKind;

/// Set once the runner is interrupted (SIGINT / SIGTERM): no engine starts after it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// Process ids of the running engines (registered under this lock when spawned,
/// removed before they are reaped, so a signal never kills a recycled pid).
static CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Has [`interrupt`] been called?
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Stops the match at once: no engine starts from now on and every running one is
/// killed (their games then end without a result and are not reported). Safe to
/// call from a signal-handling thread.
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
    for &pid in children.iter() {
        kill(pid);
    }
}

/// Kills the engine process `pid` (a child not reaped yet, see CHILDREN).
#[cfg(unix)]
fn kill(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) has no memory-safety preconditions; the pid belongs to
        // a child that has not been reaped yet (see CHILDREN).
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// Kills the engine process `pid` (a child not reaped yet, see CHILDREN):
/// Windows has no kill(2), and its `taskkill` needs no unsafe code; this runs
/// once, on Ctrl-C.
#[cfg(windows)]
fn kill(pid: u32) {
    let _ = std::process::Command::new("taskkill")
        .args(["/F", "/T", "/PID", &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// Reads `pipe` to its end, line by line, as bytes: an engine's output need not
/// be UTF-8, and a reader that stopped at the first bad byte would leave the pipe
/// to fill until the engine blocks in `write`. Each line is decoded lossily and
/// trimmed; reading stops early only when `each` returns false.
fn for_each_line(pipe: impl Read, mut each: impl FnMut(String) -> bool) {
    let mut reader = BufReader::new(pipe);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {
                if !each(String::from_utf8_lossy(&buf).trim().to_string()) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

fn unregister_child(pid: u32) {
    let mut children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
    children.retain(|&p| p != pid);
}

/// An option the engine declared in its `uci` answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UciOption {
    pub name: String,
    pub kind: String,
    /// `var` values of a combo option.
    pub vars: Vec<String>,
    /// `min` / `max` of a spin option.
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub default: Option<String>,
}

impl UciOption {
    /// The declaration, as a reader of the error messages wants to see it.
    pub fn describe(&self) -> String {
        match self.kind.as_str() {
            "spin" => format!(
                "a spin option from {} to {}",
                self.min.map_or("?".to_string(), |m| m.to_string()),
                self.max.map_or("?".to_string(), |m| m.to_string())
            ),
            "check" => "a check option (true or false)".to_string(),
            "combo" => format!("a combo option with values {}", self.vars.join(", ")),
            "string" => "a string option".to_string(),
            "button" => "a button option (it takes no value)".to_string(),
            other => format!("an option of unknown type '{other}'"),
        }
    }

    /// Checks `value` against the declaration; the error says why it is refused.
    pub fn check_value(&self, value: &str) -> Result<(), String> {
        let v = value.trim();
        match self.kind.as_str() {
            "spin" => {
                let n: i64 = v
                    .parse()
                    .map_err(|_| format!("'{value}' is not an integer"))?;
                if self.min.is_some_and(|m| n < m) || self.max.is_some_and(|m| n > m) {
                    return Err(format!("{n} is out of range"));
                }
                Ok(())
            }
            "check" => {
                if v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false") {
                    Ok(())
                } else {
                    Err(format!("'{value}' is neither true nor false"))
                }
            }
            "combo" => {
                if self.vars.iter().any(|x| x.eq_ignore_ascii_case(v)) {
                    Ok(())
                } else {
                    Err(format!("'{value}' is not one of its values"))
                }
            }
            "button" => Err("buttons cannot be set from engines.toml".to_string()),
            _ => Ok(()),
        }
    }
}

/// The score an engine reported (its last `info` before `bestmove`), from the
/// side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReportedScore {
    Cp(i32),
    /// Mate in N moves (negative: being mated).
    Mate(i32),
}

impl ReportedScore {
    /// Centipawns, mates mapped beyond any material score.
    pub fn as_cp(self) -> i32 {
        match self {
            ReportedScore::Cp(cp) => cp,
            ReportedScore::Mate(n) if n > 0 => 100_000 - n,
            ReportedScore::Mate(n) => -100_000 - n,
        }
    }
}

/// What the engine answered to a `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineReply {
    /// The move exactly as sent (may be empty if `bestmove` came alone).
    pub bestmove: String,
    /// The last score / depth from the `info` lines.
    pub score: Option<ReportedScore>,
    pub depth: Option<u32>,
    /// From writing `go` to reading `bestmove`.
    pub elapsed: Duration,
}

/// Why a `go` did not produce a move in time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchError {
    /// `bestmove` came after the deadline (but before the engine was given up on).
    Late(EngineReply),
    /// No `bestmove` even after `stop` and a grace period: the engine hangs.
    Hang(Duration),
    /// The process died (or closed its output); the string says how.
    Crash(String),
}

/// A failure outside a search (handshake, `isready`, writing a command).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Timeout(String),
    Crash(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Timeout(s) | EngineError::Crash(s) => f.write_str(s),
        }
    }
}

enum Recv {
    Line(String),
    Timeout,
    Closed,
}

/// A UCI engine running as a child process, driven by the referee.
pub struct EngineProcess {
    pub name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<String>,
    /// `id name` from the handshake.
    pub id_name: Option<String>,
    pub options: Vec<UciOption>,
    /// Set when the engine stopped answering: drop kills it without ceremony.
    hung: bool,
}

impl EngineProcess {
    /// Spawns the engine and completes the `uci` / `uciok` handshake within `timeout`.
    pub fn start(cfg: &EngineConfig, timeout: Duration) -> Result<EngineProcess, String> {
        let mut cmd = Command::new(&cfg.cmd);
        cmd.args(&cfg.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &cfg.dir {
            cmd.current_dir(dir);
        }
        let mut child = {
            // Spawn and register under the lock, so that `interrupt` either sees
            // this child or has already forbidden it.
            let mut children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
            if interrupted() {
                return Err(format!("engine '{}': not started: interrupted", cfg.name));
            }
            let child = cmd.spawn().map_err(|e| {
                format!(
                    "engine '{}': cannot start '{}': {e}",
                    cfg.name,
                    cfg.cmd.display()
                )
            })?;
            children.push(child.id());
            child
        };
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            let name = cfg.name.clone();
            std::thread::spawn(move || {
                for_each_line(stdout, |line| {
                    log::trace!("{name} > {line}");
                    tx.send(line).is_ok()
                })
            });
        }
        if let Some(stderr) = child.stderr.take() {
            let name = cfg.name.clone();
            std::thread::spawn(move || {
                for_each_line(stderr, |line| {
                    log::debug!("{name} (stderr): {line}");
                    true
                })
            });
        }
        let mut engine = EngineProcess {
            name: cfg.name.clone(),
            child,
            stdin,
            rx,
            id_name: None,
            options: Vec::new(),
            hung: false,
        };
        engine
            .handshake(timeout)
            .map_err(|e| format!("engine '{}': {e}", cfg.name))?;
        Ok(engine)
    }

    fn handshake(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            match self.recv(deadline) {
                Recv::Line(line) => {
                    if line == "uciok" {
                        return Ok(());
                    }
                    if let Some(rest) = line.strip_prefix("id name ") {
                        self.id_name = Some(rest.trim().to_string());
                    } else if let Some(opt) = parse_option(&line) {
                        self.options.push(opt);
                    }
                }
                Recv::Timeout => {
                    self.hung = true;
                    return Err(EngineError::Timeout(format!(
                        "no 'uciok' within {} ms",
                        timeout.as_millis()
                    )));
                }
                Recv::Closed => {
                    return Err(EngineError::Crash(format!(
                        "exited during the uci handshake ({})",
                        self.exit_status()
                    )))
                }
            }
        }
    }

    /// Selects the variant and sends the configured options, then waits for
    /// `readyok`. Fails if the engine does not offer the variant.
    pub fn configure(
        &mut self,
        variant: VariantKind,
        options: &[(String, String)],
        timeout: Duration,
    ) -> Result<(), String> {
        for (key, _) in options {
            super::config::refuse_variant_option(&self.name, key)?;
        }
        let offered = self
            .options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case("UCI_Variant"))
            .map(|o| o.vars.clone());
        match offered {
            Some(vars) => {
                if !vars.iter().any(|v| v == variant.name()) {
                    return Err(format!(
                        "engine '{}' does not offer variant '{variant}' (its UCI_Variant combo lists: {})",
                        self.name,
                        vars.join(", ")
                    ));
                }
                self.send(&format!("setoption name UCI_Variant value {variant}"))
                    .map_err(|e| format!("engine '{}': {e}", self.name))?;
            }
            None if variant != VariantKind::Chess => {
                return Err(format!(
                    "engine '{}' has no UCI_Variant option, so it cannot play '{variant}'",
                    self.name
                ));
            }
            None => {}
        }
        self.check_options(options)?;
        for (key, value) in options {
            self.send(&format!("setoption name {key} value {value}"))
                .map_err(|e| format!("engine '{}': {e}", self.name))?;
        }
        let errors = self
            .await_ready(timeout)
            .map_err(|e| format!("engine '{}': {e}", self.name))?;
        match errors.first() {
            // A refused option (a network file that does not load, say) leaves
            // the engine playing as something the configuration did not ask
            // for: every game would be measured against the wrong engine.
            Some(line) => Err(format!(
                "engine '{}' refused its options: {line}",
                self.name
            )),
            None => Ok(()),
        }
    }

    /// Every configured option must be declared by the engine (names compare
    /// without regard to case, as UCI says) and its value must fit the declaration.
    pub fn check_options(&self, options: &[(String, String)]) -> Result<(), String> {
        for (key, value) in options {
            let Some(decl) = self
                .options
                .iter()
                .find(|o| o.name.eq_ignore_ascii_case(key.trim()))
            else {
                let declared: Vec<&str> = self
                    .options
                    .iter()
                    .map(|o| o.name.as_str())
                    .filter(|n| !n.eq_ignore_ascii_case("UCI_Variant"))
                    .collect();
                return Err(format!(
                    "engine '{}' does not declare option '{key}' (it declares: {})",
                    self.name,
                    if declared.is_empty() {
                        "none".to_string()
                    } else {
                        declared.join(", ")
                    }
                ));
            };
            decl.check_value(value).map_err(|why| {
                format!(
                    "engine '{}': option '{}' = {value}: {why}; the engine declares {}",
                    self.name,
                    decl.name,
                    decl.describe()
                )
            })?;
        }
        Ok(())
    }

    /// `isready` / `readyok`, skipping anything else.
    pub fn ready(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.await_ready(timeout).map(|_| ())
    }

    /// `isready` / `readyok`, keeping the `info string error...` lines
    /// (any case: Stockfish writes `ERROR`) the engine sent before `readyok`.
    fn await_ready(&mut self, timeout: Duration) -> Result<Vec<String>, EngineError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        let mut errors = Vec::new();
        loop {
            match self.recv(deadline) {
                Recv::Line(line) if line == "readyok" => return Ok(errors),
                Recv::Line(line) => {
                    const ERROR: &str = "info string error";
                    let said = line.trim_start();
                    if said
                        .get(..ERROR.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(ERROR))
                    {
                        errors.push(said.to_string());
                    }
                }
                Recv::Timeout => {
                    self.hung = true;
                    return Err(EngineError::Timeout(format!(
                        "no 'readyok' within {} ms",
                        timeout.as_millis()
                    )));
                }
                Recv::Closed => {
                    return Err(EngineError::Crash(format!(
                        "exited ({})",
                        self.exit_status()
                    )))
                }
            }
        }
    }

    /// `ucinewgame` then `isready`.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), EngineError> {
        self.send("ucinewgame")?;
        self.ready(timeout)
    }

    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        log::trace!("{} < {line}", self.name);
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(EngineError::Crash("input already closed".to_string()));
        };
        let mut buf = String::with_capacity(line.len() + 1);
        buf.push_str(line);
        buf.push('\n');
        stdin
            .write_all(buf.as_bytes())
            .and_then(|_| stdin.flush())
            .map_err(|e| EngineError::Crash(format!("cannot write to the engine: {e}")))
    }

    fn recv(&mut self, deadline: Instant) -> Recv {
        let now = Instant::now();
        let wait = deadline.saturating_duration_since(now);
        match self.rx.recv_timeout(wait) {
            Ok(line) => Recv::Line(line),
            Err(RecvTimeoutError::Timeout) => Recv::Timeout,
            Err(RecvTimeoutError::Disconnected) => Recv::Closed,
        }
    }

    /// Sends `position` and `go`, and waits for `bestmove` until `deadline`. After
    /// it, sends `stop` and waits `grace` more: a move then is `Late`, none is `Hang`.
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        deadline_from_go: Duration,
        grace: Duration,
    ) -> Result<EngineReply, SearchError> {
        self.send(position).map_err(|e| self.crash_error(e))?;
        self.send(go).map_err(|e| self.crash_error(e))?;
        let start = Instant::now();
        let deadline = start + deadline_from_go;
        let mut score = None;
        let mut depth = None;
        let mut late = false;
        let mut current_deadline = deadline;
        loop {
            match self.recv(current_deadline) {
                Recv::Line(line) => {
                    if let Some(rest) = line.strip_prefix("bestmove") {
                        if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
                            continue;
                        }
                        let elapsed = start.elapsed();
                        let bestmove = rest.split_whitespace().next().unwrap_or("").to_string();
                        let result = EngineReply {
                            bestmove,
                            score,
                            depth,
                            elapsed,
                        };
                        return if late || elapsed > deadline_from_go {
                            Err(SearchError::Late(result))
                        } else {
                            Ok(result)
                        };
                    }
                    if line.starts_with("info") {
                        parse_info(&line, &mut score, &mut depth);
                    }
                }
                Recv::Timeout if !late => {
                    late = true;
                    if self.send("stop").is_err() {
                        return Err(SearchError::Crash(format!(
                            "the engine died ({})",
                            self.exit_status()
                        )));
                    }
                    current_deadline = deadline + grace;
                }
                Recv::Timeout => {
                    self.hung = true;
                    return Err(SearchError::Hang(start.elapsed()));
                }
                Recv::Closed => {
                    return Err(SearchError::Crash(format!(
                        "the engine died ({})",
                        self.exit_status()
                    )))
                }
            }
        }
    }

    fn crash_error(&mut self, e: EngineError) -> SearchError {
        SearchError::Crash(format!("{e} ({})", self.exit_status()))
    }

    /// Is the process still running (and not known to hang)?
    pub fn is_alive(&mut self) -> bool {
        !self.hung && matches!(self.child.try_wait(), Ok(None))
    }

    /// How the process ended, waiting briefly for it to finish dying.
    pub fn exit_status(&mut self) -> String {
        let until = Instant::now() + Duration::from_millis(500);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) => return "output closed, process still running".to_string(),
                Err(e) => return format!("status unknown: {e}"),
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.hung && matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.send("quit");
            self.stdin = None;
            let until = Instant::now() + Duration::from_millis(250);
            while Instant::now() < until {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        self.stdin = None;
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        // Forget the pid before reaping it: once reaped it may be reused.
        unregister_child(self.child.id());
        let _ = self.child.wait();
    }
}

/// `option name <words...> type <kind> [default ...] [min ..] [max ..] [var ..]*`.
pub fn parse_option(line: &str) -> Option<UciOption> {
    let rest = line.strip_prefix("option name ")?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    let type_at = words.iter().position(|&w| w == "type")?;
    let name = words[..type_at].join(" ");
    let kind = words.get(type_at + 1).copied().unwrap_or("").to_string();
    let keywords = ["default", "min", "max", "var", "type"];
    let mut opt = UciOption {
        name,
        kind,
        ..UciOption::default()
    };
    let mut i = type_at + 2;
    while i < words.len() {
        if keywords.contains(&words[i]) {
            let mut j = i + 1;
            let mut value = Vec::new();
            while j < words.len() && !keywords.contains(&words[j]) {
                value.push(words[j]);
                j += 1;
            }
            let value = value.join(" ");
            match words[i] {
                "var" => opt.vars.push(value),
                "min" => opt.min = value.parse().ok(),
                "max" => opt.max = value.parse().ok(),
                "default" => opt.default = Some(value),
                _ => {}
            }
            i = j;
        } else {
            i += 1;
        }
    }
    Some(opt)
}

/// Updates score and depth from an `info` line (ignores `info string`).
pub fn parse_info(line: &str, score: &mut Option<ReportedScore>, depth: &mut Option<u32>) {
    // A progress line names the iteration under way, not a finished one.
    if line.split_whitespace().any(|w| w == "currmove") {
        return;
    }
    let mut words = line.split_whitespace().skip(1);
    while let Some(w) = words.next() {
        match w {
            "string" => return,
            "depth" => {
                if let Some(d) = words.next().and_then(|x| x.parse().ok()) {
                    *depth = Some(d);
                }
            }
            "score" => match (words.next(), words.next().and_then(|x| x.parse().ok())) {
                (Some("cp"), Some(v)) => *score = Some(ReportedScore::Cp(v)),
                (Some("mate"), Some(v)) => *score = Some(ReportedScore::Mate(v)),
                _ => {}
            },
            _ => {}
        }
    }
}
