//! The referee: plays one game between two UCI engines with the same rules library
//! as the engine itself, keeps the clocks, and ends the game by the variant's
//! rules, by adjudication, or by forfeit (illegal move, time loss, crash, hang).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use shakmaty::Color;

use super::config::EngineConfig;
use super::engine::{EngineProcess, ReportedScore, SearchError};
use turncoat_rules::fen;
use turncoat_rules::game::{Game, Outcome};
use turncoat_rules::position::Position;
use turncoat_rules::variants::{Variant, VariantKind};

/// The longest time the runner accepts anywhere (clock, increment, movetime,
/// timeouts, margin), in ms: 2^31 - 1, about 24.8 days. Engines that read the
/// clock into a 32-bit integer still read it right, and the runner's own clock
/// arithmetic stays far from overflowing.
pub const MAX_TIME_MS: u64 = i32::MAX as u64;

/// [`MAX_TIME_MS`] for messages.
pub const MAX_TIME_TEXT: &str = "2147483.647 s (about 24.8 days)";

/// How long an engine gets per move.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Limit {
    /// `[moves/]base+inc`: a clock of `base_ms`, `inc_ms` added after each move,
    /// and `base_ms` added again every `moves` moves when `moves` is set.
    Clock {
        moves: Option<u32>,
        base_ms: u64,
        inc_ms: u64,
    },
    /// `go movetime N` (ms); exceeding it is a time loss.
    MoveTime(u64),
    /// `go nodes N`.
    Nodes(u64),
    /// `go depth N`.
    Depth(u32),
}

impl std::str::FromStr for Limit {
    type Err = String;
    /// `10+0.1`, `60`, `40/60+0.5` (seconds).
    fn from_str(s: &str) -> Result<Limit, String> {
        let bad =
            || format!("bad time control '{s}': expected [moves/]seconds[+increment], e.g. 10+0.1");
        let secs = |x: &str| -> Result<u64, String> {
            let v: f64 = x.trim().parse().map_err(|_| bad())?;
            if !v.is_finite() || v < 0.0 {
                return Err(bad());
            }
            Ok((v * 1000.0).round() as u64)
        };
        let (moves, rest) = match s.split_once('/') {
            Some((m, r)) => (Some(m.trim().parse::<u32>().map_err(|_| bad())?), r),
            None => (None, s),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (secs(b)?, secs(i)?),
            None => (secs(rest)?, 0),
        };
        let limit = Limit::Clock {
            moves,
            base_ms: base,
            inc_ms: inc,
        };
        limit
            .validate()
            .map_err(|e| format!("bad time control '{s}': {e}"))?;
        Ok(limit)
    }
}

impl Limit {
    /// Refuses what cannot be played: no time at all, or more than
    /// [`MAX_TIME_MS`].
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            Limit::Clock {
                moves,
                base_ms,
                inc_ms,
            } => {
                if base_ms == 0 {
                    return Err("the base time must be at least 0.001 s".to_string());
                }
                if base_ms > MAX_TIME_MS {
                    return Err(format!("the base time is more than {MAX_TIME_TEXT}"));
                }
                if inc_ms > MAX_TIME_MS {
                    return Err(format!("the increment is more than {MAX_TIME_TEXT}"));
                }
                if moves == Some(0) {
                    return Err("moves per period must be positive".to_string());
                }
            }
            Limit::MoveTime(0) => return Err("movetime must be positive".to_string()),
            Limit::MoveTime(ms) if ms > MAX_TIME_MS => {
                return Err(format!(
                    "movetime must be at most {MAX_TIME_MS} ms (about 24.8 days)"
                ))
            }
            Limit::Nodes(0) => return Err("nodes must be positive".to_string()),
            Limit::Depth(0) => return Err("depth must be positive".to_string()),
            _ => {}
        }
        Ok(())
    }

    /// Human description: `tc 10+0.1`, `movetime 100 ms`, `nodes 1000`, `depth 6`.
    pub fn describe(&self) -> String {
        match *self {
            Limit::Clock { .. } => format!("tc {}", self.pgn_tag()),
            Limit::MoveTime(ms) => format!("movetime {ms} ms"),
            Limit::Nodes(n) => format!("nodes {n}"),
            Limit::Depth(d) => format!("depth {d}"),
        }
    }

    /// The PGN `TimeControl` value: `10+0.1`, `40/60+0.5`, `0.1/move` for a fixed
    /// time per move, `-` when there is no clock (nodes, depth).
    pub fn pgn_tag(&self) -> String {
        let secs = |ms: u64| format!("{}", ms as f64 / 1000.0);
        match *self {
            Limit::Clock {
                moves,
                base_ms,
                inc_ms,
            } => {
                let mut s = String::new();
                if let Some(m) = moves {
                    let _ = write!(s, "{m}/");
                }
                s.push_str(&secs(base_ms));
                if inc_ms > 0 {
                    let _ = write!(s, "+{}", secs(inc_ms));
                }
                s
            }
            Limit::MoveTime(ms) => format!("{}/move", secs(ms)),
            Limit::Nodes(_) | Limit::Depth(_) => "-".to_string(),
        }
    }
}

/// Resign adjudication: a side loses when, for `moves` consecutive moves of each
/// engine, the loser's own score is at most `-score` and the winner's at least
/// `score` (both engines agree).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResignRule {
    pub moves: u32,
    pub score: i32,
}

/// Draw adjudication: from full move `start` on, when both engines' scores stay
/// within `score` centipawns of 0 for `moves` consecutive moves each.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DrawRule {
    pub start: u32,
    pub moves: u32,
    pub score: i32,
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// Draw when the game reaches this many full moves.
    pub max_moves: Option<u32>,
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
}

/// How the game ended (PGN `Termination` tag).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// By the variant's rules.
    Normal,
    /// Resign / draw adjudication or the maximum length.
    Adjudication,
    TimeForfeit,
    IllegalMove,
    /// The engine process died.
    Disconnect,
    /// The engine stopped answering.
    Stalled,
    /// The engine could not be (re)started or prepared for the game.
    StartFailure,
}

impl Termination {
    pub fn pgn_tag(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudication => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "rules infraction",
            Termination::Disconnect | Termination::Stalled | Termination::StartFailure => {
                "abandoned"
            }
        }
    }

    /// Parses the PGN tag (the abandoned kinds read back as `Disconnect`).
    pub fn from_pgn_tag(s: &str) -> Option<Termination> {
        Some(match s {
            "normal" => Termination::Normal,
            "adjudication" => Termination::Adjudication,
            "time forfeit" => Termination::TimeForfeit,
            "rules infraction" => Termination::IllegalMove,
            "abandoned" => Termination::Disconnect,
            _ => return None,
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    pub fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// Points for White (1, 0.5, 0).
    pub fn white_points(self) -> f64 {
        match self {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
        }
    }
}

/// One move as played, with what the engine said about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    pub token: String,
    pub score: Option<ReportedScore>,
    pub depth: Option<u32>,
    pub time_ms: u64,
}

/// Everything about a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// 1-based game number in the schedule.
    pub number: usize,
    /// Engine indices in the match's engine list.
    pub white: usize,
    pub black: usize,
    pub white_name: String,
    pub black_name: String,
    pub start_fen: String,
    pub moves: Vec<PlayedMove>,
    pub result: GameResult,
    pub termination: Termination,
    /// Human-readable ending, cutechess style: `White wins by checkmate`,
    /// `Black makes an illegal move: e2e5`, `White loses on time`.
    pub reason: String,
}

impl GameRecord {
    /// Points scored by engine `index` in this game.
    pub fn points_of(&self, index: usize) -> f64 {
        let w = self.result.white_points();
        if index == self.white {
            w
        } else {
            1.0 - w
        }
    }
}

/// Per-game settings shared by all games of a match.
#[derive(Clone, Debug)]
pub struct GameSettings {
    pub variant: VariantKind,
    /// The match's limit; an engine with its own ([`EngineConfig::limit`])
    /// plays by that instead.
    pub limit: Limit,
    /// Allowed overrun of the clock (or of `movetime`) before a time loss.
    pub time_margin: Duration,
    /// The longest a `go nodes` / `go depth` search may take.
    pub move_timeout: Duration,
    /// Handshake and `isready` timeout.
    pub start_timeout: Duration,
    /// After a deadline: how long to wait for `bestmove` after `stop`.
    pub stop_grace: Duration,
    pub adjudication: Adjudication,
}

/// An engine configuration and its process (started on demand, restarted after a
/// crash or hang).
pub struct EngineSlot {
    pub config: EngineConfig,
    engine: Option<EngineProcess>,
}

impl EngineSlot {
    pub fn new(config: EngineConfig) -> EngineSlot {
        EngineSlot {
            config,
            engine: None,
        }
    }

    /// A running, configured engine that has seen `ucinewgame`.
    fn prepare(&mut self, settings: &GameSettings) -> Result<&mut EngineProcess, String> {
        for attempt in 0..2 {
            let reuse = match self.engine.as_mut() {
                Some(e) => e.is_alive(),
                None => false,
            };
            if !reuse {
                // Kill any leftover first, then start afresh.
                self.engine = None;
                let mut e = EngineProcess::start(&self.config, settings.start_timeout)?;
                e.configure(
                    settings.variant,
                    &self.config.options,
                    settings.start_timeout,
                )?;
                self.engine = Some(e);
            }
            let Some(engine) = self.engine.as_mut() else {
                continue;
            };
            match engine.new_game(settings.start_timeout) {
                Ok(()) => break,
                Err(e) => {
                    log::warn!(
                        "engine '{}' failed to start a new game: {e}; restarting it",
                        self.config.name
                    );
                    self.engine = None;
                    if attempt == 1 || !reuse {
                        return Err(format!("engine '{}': {e}", self.config.name));
                    }
                }
            }
        }
        self.engine
            .as_mut()
            .ok_or_else(|| format!("engine '{}' could not be prepared", self.config.name))
    }

    /// Kills the process (after a hang or crash).
    fn discard(&mut self) {
        self.engine = None;
    }
}

/// The most characters of an engine's move text quoted in a message.
const MAX_QUOTED_CHARS: usize = 40;

/// An engine's move text as the log and the PGN quote it. What an engine sends
/// is data: the characters of move tokens (docs/RULES.md, "Notation") and of SAN
/// stay, anything else (a `}` that would end the PGN comment, a control
/// character) shows as `?`, and a long text is cut.
fn quoted_move(text: &str) -> String {
    let mut shown: String = text
        .chars()
        .take(MAX_QUOTED_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || ",@*=+-#/:.".contains(c) {
                c
            } else {
                '?'
            }
        })
        .collect();
    if text.chars().count() > MAX_QUOTED_CHARS {
        shown.push_str("...");
    }
    shown
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Adjudication counters: consecutive qualifying moves per colour.
#[derive(Default)]
struct AdjState {
    losing: [u32; 2],
    winning: [u32; 2],
    drawish: [u32; 2],
}

impl AdjState {
    fn update(&mut self, rules: &Adjudication, side: Color, score: Option<ReportedScore>) {
        let i = side as usize;
        match score {
            None => {
                self.losing[i] = 0;
                self.winning[i] = 0;
                self.drawish[i] = 0;
            }
            Some(s) => {
                let cp = s.as_cp();
                if let Some(r) = rules.resign {
                    self.losing[i] = if cp <= -r.score {
                        self.losing[i] + 1
                    } else {
                        0
                    };
                    self.winning[i] = if cp >= r.score {
                        self.winning[i] + 1
                    } else {
                        0
                    };
                }
                if let Some(d) = rules.draw {
                    self.drawish[i] = if cp.abs() <= d.score {
                        self.drawish[i] + 1
                    } else {
                        0
                    };
                }
            }
        }
    }

    fn verdict(&self, rules: &Adjudication, full_moves: u32) -> Option<(GameResult, String)> {
        if let Some(r) = rules.resign {
            for c in [Color::White, Color::Black] {
                let (me, them) = (c as usize, (!c) as usize);
                if self.losing[me] >= r.moves && self.winning[them] >= r.moves {
                    return Some((
                        GameResult::win_for(!c),
                        format!("{} wins by adjudication", color_name(!c)),
                    ));
                }
            }
        }
        if let Some(d) = rules.draw {
            if full_moves >= d.start && self.drawish.iter().all(|&n| n >= d.moves) {
                return Some((GameResult::Draw, "Draw by adjudication".to_string()));
            }
        }
        None
    }
}

/// Who plays, from where.
pub struct GameSpec<'a> {
    pub number: usize,
    pub white: usize,
    pub black: usize,
    pub start_fen: &'a str,
}

/// Plays one game. Returns `None` only when `stop` was raised or the runner was
/// interrupted (the game is then abandoned without a result).
pub fn play_game(
    spec: &GameSpec<'_>,
    white: &mut EngineSlot,
    black: &mut EngineSlot,
    settings: &GameSettings,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    turncoat_rules::with_variant!(settings.variant, V => play_game_v::<V>(spec, white, black, settings, stop))
}

fn play_game_v<V: Variant>(
    spec: &GameSpec<'_>,
    white: &mut EngineSlot,
    black: &mut EngineSlot,
    settings: &GameSettings,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let mut record = GameRecord {
        number: spec.number,
        white: spec.white,
        black: spec.black,
        white_name: white.config.name.clone(),
        black_name: black.config.name.clone(),
        start_fen: spec.start_fen.to_string(),
        moves: Vec::new(),
        result: GameResult::Draw,
        termination: Termination::Normal,
        reason: String::new(),
    };
    let n = spec.number;
    let finish = |record: &mut GameRecord, result, termination, reason: String| {
        record.result = result;
        record.termination = termination;
        record.reason = reason;
    };

    let start = match fen::parse::<V>(spec.start_fen) {
        Ok(p) => p,
        Err(e) => {
            // Openings are validated when loaded; this cannot happen with them.
            log::error!("game {n}: bad start position '{}': {e}", spec.start_fen);
            finish(
                &mut record,
                GameResult::Draw,
                Termination::StartFailure,
                format!("Bad start position: {e}"),
            );
            return Some(record);
        }
    };

    for (color, slot) in [(Color::White, &mut *white), (Color::Black, &mut *black)] {
        if let Err(e) = slot.prepare(settings) {
            log::error!("game {n}: {e}; {} forfeits", color_name(color));
            finish(
                &mut record,
                GameResult::win_for(!color),
                Termination::StartFailure,
                format!("{} fails to start", color_name(color)),
            );
            slot.discard();
            return Some(record);
        }
    }

    let mut game = Game::new(start);
    let mut position_cmd = if fen::format(&Position::<V>::startpos()) == spec.start_fen {
        String::from("position startpos")
    } else {
        format!("position fen {}", spec.start_fen)
    };
    let mut any_moves = false;
    // Each side's limit (index 0 = White, as the clocks): its engine's own,
    // or the match's.
    let limits = [white.config.limit, black.config.limit].map(|l| l.unwrap_or(settings.limit));
    let mut clocks: [i64; 2] = [0; 2];
    let mut moves_done = [0u32; 2];
    for (clock, limit) in clocks.iter_mut().zip(limits) {
        if let Limit::Clock { base_ms, .. } = limit {
            *clock = base_ms as i64;
        }
    }
    let margin = settings
        .time_margin
        .as_millis()
        .min(u128::from(MAX_TIME_MS)) as i64;
    let mut adj = AdjState::default();

    loop {
        if stop.load(Ordering::Relaxed) || super::engine::interrupted() {
            return None;
        }
        if let Some(outcome) = game.outcome() {
            let (result, reason) = match outcome {
                Outcome::Win { winner, reason } => (
                    GameResult::win_for(winner),
                    format!("{} wins by {reason}", color_name(winner)),
                ),
                Outcome::Draw { reason } => (GameResult::Draw, format!("Draw by {reason}")),
            };
            finish(&mut record, result, Termination::Normal, reason);
            break;
        }
        let full_moves = (game.moves.len() / 2) as u32;
        if let Some(max) = settings.adjudication.max_moves {
            if full_moves >= max {
                finish(
                    &mut record,
                    GameResult::Draw,
                    Termination::Adjudication,
                    format!("Draw by adjudication: maximum length of {max} moves"),
                );
                break;
            }
        }

        let side = game.pos.turn();
        // Clock index: 0 = White, 1 = Black (shakmaty's `Color as usize` is the
        // other way round, so never use it here).
        let si = usize::from(side == Color::Black);
        let slot: &mut EngineSlot = if side == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let Some(engine) = slot.engine.as_mut() else {
            // prepare() succeeded, so this is unreachable; end cleanly anyway.
            finish(
                &mut record,
                GameResult::win_for(!side),
                Termination::Disconnect,
                format!("{} disconnects", color_name(side)),
            );
            break;
        };
        let (go, budget) = match limits[si] {
            Limit::Clock { moves, inc_ms, .. } => {
                // Clocks above the maximum (increments and periods add up) are
                // sent as the maximum, which engines still read right. An
                // opponent that plays without a clock (its own nodes or depth)
                // is shown the mover's clock: engines plan by their own.
                let sent = |ms: i64| ms.clamp(1, MAX_TIME_MS as i64);
                let shown = |c: usize| match limits[c] {
                    Limit::Clock { inc_ms, .. } => (sent(clocks[c]), inc_ms),
                    _ => (sent(clocks[si]), inc_ms),
                };
                let ((wtime, winc), (btime, binc)) = (shown(0), shown(1));
                let mut go = format!("go wtime {wtime} btime {btime} winc {winc} binc {binc}");
                if let Some(m) = moves {
                    let _ = write!(go, " movestogo {}", m - moves_done[si] % m);
                }
                (
                    go,
                    Duration::from_millis(clocks[si].saturating_add(margin).max(0) as u64),
                )
            }
            Limit::MoveTime(ms) => (
                format!("go movetime {ms}"),
                Duration::from_millis(ms.saturating_add(margin as u64)),
            ),
            Limit::Nodes(nodes) => (format!("go nodes {nodes}"), settings.move_timeout),
            Limit::Depth(d) => (format!("go depth {d}"), settings.move_timeout),
        };
        let fen_before = fen::format(&game.pos);
        let name = slot.config.name.clone();
        let who = format!("{name} ({})", color_name(side));
        match engine.search(&position_cmd, &go, budget, settings.stop_grace) {
            Ok(r) => {
                let elapsed = r.elapsed.as_millis() as i64;
                if let Limit::Clock {
                    moves,
                    base_ms,
                    inc_ms,
                } = limits[si]
                {
                    clocks[si] = (clocks[si] - elapsed).max(0).saturating_add(inc_ms as i64);
                    moves_done[si] += 1;
                    if let Some(m) = moves {
                        if moves_done[si] % m == 0 {
                            clocks[si] = clocks[si].saturating_add(base_ms as i64);
                        }
                    }
                }
                if game.play_token(&r.bestmove).is_err() {
                    let shown = quoted_move(&r.bestmove);
                    log::warn!(
                        "game {n}: {who} plays the illegal move '{shown}' in {fen_before}; it forfeits"
                    );
                    finish(
                        &mut record,
                        GameResult::win_for(!side),
                        Termination::IllegalMove,
                        format!("{} makes an illegal move: {shown}", color_name(side)),
                    );
                    break;
                }
                position_cmd.push_str(if any_moves { " " } else { " moves " });
                any_moves = true;
                position_cmd.push_str(&r.bestmove);
                adj.update(&settings.adjudication, side, r.score);
                record.moves.push(PlayedMove {
                    token: r.bestmove,
                    score: r.score,
                    depth: r.depth,
                    time_ms: elapsed as u64,
                });
                if let Some((result, reason)) =
                    adj.verdict(&settings.adjudication, (game.moves.len() / 2) as u32)
                {
                    finish(&mut record, result, Termination::Adjudication, reason);
                    break;
                }
            }
            Err(SearchError::Late(r)) => {
                let allowed = match limits[si] {
                    Limit::Clock { .. } => format!("{} ms left on its clock", clocks[si]),
                    Limit::MoveTime(ms) => format!("movetime {ms} ms"),
                    _ => format!("move timeout {} ms", settings.move_timeout.as_millis()),
                };
                log::warn!(
                    "game {n}: {who} loses on time: its move '{}' came after {} ms with {allowed} (margin {margin} ms) in {fen_before}",
                    quoted_move(&r.bestmove),
                    r.elapsed.as_millis()
                );
                finish(
                    &mut record,
                    GameResult::win_for(!side),
                    Termination::TimeForfeit,
                    format!("{} loses on time", color_name(side)),
                );
                break;
            }
            Err(SearchError::Hang(waited)) => {
                log::warn!(
                    "game {n}: {who} stopped responding: no bestmove {} ms after '{go}', even after 'stop', in {fen_before}; killing it",
                    waited.as_millis()
                );
                slot.discard();
                finish(
                    &mut record,
                    GameResult::win_for(!side),
                    Termination::Stalled,
                    format!("{}'s connection stalls", color_name(side)),
                );
                break;
            }
            Err(SearchError::Crash(how)) => {
                log::warn!("game {n}: {who} crashed: {how}, after '{go}' in {fen_before}");
                slot.discard();
                finish(
                    &mut record,
                    GameResult::win_for(!side),
                    Termination::Disconnect,
                    format!("{} disconnects", color_name(side)),
                );
                break;
            }
        }
    }
    Some(record)
}
