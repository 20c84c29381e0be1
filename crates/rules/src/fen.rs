//! FEN: the six standard fields plus the variant's seventh (docs/RULES.md "FEN").
//! Parsing says what is wrong; printing is canonical (docs/RULES.md's en passant rule,
//! seventh field always printed for variants that have state).

use std::fmt::Write as _;

use shakmaty::{attacks, Bitboard, Color, File, Piece, Rank, Role, Square};

use crate::position::Position;
use crate::variants::Variant;

/// Parses a FEN (4 to 7 fields) for variant `V`.
pub fn parse<V: Variant>(fen: &str) -> Result<Position<V>, String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() < 4 || fields.len() > 7 {
        return Err(format!(
            "FEN needs 4 to 7 space-separated fields, found {}",
            fields.len()
        ));
    }
    V::check_fen_fields(&fields)?;
    if fields.len() == 7 && fields[4].parse::<u32>().is_err() {
        return Err(format!("bad halfmove clock '{}'", fields[4]));
    }
    let mut pos = Position::<V>::empty();
    parse_board(&mut pos, fields[0])?;

    match fields[1] {
        "w" => pos.set_turn(Color::White),
        "b" => pos.set_turn(Color::Black),
        other => return Err(format!("side to move must be 'w' or 'b', found '{other}'")),
    }

    pos.set_castling(parse_castling(&pos, fields[2])?);

    let ep = match fields[3] {
        "-" => None,
        s => Some(
            s.parse::<Square>()
                .map_err(|_| format!("bad en passant square '{s}'"))?,
        ),
    };
    if let Some(sq) = ep {
        let expected = if pos.turn() == Color::White {
            Rank::Sixth
        } else {
            Rank::Third
        };
        if sq.rank() != expected {
            return Err(format!(
                "en passant square {sq} is not on rank {}",
                expected.char()
            ));
        }
        pos.set_ep(visible_ep(&pos, sq));
    }

    if let Some(h) = fields.get(4) {
        pos.set_halfmoves(
            h.parse::<u32>()
                .map_err(|_| format!("bad halfmove clock '{h}'"))?,
        );
    }
    if let Some(f) = fields.get(5) {
        let n = f
            .parse::<u32>()
            .map_err(|_| format!("bad fullmove number '{f}'"))?;
        pos.set_fullmoves(n.max(1));
    }

    let state = V::parse_state(&pos, fields.get(6).copied())?;
    pos.set_state(state);
    pos.refresh_key();
    V::validate(&pos)?;
    Ok(pos)
}

fn parse_board<V: Variant>(pos: &mut Position<V>, board: &str) -> Result<(), String> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(format!(
            "board needs 8 ranks separated by '/', found {}",
            ranks.len()
        ));
    }
    for (i, row) in ranks.iter().enumerate() {
        let rank = Rank::new(7 - i as u32);
        let mut file = 0u32;
        for ch in row.chars() {
            if let Some(d) = ch.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(format!(
                        "bad empty-square count '{ch}' in rank {}",
                        rank.char()
                    ));
                }
                file += d;
            } else {
                let role = Role::from_char(ch.to_ascii_lowercase())
                    .ok_or_else(|| format!("bad piece letter '{ch}' in rank {}", rank.char()))?;
                if file >= 8 {
                    return Err(format!("rank {} has more than 8 squares", rank.char()));
                }
                let color = Color::from_white(ch.is_ascii_uppercase());
                pos.put(
                    Square::from_coords(File::new(file), rank),
                    Piece { color, role },
                );
                file += 1;
            }
            if file > 8 {
                return Err(format!("rank {} has more than 8 squares", rank.char()));
            }
        }
        if file != 8 {
            return Err(format!(
                "rank {} has {file} squares, expected 8",
                rank.char()
            ));
        }
    }
    Ok(())
}

/// Castling rights whose king and rook stand at home; others are dropped silently.
fn parse_castling<V: Variant>(pos: &Position<V>, field: &str) -> Result<Bitboard, String> {
    let mut rights = Bitboard::EMPTY;
    if field == "-" {
        return Ok(rights);
    }
    for ch in field.chars() {
        let (color, rook_file) = match ch {
            'K' => (Color::White, File::H),
            'Q' => (Color::White, File::A),
            'k' => (Color::Black, File::H),
            'q' => (Color::Black, File::A),
            _ => return Err(format!("bad castling field '{field}'")),
        };
        let rank = color.backrank();
        let king_home = Square::from_coords(File::E, rank);
        let rook_home = Square::from_coords(rook_file, rank);
        if pos.piece_at(king_home) == Some(color.king())
            && pos.piece_at(rook_home) == Some(color.rook())
        {
            rights.add(rook_home);
        }
    }
    Ok(rights)
}

/// docs/RULES.md: the en passant field names the passed square only when a pawn of the
/// side to move attacks it (pins ignored) and an enemy pawn stands just past it.
fn visible_ep<V: Variant>(pos: &Position<V>, sq: Square) -> Option<Square> {
    if !V::EN_PASSANT {
        return None;
    }
    let us = pos.turn();
    let pushed = Square::from_coords(
        sq.file(),
        if us == Color::White {
            Rank::Fifth
        } else {
            Rank::Fourth
        },
    );
    let attackers = attacks::pawn_attacks(!us, sq) & pos.by_piece(us.pawn());
    let pushed_ok = pos.piece_at(pushed) == Some((!us).pawn()) && !pos.occupied().contains(sq);
    (attackers.any() && pushed_ok).then_some(sq)
}

/// Prints the FEN, with the seventh field where the variant has one.
pub fn format<V: Variant>(pos: &Position<V>) -> String {
    let mut s = String::with_capacity(90);
    for r in (0..8).rev() {
        let mut empty = 0;
        for f in 0..8 {
            let sq = Square::from_coords(File::new(f), Rank::new(r));
            match pos.piece_at(sq) {
                Some(p) => {
                    if empty > 0 {
                        let _ = write!(s, "{empty}");
                        empty = 0;
                    }
                    s.push(p.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            let _ = write!(s, "{empty}");
        }
        if r > 0 {
            s.push('/');
        }
    }
    s.push(' ');
    s.push(if pos.turn() == Color::White { 'w' } else { 'b' });
    s.push(' ');
    let c = pos.castling();
    let mut any = false;
    for (sq, ch) in [
        (Square::H1, 'K'),
        (Square::A1, 'Q'),
        (Square::H8, 'k'),
        (Square::A8, 'q'),
    ] {
        if c.contains(sq) {
            s.push(ch);
            any = true;
        }
    }
    if !any {
        s.push('-');
    }
    match pos.ep_square() {
        Some(ep) => {
            let _ = write!(s, " {ep}");
        }
        None => s.push_str(" -"),
    }
    let _ = write!(s, " {} {}", pos.halfmoves(), pos.fullmoves());
    if let Some(extra) = V::format_state(pos) {
        s.push(' ');
        s.push_str(&extra);
    }
    s
}

/// A board diagram for the UCI `d` command (Stockfish's layout).
pub fn diagram<V: Variant>(pos: &Position<V>) -> String {
    let mut s = String::new();
    s.push_str("\n +---+---+---+---+---+---+---+---+\n");
    for r in (0..8).rev() {
        for f in 0..8 {
            let sq = Square::from_coords(File::new(f), Rank::new(r));
            let ch = pos.piece_at(sq).map_or(' ', |p| p.char());
            let _ = write!(s, " | {ch}");
        }
        let _ = writeln!(s, " | {}", r + 1);
        s.push_str(" +---+---+---+---+---+---+---+---+\n");
    }
    s.push_str("   a   b   c   d   e   f   g   h\n");
    s
}
