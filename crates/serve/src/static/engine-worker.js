// The Web Worker that searches for the page's WebAssembly backend
// (backend.js): it holds the engine (crates/wasm's Searcher) and runs one job
// at a time to its end, posting the server's JSON messages as it goes.
import { initSync, Searcher } from './wasm/turncoat_wasm.js';

let searcher = null;

self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.type === 'init') {
      initSync({ module: m.module });
      searcher = new Searcher(m.hash, (json) => self.postMessage({ type: 'message', json }), m.flag || undefined);
    } else if (m.type === 'start') {
      searcher.start(m.spec, m.job, m.number);
      self.postMessage({ type: 'done', number: m.number });
    } else if (m.type === 'clear') {
      searcher.clear();
    }
  } catch (err) {
    self.postMessage({ type: 'failed', number: m.number, message: String((err && err.message) || err) });
  }
};
