//! What the opening explorer's memory really is: a binary of its own whose
//! allocator counts the bytes held, so that the explorer's bound
//! (`MAX_EXPLORER_BYTES`, counted at `EXPLORER_ENTRY_BYTES` a move) is the
//! memory it takes. Games of random moves make nearly every position new,
//! the explorer's worst case.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use turncoat_board::explorer::{Explorer, EXPLORER_ENTRY_BYTES, MAX_EXPLORER_PLIES};
use turncoat_rules::live::{LiveGame, Start};
use turncoat_rules::variants::VariantKind;

/// The system allocator, counting the bytes held (asked for, not the
/// allocator's own rounding: the explorer's blocks are large).
struct Counting;

static HELD: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as isize, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        HELD.fetch_add(new_size as isize - layout.size() as isize, Ordering::SeqCst);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `games` chess games of random legal moves (a fixed seed), each as long
/// as the explorer counts unless it ends first, as PGN in SAN.
fn random_games(games: usize) -> String {
    let mut seed: u64 = 0x5eed;
    let mut next = move |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n
    };
    let mut text = String::new();
    for _ in 0..games {
        let mut game = LiveGame::new(VariantKind::Chess, Start::Startpos).expect("start");
        for ply in 0..MAX_EXPLORER_PLIES {
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = &legal[next(legal.len())];
            if ply % 2 == 0 {
                text.push_str(&format!("{}. ", ply / 2 + 1));
            }
            text.push_str(&m.text);
            text.push(' ');
            game.play(&m.token).expect("a legal move");
        }
        text.push_str("*\n\n");
    }
    text
}

/// One counted move costs at most EXPLORER_ENTRY_BYTES, the tokens included
/// (the old explorer, a FEN string and a map of tokens a position, took
/// about 500 bytes a position).
#[test]
fn memory_per_entry() {
    let text = random_games(1500);
    let mut explorer = Explorer::default();
    let before = HELD.load(Ordering::SeqCst);
    let added = explorer.add_pgn(&text).expect("games");
    let held = (HELD.load(Ordering::SeqCst) - before) as usize;
    assert_eq!((added.games, added.skipped, added.full), (1500, 0, 0));
    let entries = explorer.entries();
    // Random moves: past the first plies every position is new.
    assert!(
        entries > 1300 * MAX_EXPLORER_PLIES,
        "{entries} counted moves"
    );
    let per_entry = held as f64 / entries as f64;
    let per_position = held as f64 / explorer.positions() as f64;
    println!(
        "{entries} counted moves at {} positions: {held} bytes held, {per_entry:.1} a move, \
         {per_position:.1} a position; counted as {}",
        explorer.positions(),
        explorer.bytes()
    );
    assert!(
        per_position <= EXPLORER_ENTRY_BYTES as f64,
        "{per_position:.1} bytes a position"
    );
    // The explorer's own count is no less than what it holds: its bound
    // bounds the memory.
    assert!(explorer.bytes() >= held, "{} < {held}", explorer.bytes());
    drop(explorer);
}
