//! Turncoat in the browser: the web board's backend compiled to WebAssembly.
//!
//! Two halves, one module. On the page's thread, [`Page`] is the tab's
//! session ([`turncoat_board::session::Session`], the very code `turncoat
//! serve` runs per WebSocket) answering positions, legal moves, effects and
//! PGN at once. Its engine is a proxy the page hands in (`static/engine.js`):
//! searches run in a Web Worker, where [`Searcher`] holds the engine
//! ([`turncoat_board::analysis::Tab`], again the server's code) and posts what
//! it finds as the server's JSON. A browser's WebAssembly has one thread, so a
//! search runs to its end inside one call; it is stopped either through a
//! shared flag it polls every 1024 nodes (where the page may share memory:
//! cross-origin isolated) or by the page ending the Worker.
//!
//! Also the benchmarks and checks the tests run in the browser: [`perft()`],
//! [`search_position()`], [`bench()`], [`dot_kernel()`], [`check_dot_kernel()`].

use std::cell::RefCell;
use std::sync::Arc;

use wasm_bindgen::prelude::*;

use turncoat_board::analysis::{Job, Sink, Tab};
use turncoat_board::board::{self, Spec};
use turncoat_board::protocol::Response;
use turncoat_board::session::{EngineHost, Session};
use turncoat_engine::nnue;
use turncoat_rules::{fen, perft as rules_perft, with_variant};

// ------------------------------------------------------------ the page's side

#[wasm_bindgen]
extern "C" {
    /// The page's handle on the search Worker (`static/engine.js`).
    pub type WorkerProxy;

    #[wasm_bindgen(method, catch)]
    fn start(this: &WorkerProxy, spec: &str, job: &str) -> Result<(), JsValue>;

    #[wasm_bindgen(method)]
    fn stop(this: &WorkerProxy);

    #[wasm_bindgen(method)]
    fn clear(this: &WorkerProxy);

    #[wasm_bindgen(method, js_name = setHash)]
    fn set_hash(this: &WorkerProxy, megabytes: u32);
}

/// The session's engine: the Worker behind the proxy, one search thread.
struct Host {
    proxy: WorkerProxy,
    analysing: bool,
    hash_mb: u64,
}

impl EngineHost for Host {
    fn start(&mut self, spec: &Spec, job: Job) -> Result<(), String> {
        let job_text = serde_json::to_string(&job).map_err(|e| e.to_string())?;
        self.analysing = false;
        self.proxy
            .start(&spec.to_json(), &job_text)
            .map_err(|e| format!("the search worker: {}", describe(&e)))?;
        self.analysing = matches!(job, Job::Analyse { .. });
        Ok(())
    }

    fn stop(&mut self) {
        self.analysing = false;
        self.proxy.stop();
    }

    fn clear(&mut self) {
        self.proxy.clear();
    }

    fn is_analysing(&self) -> bool {
        self.analysing
    }

    fn set_options(&mut self, hash: Option<u64>, _threads: Option<u64>) -> Result<(), String> {
        self.stop();
        if let Some(h) = hash {
            // Within the bounds (checked by the session): fits u32.
            self.proxy.set_hash(h as u32);
            self.hash_mb = h;
        }
        Ok(())
    }

    fn hash_mb(&self) -> u64 {
        self.hash_mb
    }

    fn threads(&self) -> u64 {
        1
    }

    fn max_threads(&self) -> u64 {
        1
    }
}

fn describe(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| js_sys::Error::from(e.clone()).message().as_string())
        .unwrap_or_else(|| "failed".to_string())
}

/// One tab's session on the page's thread.
#[wasm_bindgen]
pub struct Page {
    session: Session<Host>,
}

#[wasm_bindgen]
impl Page {
    /// A session whose searches go to `proxy`'s Worker (its hash table of
    /// `hash_mb` MB).
    #[wasm_bindgen(constructor)]
    pub fn new(proxy: WorkerProxy, hash_mb: u32) -> Page {
        Page {
            session: Session::new(Host {
                proxy,
                analysing: false,
                hash_mb: u64::from(hash_mb),
            }),
        }
    }

    /// The `hello` message, as JSON.
    pub fn hello(&self) -> String {
        self.session.hello().to_json()
    }

    /// Answers one request (JSON text); the answers, as a JSON array of the
    /// server's messages.
    pub fn handle(&mut self, request: &str) -> String {
        let mut out = Vec::new();
        self.session
            .handle(request, &mut |r: Response| out.push(r.to_json()));
        format!("[{}]", out.join(","))
    }
}

// ---------------------------------------------------------- the Worker's side

thread_local! {
    /// Where the Worker's searches post their messages (JSON text).
    static POST: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    /// The shared stop flag (cross-origin isolated pages only) and the number
    /// of the job running: the page stores a job's number in the flag to stop
    /// it.
    static STOP: RefCell<Option<(js_sys::Int32Array, i32)>> = const { RefCell::new(None) };
}

fn post(response: Response) {
    POST.with(|p| {
        if let Some(f) = p.borrow().as_ref() {
            let _ = f.call1(&JsValue::NULL, &JsValue::from(response.to_json()));
        }
    });
}

/// The search's poll: has the page asked the running job to stop?
fn stop_requested() -> bool {
    STOP.with(|s| {
        s.borrow().as_ref().is_some_and(|(flag, job)| {
            js_sys::Atomics::load(flag, 0).is_ok_and(|stopped| stopped >= *job)
        })
    })
}

/// The Worker's engine.
#[wasm_bindgen]
pub struct Searcher {
    tab: Tab,
}

#[wasm_bindgen]
impl Searcher {
    /// An engine with a `hash_mb` MB table, posting its messages (JSON text)
    /// to `post`; `stop_flag`, an `Int32Array` over a `SharedArrayBuffer`
    /// where the page has one, is polled every 1024 nodes.
    #[wasm_bindgen(constructor)]
    pub fn new(
        hash_mb: u32,
        post_message: js_sys::Function,
        stop_flag: Option<js_sys::Int32Array>,
    ) -> Result<Searcher, JsError> {
        POST.with(|p| *p.borrow_mut() = Some(post_message));
        STOP.with(|s| *s.borrow_mut() = stop_flag.map(|f| (f, i32::MAX)));
        let sink: Sink = Arc::new(post);
        let tab = Tab::with_hash(u64::from(hash_mb), sink)
            .map_err(|e| JsError::new(&e))?
            .with_interrupt(stop_requested);
        Ok(Searcher { tab })
    }

    /// Runs `job` (JSON) on `spec`'s game (JSON) to its end, posting the
    /// messages on the way; `number` is what the page writes into the stop
    /// flag to stop it.
    pub fn start(&mut self, spec: &str, job: &str, number: i32) -> Result<(), JsError> {
        let spec = Spec::from_json(spec).map_err(|e| JsError::new(&e))?;
        let job: Job = serde_json::from_str(job).map_err(|e| JsError::new(&e.to_string()))?;
        STOP.with(|s| {
            if let Some((_, running)) = s.borrow_mut().as_mut() {
                *running = number;
            }
        });
        self.tab.start(&spec, job).map_err(|e| JsError::new(&e))
    }

    /// A new game or another variant: forget what was learnt.
    pub fn clear(&mut self) {
        self.tab.clear();
    }
}

// ------------------------------------------------ benchmarks and same answers

fn variant(name: &str) -> Result<turncoat_rules::variants::VariantKind, JsError> {
    board::parse_variant(name).map_err(|e| JsError::new(&e))
}

/// Perft of `fen` (a FEN of `variant`) to `depth`, one thread.
#[wasm_bindgen]
pub fn perft(variant_name: &str, fen_text: &str, depth: u32) -> Result<f64, JsError> {
    let v = variant(variant_name)?;
    let nodes =
        with_variant!(v, V => fen::parse::<V>(fen_text).map(|p| rules_perft::perft(&p, depth)))
            .map_err(|e| JsError::new(&e.to_string()))?;
    // Counts in the tests are far below 2^53: exact as a JavaScript number.
    Ok(nodes as f64)
}

/// The bench's fixed-depth search of one position: `{"best", "score",
/// "depth", "nodes"}`.
#[wasm_bindgen]
pub fn search_position(variant_name: &str, fen_text: &str, depth: u32) -> Result<String, JsError> {
    let r = turncoat_engine::bench::search_position(variant(variant_name)?, fen_text, depth)
        .map_err(|e| JsError::new(&e.to_string()))?;
    Ok(serde_json::json!({
        "best": r.best,
        "score": r.score,
        "depth": r.depth,
        "nodes": r.nodes,
    })
    .to_string())
}

/// `turncoat bench` of one variant: `{"nodes", "millis"}`.
#[wasm_bindgen]
pub fn bench(variant_name: &str, depth: u32) -> Result<String, JsError> {
    let r = turncoat_engine::bench::run(variant(variant_name)?, depth)
        .map_err(|e| JsError::new(&e.to_string()))?;
    Ok(serde_json::json!({ "nodes": r.nodes, "millis": r.millis as u64 }).to_string())
}

/// The network kernel this build uses ("simd128" in the browser build).
#[wasm_bindgen]
pub fn dot_kernel() -> String {
    nnue::dot_kernel().to_string()
}

/// Compares the build's network kernel with the scalar one on `rounds`
/// pseudo-random vectors within the loader's bounds (activations past both
/// clamps, weights up to the largest allowed); returns how many differed.
#[wasm_bindgen]
pub fn check_dot_kernel(rounds: u32, seed: u32) -> u32 {
    let mut state = u64::from(seed) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut differ = 0;
    for round in 0..rounds {
        let len = nnue::WIDTH_STEP * (1 + round as usize % (nnue::MAX_HIDDEN / nnue::WIDTH_STEP));
        let acc: Vec<i16> = (0..len).map(|_| (next() % 700) as i16 - 200).collect();
        // As the loader allows: |w| <= MAX_OUTPUT_WEIGHT and QA^2 * sum(|w|)
        // within i32.
        let qa2 = i64::from(nnue::QA * nnue::QA);
        let most = (nnue::MAX_OUTPUT_WEIGHT as i64).min(i64::from(i32::MAX) / qa2 / len as i64);
        let w: Vec<i16> = (0..len)
            .map(|_| (next() % (2 * most as u64 + 1)) as i16 - most as i16)
            .collect();
        if nnue::screlu_dot(&acc, &w) != nnue::screlu_dot_scalar(&acc, &w) {
            differ += 1;
        }
    }
    differ
}
