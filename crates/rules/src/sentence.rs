//! Each move's effect said in plain words, for a board's status line and a
//! move's title: `the pawn on d7 shoots the missile down on e6`, `the missile
//! detonates on f7: the bishop is removed; the king on g8 goes to h8`,
//! `3 pieces change colour in 2 rounds`, `the knight on c3 is subverted for a
//! pawn`. Built only from what the rulebook says the move is and does
//! ([`Variant::action`], [`Variant::effects`]) and the board before it, so a
//! variant's sentences follow its rules without a second copy of them.

use shakmaty::{Color, Role, Square};

use crate::live::{Action, Effects, Extra, MissileEvent, Why};
use crate::moves::Move;
use crate::position::{Board, Position};
use crate::variants::Variant;

/// What playing `mv` (legal in `pos`) does, in words: clauses joined by `; `,
/// in the order things happen (a missile's detonation before the reply).
pub fn say<V: Variant>(pos: &Position<V>, mv: Move) -> String {
    let (action, extras) = V::action(pos, mv);
    let fx = V::effects(pos, mv);
    said(pos.board(), pos.turn(), &action, &extras, &fx)
}

/// [`say`] from its parts: the board before the move, the side moving, what
/// the move is and what it does.
pub fn said(
    before: &Board,
    mover: Color,
    action: &Action,
    extras: &[Extra],
    fx: &Effects,
) -> String {
    let mut clauses = Vec::new();
    for event in &fx.missile {
        if let MissileEvent::Detonated(flight) = event {
            let blown = fx.removed.iter().find(|r| r.why == Why::BlownUp);
            clauses.push(match blown {
                Some(r) => format!(
                    "the missile detonates on {}: the {} is removed",
                    flight.target,
                    name(r.piece.role)
                ),
                None => format!("the missile detonates on {}", flight.target),
            });
        }
    }
    clauses.push(main_clause(before, mover, action, fx));
    for extra in extras {
        match *extra {
            Extra::Relocate { from, to } if from == to => {
                clauses.push(format!("the pawn on {from} stays"));
            }
            Extra::Relocate { from, to } => {
                clauses.push(format!("the pawn on {from} goes to {to}{}", taking(fx, to)));
            }
            Extra::Create { at } => {
                clauses.push(format!("a new pawn appears on {at}{}", taking(fx, at)));
            }
            Extra::Spare => {}
        }
    }
    if !matches!(action, Action::Subvert { .. }) && !fx.converted.is_empty() {
        let rounds = fx.cascade.len();
        clauses.push(match fx.converted.as_slice() {
            [sq] => format!("{} changes colour", piece_after(before, fx, *sq)),
            all if rounds > 1 => format!("{} pieces change colour in {rounds} rounds", all.len()),
            all => format!("{} pieces change colour", all.len()),
        });
    }
    match fx.spared.as_slice() {
        [] => {}
        [sq] => clauses.push(format!("{} keeps its colour", piece_on(before, *sq))),
        all => clauses.push(format!("{} pieces keep their colour", all.len())),
    }
    clauses.join("; ")
}

/// The move itself: a piece's move or capture, a castling, a shoot-down, a
/// subversion, a launch or self-detonation.
fn main_clause(before: &Board, mover: Color, action: &Action, fx: &Effects) -> String {
    match action {
        Action::Move {
            from,
            to,
            promotion,
        } => {
            let promotes = promotion.map_or(String::new(), |role| {
                format!(" and promotes to {}", with_article(role))
            });
            let shot = fx.missile.iter().find_map(|e| match e {
                MissileEvent::ShotDown { at, .. } => Some(*at),
                _ => None,
            });
            if let Some(at) = shot {
                return format!(
                    "{} shoots the missile down on {at}{promotes}",
                    piece_on(before, *from)
                );
            }
            if before.role_at(*from) == Some(Role::King)
                && from.file().distance(to.file()) == 2
                && fx.moved.len() >= 2
            {
                let side = if to.file() > from.file() {
                    "king"
                } else {
                    "queen"
                };
                return format!("{} castles {side}-side", colour_name(mover));
            }
            let mover_piece = piece_on(before, *from);
            let en_passant = Square::from_coords(to.file(), from.rank());
            let victim = fx.removed.iter().find(|r| {
                r.why == Why::Captured
                    && (r.square == *to
                        || (r.square == en_passant
                            && before.role_at(*from) == Some(Role::Pawn)
                            && before.piece_at(*to).is_none()))
            });
            match victim {
                Some(r) if r.square == *to => format!(
                    "{mover_piece} takes the {} on {to}{promotes}",
                    name(r.piece.role)
                ),
                Some(r) => format!(
                    "{mover_piece} takes the {} on {} en passant",
                    name(r.piece.role),
                    r.square
                ),
                None => format!("{mover_piece} goes to {to}{promotes}"),
            }
        }
        Action::Subvert { target, paid } => {
            let roles: Vec<Role> = paid.iter().filter_map(|&sq| before.role_at(sq)).collect();
            format!(
                "{} is subverted for {}",
                piece_on(before, *target),
                payment(&roles)
            )
        }
        Action::Launch { from, path } => match path.last() {
            None => format!("{} detonates itself", piece_on(before, *from)),
            Some(&target) => {
                let squares: Vec<String> = path.iter().map(Square::to_string).collect();
                format!(
                    "{} flies {} at {}",
                    piece_on(before, *from),
                    squares.join("-"),
                    piece_on(before, target)
                )
            }
        },
    }
}

/// ` and takes the bishop` when a piece was captured on `sq` (a placed
/// pawn's capture), else nothing.
fn taking(fx: &Effects, sq: Square) -> String {
    fx.removed
        .iter()
        .find(|r| r.square == sq && r.why == Why::Captured)
        .map_or(String::new(), |r| {
            format!(" and takes the {}", name(r.piece.role))
        })
}

/// What was paid, the most valuable first: `a pawn`, `2 bishops`, `a knight
/// and 3 pawns`, `a rook, a bishop and a knight`.
fn payment(roles: &[Role]) -> String {
    let order = [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ];
    let groups: Vec<String> = order
        .iter()
        .filter_map(|&role| match roles.iter().filter(|&&r| r == role).count() {
            0 => None,
            1 => Some(with_article(role)),
            n => Some(format!("{n} {}s", name(role))),
        })
        .collect();
    match groups.as_slice() {
        [] => "nothing".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `the knight on c3`: the piece standing on `sq` before the move.
fn piece_on(before: &Board, sq: Square) -> String {
    match before.role_at(sq) {
        Some(role) => format!("the {} on {sq}", name(role)),
        None => format!("the piece on {sq}"),
    }
}

/// The piece standing on `sq` after the move (the mover's piece, promoted,
/// where it moved to; else the one that stood there).
fn piece_after(before: &Board, fx: &Effects, sq: Square) -> String {
    let role = match fx.promoted {
        Some((at, role)) if at == sq => Some(role),
        _ => match fx.moved.iter().find(|&&(_, to)| to == sq) {
            Some(&(from, _)) => before.role_at(from),
            None => before.role_at(sq),
        },
    };
    match role {
        Some(role) => format!("the {} on {sq}", name(role)),
        None => format!("the piece on {sq}"),
    }
}

fn name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

fn with_article(role: Role) -> String {
    format!("a {}", name(role))
}

fn colour_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}
