//! Perft: the judge of the move generator and the benchmark of its speed.
//! Counts legal moves only (draw rules do not cut it), with bulk counting at the
//! last ply, and splits the tree over rayon's pool when asked for threads.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::game;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::variants::Variant;

/// Leaf count of the legal-move tree of `depth` plies.
pub fn perft<V: Variant>(pos: &Position<V>, depth: u32) -> u64 {
    perft_until(pos, depth, &AtomicBool::new(false))
}

/// [`perft`] that gives up (returning a partial count) once `stop` is set, so a
/// front end can interrupt a deep count the way it stops a search.
pub fn perft_until<V: Variant>(pos: &Position<V>, depth: u32, stop: &AtomicBool) -> u64 {
    let mut buffers: Vec<MoveList> = (0..=depth).map(|_| MoveList::with_capacity(256)).collect();
    perft_inner(pos, depth, &mut buffers, stop)
}

fn perft_inner<V: Variant>(
    pos: &Position<V>,
    depth: u32,
    buffers: &mut [MoveList],
    stop: &AtomicBool,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    // Checked only near the root's end of the tree: a load per node would cost.
    if depth >= 3 && stop.load(Ordering::Relaxed) {
        return 0;
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    if depth == 1 {
        return V::count_legal_moves(pos, moves);
    }
    moves.clear();
    V::legal_moves(pos, moves);
    let mut nodes = 0;
    for &mv in moves.iter() {
        let mut child = *pos;
        game::play(&mut child, mv);
        nodes += perft_inner(&child, depth - 1, rest, stop);
    }
    nodes
}

/// Per-root-move counts (`divide`), in generation order, with tokens.
pub fn divide<V: Variant>(pos: &Position<V>, depth: u32, threads: usize) -> Vec<(String, u64)> {
    divide_until(pos, depth, threads, &AtomicBool::new(false))
        .expect("an unset stop flag never interrupts")
}

/// [`divide`] that returns `None` when `stop` was set before it finished.
pub fn divide_until<V: Variant>(
    pos: &Position<V>,
    depth: u32,
    threads: usize,
    stop: &AtomicBool,
) -> Option<Vec<(String, u64)>> {
    let mut roots = MoveList::new();
    V::legal_moves(pos, &mut roots);
    let count = |mv: &Move| {
        let mut child = *pos;
        game::play(&mut child, *mv);
        (
            game::token(pos, *mv),
            if depth <= 1 {
                1
            } else {
                perft_until(&child, depth - 1, stop)
            },
        )
    };
    let lines: Vec<(String, u64)> = if threads <= 1 || depth <= 2 {
        roots.iter().map(count).collect()
    } else {
        run_in_pool(threads, || roots.par_iter().map(count).collect())
    };
    (!stop.load(Ordering::Relaxed)).then_some(lines)
}

/// Total count, parallel over the first two plies when `threads > 1`.
pub fn perft_parallel<V: Variant>(pos: &Position<V>, depth: u32, threads: usize) -> u64 {
    if threads <= 1 || depth <= 3 {
        return perft(pos, depth);
    }
    // Split two plies deep: hundreds of tasks balance two cores far better than
    // the twenty root moves would.
    let mut roots = MoveList::new();
    V::legal_moves(pos, &mut roots);
    let mut tasks: Vec<Position<V>> = Vec::new();
    let mut replies = MoveList::new();
    for &mv in &roots {
        let mut child = *pos;
        game::play(&mut child, mv);
        replies.clear();
        V::legal_moves(&child, &mut replies);
        for &reply in &replies {
            let mut grandchild = child;
            game::play(&mut grandchild, reply);
            tasks.push(grandchild);
        }
    }
    run_in_pool(threads, || {
        tasks.par_iter().map(|p| perft(p, depth - 2)).sum()
    })
}

fn run_in_pool<T: Send>(threads: usize, job: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(job),
        Err(e) => {
            log::warn!("could not build a {threads}-thread pool ({e}); running on the global pool");
            job()
        }
    }
}
