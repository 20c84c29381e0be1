// The page's one interface to an engine, with its two implementations:
//
//   const backend = openBackend({ onMessage, onOpen, onClose });  // onClose(why, retryMs)
//   backend.send(request);   // the JSON messages of crates/board/src/protocol.rs
//
// `socket`: `turncoat serve`'s WebSocket (the server answers every request),
// connected again by itself when the connection drops.
// `wasm`: the same messages answered in the page by the engine compiled to
// WebAssembly (static files only, nothing to install): positions, legal moves,
// effects and PGN by the tab's session on the page's thread (the server's own
// Rust code, crates/board), searches in a Web Worker (engine-worker.js) so the
// page never waits for them.
//
// Which one: the page's <meta name="turncoat-backend">. The file as it is
// here says `wasm` (the static build copies it unchanged); `turncoat serve`
// serves it saying `socket`.

const DEFAULT_HASH_MB = 32;

export function openBackend(handlers) {
  const meta = document.querySelector('meta[name="turncoat-backend"]');
  return meta && meta.content === 'socket' ? socketBackend(handlers) : wasmBackend(handlers);
}

/** The first wait before connecting again after a lost connection, doubled
 * at each failure up to the last. */
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 8000;

function socketBackend({ onMessage, onOpen, onClose }) {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  let ws = null;
  let failures = 0;
  const connect = () => {
    ws = new WebSocket(url);
    ws.onopen = () => { failures = 0; onOpen('connected'); };
    ws.onclose = (e) => {
      // A close the server chose carries its reason (too many tabs, a message
      // too big); without one the connection was lost. Either way a new
      // session is tried, less often after each failure; the page sends it
      // its game when it says hello.
      const wait = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
      failures += 1;
      onClose(e.reason ? `The server closed the connection: ${e.reason}.` : 'The connection to the engine was lost.', wait);
      setTimeout(connect, wait);
    };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      onMessage(msg);
    };
  };
  connect();
  return {
    kind: 'socket',
    send(obj) { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj)); },
  };
}

/** Compiles the module once (streaming where the server labels it
 * application/wasm, else from its bytes). */
async function compileModule(url) {
  if (WebAssembly.compileStreaming) {
    try {
      return await WebAssembly.compileStreaming(fetch(url));
    } catch (e) {
      // A host that labels .wasm otherwise: compile from the bytes below.
      if (!(e instanceof TypeError)) throw e;
    }
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

function wasmBackend({ onMessage, onOpen, onClose }) {
  let page = null;
  let broken = false;
  const waiting = [];
  const deliver = (json) => {
    for (const msg of JSON.parse(json)) onMessage(msg);
  };
  const send = (obj) => {
    if (broken) return;
    if (!page) { waiting.push(obj); return; }
    let answers;
    try {
      answers = page.handle(JSON.stringify(obj));
    } catch (e) {
      // A panic in the module: this tab's session is gone, as a socket would be.
      broken = true;
      onClose(`The WebAssembly engine failed: ${e.message || e}.`);
      return;
    }
    // Answers arrive after `send` returns, as over a socket.
    queueMicrotask(() => deliver(answers));
  };
  let worker = null;
  (async () => {
    const glue = await import('./wasm/turncoat_wasm.js');
    const module = await compileModule(new URL('./wasm/turncoat_wasm_bg.wasm', import.meta.url));
    await glue.default({ module_or_path: module });
    worker = new SearchWorker(module, onMessage, DEFAULT_HASH_MB);
    page = new glue.Page(worker, DEFAULT_HASH_MB);
    onOpen('in this page (WebAssembly)');
    deliver(`[${page.hello()}]`);
    waiting.splice(0).forEach(send);
  })().catch((e) => {
    broken = true;
    onClose(`The WebAssembly engine could not start: ${e.message || e}.`);
  });
  // For tests and curious users: Workers started so far, and how a stop
  // reaches the search.
  const stats = () => worker && { workers: worker.spawned, stop: worker.flag ? 'shared flag' : 'new worker' };
  return { kind: 'wasm', send, stats };
}

/** The session's engine (the `WorkerProxy` of crates/wasm): one Web Worker
 * running the searches. A search runs to its end inside one call there, so a
 * stop reaches it through a flag in shared memory that it reads every 1024
 * nodes where the page may share memory (served cross-origin isolated, with
 * the COOP/COEP headers), and otherwise by ending the Worker and starting a
 * new one from the compiled module (a few milliseconds; the hash table is
 * lost, and with it what the last searches learnt). */
class SearchWorker {
  constructor(module, onMessage, hashMb) {
    this.module = module;
    this.onMessage = onMessage;
    this.hash = hashMb;
    this.worker = null;
    this.busy = false;
    this.number = 0;
    this.flag = globalThis.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
    this.spawned = 0;
    this.spawn();
  }

  spawn() {
    const w = new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' });
    w.onmessage = (e) => {
      if (w !== this.worker) return; // an ended Worker's last words
      const m = e.data;
      if (m.type === 'message') {
        this.onMessage(JSON.parse(m.json));
      } else if (m.type === 'done') {
        if (m.number === this.number) this.busy = false;
      } else if (m.type === 'failed') {
        this.end();
        this.onMessage({ type: 'error', request: 'analyse', id: null, message: `the search failed: ${m.message}` });
      }
    };
    w.onerror = (e) => {
      if (w !== this.worker) return;
      this.end();
      this.onMessage({ type: 'error', request: 'analyse', id: null, message: `the search worker failed: ${e.message || 'unknown error'}` });
    };
    w.postMessage({ type: 'init', module: this.module, hash: this.hash, flag: this.flag });
    this.worker = w;
    this.spawned += 1;
  }

  end() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.busy = false;
  }

  start(spec, job) {
    this.stop();
    if (!this.worker) this.spawn();
    this.number += 1;
    this.busy = true;
    this.worker.postMessage({ type: 'start', spec, job, number: this.number });
  }

  stop() {
    if (!this.busy) return;
    if (this.flag) {
      Atomics.store(this.flag, 0, this.number);
      this.busy = false;
    } else {
      this.end();
      this.spawn(); // ready for the next search
    }
  }

  clear() {
    if (this.worker) this.worker.postMessage({ type: 'clear' });
  }

  setHash(mb) {
    this.stop();
    if (mb === this.hash) return;
    this.hash = mb;
    this.end();
    this.spawn();
  }
}
