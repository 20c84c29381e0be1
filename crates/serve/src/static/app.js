// Turncoat web board. The page has no chess rules of its own: the backend
// (turncoat serve's WebSocket, or the engine compiled to WebAssembly in this
// page: backend.js) sends the legal moves of each position with the clicks
// that enter each, what the last move did and the variant's state, and the
// page only matches clicks against those steps and draws.
import { Chessground } from './vendor/chessground.min.js';
import { openBackend } from './backend.js';
import { createEditor } from './editor.js';

const $ = (id) => document.getElementById(id);
const t0 = performance.now();

// ---------------------------------------------------------------- state

const state = {
  variants: [],
  startFens: {},
  variant: 'chess',
  orientation: 'white',
  // The game tree: nodes {token, san, parent, children, fen, ply}.
  root: null,
  node: null,
  info: null, // the server's description of the current node
  sel: [], // the clicks (and choices) so far
  analysing: false,
  multipv: 3,
  analysis: null,
  playing: false, // play vs Turncoat
  userSide: 'white',
  waitingEngine: false,
  games: [],
  ended: null, // a resignation or agreed draw: { node, kind }
};

// For tests and curious users: timings in ms.
window.turncoat = {
  state,
  timings: { firstRender: null, lastMove: null, analysisFirstLine: null, analysisUpdates: 0, stop: null, gameAnalysis: null },
};
const timings = window.turncoat.timings;

// ---------------------------------------------------------------- backend

let backend;
let nextId = 1;
const pending = new Map(); // id -> callback(ok, msg)

function connect() {
  backend = openBackend({
    onMessage,
    onOpen: (what) => {
      $('conn').textContent = what;
      if (disconnected) { disconnected = false; clearError(); }
    },
    // `retryMs`: when the backend tries again by itself (the server's
    // socket); without it nothing works any more.
    onClose: (why, retryMs) => {
      disconnected = true;
      explorerLost();
      if (retryMs == null) {
        $('conn').textContent = 'disconnected — reload the page';
        showError(why, true);
        return;
      }
      const secs = Math.max(1, Math.round(retryMs / 1000));
      $('conn').textContent = `disconnected — reconnecting in ${secs} s…`;
      showError(`${why} Trying again in ${secs} s.`, true);
    },
  });
  window.turncoat.backend = backend.kind;
  window.turncoat.backendStats = () => (backend.stats ? backend.stats() : null);
}
let disconnected = false;

function send(obj) {
  if (backend) backend.send(obj);
}

/** A position request; `cb(ok, msg)` gets the answer. */
function requestPosition(variant, fen, moves, cb) {
  heading = null; // any other request overtakes a step (goTo sets it again)
  const id = nextId++;
  pending.set(id, cb);
  lastPositionRequest = id;
  send({ type: 'position', id, variant, fen, moves });
}
let lastPositionRequest = 0;

function onMessage(msg) {
  switch (msg.type) {
    case 'hello':
      state.variants = msg.variants;
      msg.variants.forEach((v, i) => { state.startFens[v] = msg.start_fens[i]; });
      $('variant').innerHTML = msg.variants.map((v) => `<option value="${v}">${v}</option>`).join('');
      $('variant').value = state.variant;
      if (state.root) { resync(); break; } // the server again, after a lost connection
      fillThreads(msg.max_threads || 1);
      startup();
      break;
    case 'position': {
      const cb = pending.get(msg.id);
      pending.delete(msg.id);
      // The user's last action wins: an answer overtaken by a newer request
      // (a click, then at once another move or a new game) is dropped.
      if (cb && msg.id === lastPositionRequest) cb(true, msg);
      break;
    }
    case 'error': {
      const cb = msg.id != null ? pending.get(msg.id) : null;
      if (cb) {
        pending.delete(msg.id);
        if (msg.id === lastPositionRequest) cb(false, msg);
        return;
      }
      if (msg.request === 'explorer_add') { onExplorerRefused(msg.message); break; }
      showError(msg.message);
      if (msg.request === 'go') { state.waitingEngine = false; }
      if (msg.request === 'evaluate' || msg.request === 'game_report') stopGameAnalysis();
      break;
    }
    case 'analysis':
      onAnalysis(msg);
      break;
    case 'stopped':
      if (stopSentAt !== null) { timings.stop = performance.now() - stopSentAt; stopSentAt = null; }
      break;
    case 'bestmove':
      onBestmove(msg);
      break;
    case 'evaluation':
      onEvaluation(msg);
      break;
    case 'game_report':
      onGameReport(msg);
      break;
    case 'pgn':
      onPgn(msg.games);
      break;
    case 'pgn_text':
      onPgnText(msg.text);
      break;
    case 'explorer':
      onExplorer(msg);
      break;
    case 'explored':
      onExplored(msg);
      break;
    default:
      break;
  }
}

// ---------------------------------------------------------------- errors

let errorTimer = null;
/** Shows `text`; it hides after 8 s unless `sticky`. */
function showError(text, sticky = false) {
  const el = $('error');
  el.textContent = text;
  el.hidden = false;
  clearTimeout(errorTimer);
  if (!sticky) errorTimer = setTimeout(() => { el.hidden = true; }, 8000);
}
function clearError() { $('error').hidden = true; }

// ---------------------------------------------------------------- game tree

function makeNode(parent, token, san) {
  return { token, san, parent, children: [], ply: parent ? parent.ply + 1 : 0 };
}

function pathTokens(node) {
  const out = [];
  for (let n = node; n && n.parent; n = n.parent) out.push(n.token);
  return out.reverse();
}

function newGame(variant, fen, done) {
  requestPosition(variant, fen, [], (ok, msg) => {
    if (!ok) { showError(msg.message); if (done) done(false, msg); return; }
    clearError();
    stopGameAnalysis();
    state.ended = null;
    if (!state.playing) { clock.on = false; clock.initial = 0; $('clocks').hidden = true; }
    state.variant = variant;
    $('variant').value = variant;
    state.root = makeNode(null, null, null);
    state.root.startFen = msg.start_fen;
    state.root.startPly = msg.start_ply;
    state.node = state.root;
    show(msg);
    if (done) done(true);
  });
}

// ---------------------------------------------------------------- a game is a link

// The address's fragment holds the game shown, so that copying the address
// shares it and a reload restores it:
//   #v=VARIANT&fen=START&m=TOKEN_TOKEN_...&p=PLY
// `fen` only when the game does not start from the variant's start position
// (spaces written `_`), `m` the line through the position shown to its end (the
// main line past it), `p` the ply shown. Tokens keep `@`, `,` and `*` as they
// are; `_` appears in no token or FEN.

const linkText = (s) => encodeURIComponent(s).replace(/%40/g, '@').replace(/%2C/g, ',').replace(/%2F/g, '/');

function linkOf() {
  let end = state.node;
  while (end.children.length) end = end.children[0];
  const parts = [`v=${linkText(state.variant)}`];
  if (state.root.startFen !== state.startFens[state.variant]) parts.push(`fen=${linkText(state.root.startFen.replace(/ /g, '_'))}`);
  const moves = pathTokens(end);
  if (moves.length) parts.push(`m=${moves.map(linkText).join('_')}`, `p=${state.node.ply}`);
  return '#' + parts.join('&');
}

function updateLink() {
  if (!state.root || restoring) return;
  const link = linkOf();
  if (location.hash !== link) history.replaceState(null, '', link);
  saveGame();
}

// ---------------------------------------------------------------- a game that survives

// The whole game (variations too, and the position shown) is kept in the
// browser's storage at every change, and restored when the page opens: with
// no game in the address, or with the address this page itself last wrote
// (a reload); an address that says otherwise (a shared link) wins. After a
// lost connection the page sends the server its game again (resync).

const STORE_KEY = 'turncoat.game';

/** The tree as a flat list in preorder: [parent's index (-1: the start),
 * token, SAN] (flat: a 2000-ply game nests no deeper than a short one). */
function flatTree(root) {
  const out = [];
  const index = new Map([[root, -1]]);
  const walk = [root];
  while (walk.length) {
    const n = walk.pop();
    for (let i = n.children.length - 1; i >= 0; i--) walk.push(n.children[i]);
    if (n !== root) {
      index.set(n, out.length);
      const notes = notesOf(n);
      out.push(notes ? [index.get(n.parent), n.token, n.san, notes] : [index.get(n.parent), n.token, n.san]);
    }
  }
  return { nodes: out, current: index.get(state.node) ?? -1 };
}

function saveGame() {
  const { nodes, current } = flatTree(state.root);
  const stored = { link: linkOf(), variant: state.variant, fen: state.root.startFen, nodes, current };
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(stored));
  } catch {
    // Storage refused (full, or disabled): the address still holds the line.
  }
}

/** The stored game, if there is one of the right shape. */
function storedGame() {
  let g;
  try { g = JSON.parse(localStorage.getItem(STORE_KEY)); } catch { return null; }
  const ok = g && typeof g.variant === 'string' && typeof g.fen === 'string' && typeof g.link === 'string'
    && Array.isArray(g.nodes) && Number.isInteger(g.current)
    && g.nodes.every((n, i) => Array.isArray(n) && Number.isInteger(n[0]) && n[0] >= -1 && n[0] < i && typeof n[1] === 'string');
  return ok ? g : null;
}

/** The game to show when the page opens. */
function startup() {
  const link = parseLink(location.hash);
  const stored = storedGame();
  if (stored && (!link || stored.link === location.hash)) {
    restoring = true;
    restoreStored(stored).catch(() => false).then((ok) => {
      restoring = false;
      if (ok) updateLink();
      else if (!restoreLink()) newGame(state.variant, null);
    });
    return;
  }
  if (!restoreLink()) newGame(state.variant, null);
}

/** Rebuilds a stored game, every line checked by the backend (a line that
 * no longer plays is cut where it stops, and the page says so); false when
 * its start is refused. Lines of any length: each is checked in parts. */
async function restoreStored(g) {
  if (!state.variants.includes(g.variant)) return false;
  const start = await ask(g.variant, g.fen, []);
  if (!start.ok) return false;
  const root = makeNode(null, null, null);
  root.startFen = start.msg.start_fen;
  root.startPly = start.msg.start_ply;
  root.fen = start.msg.fen;
  const nodes = g.nodes.map(() => null);
  g.nodes.forEach(([p, token, san, notes], i) => {
    const parent = p < 0 ? root : nodes[p];
    if (!parent) return;
    nodes[i] = makeNode(parent, token, typeof san === 'string' ? san : token);
    if (notes && typeof notes === 'object') setNotes(nodes[i], notes);
    parent.children.push(nodes[i]);
  });
  const attached = (n) => { for (; n.parent; n = n.parent) if (!n.parent.children.includes(n)) return false; return true; };
  const cut = [];
  for (const leaf of nodes.filter((n) => n && !n.children.length)) {
    if (!attached(leaf)) continue; // under a move already cut
    // From the nearest position already checked (a line shared with one
    // checked before is not checked again).
    const line = [];
    let from = leaf;
    for (; !from.fen; from = from.parent) line.unshift(from);
    const checked = await checkLine(g.variant, from.fen, line.map((n) => n.token), from.ply);
    // The moves as the backend writes them now.
    line.slice(0, checked.good).forEach((n, i) => { n.san = checked.sans[i] || n.token; });
    for (const [ply, fen] of checked.fens) line[ply - from.ply - 1].fen = fen;
    if (checked.good < line.length) {
      const bad = line[checked.good];
      bad.parent.children = bad.parent.children.filter((c) => c !== bad);
      if (!cut.includes(checked.error)) cut.push(checked.error);
    }
  }
  // The position shown, if it is still in the tree.
  let node = g.current >= 0 ? nodes[g.current] : root;
  if (!node || !attached(node)) node = root;
  const shown = await askNode(g.variant, node);
  if (!shown.ok) return false;
  stopGameAnalysis();
  state.ended = null;
  state.variant = g.variant;
  $('variant').value = g.variant;
  state.root = root;
  state.node = node;
  show(shown.msg);
  if (cut.length) showError(`The stored game is shown up to what can be played: ${cut.join('; ')}.`, true);
  return true;
}

/** After a lost connection, a new session on the server: the game shown,
 * and what was running (analysis, the engine's move, a whole-game
 * analysis), asked for again. */
function resync() {
  pending.clear();
  send({ type: 'options', threads: +$('threads').value, hash: +$('hash').value });
  goTo(state.node);
  if (state.analysing) send({ type: 'analyse', multipv: state.multipv });
  if (state.playing) { state.waitingEngine = false; maybeEngineMove(); }
  if (game.run) { game.run.requestId = null; nextEvaluation(); }
}

/** The game in a fragment, or null when it holds none. */
function parseLink(hash) {
  const fields = new Map();
  for (const part of hash.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    let value;
    try { value = decodeURIComponent(part.slice(eq + 1)); } catch { value = part.slice(eq + 1); }
    fields.set(part.slice(0, eq), value);
  }
  if (!fields.has('v')) return null;
  const fen = (fields.get('fen') || '').replace(/[_+]/g, ' ').trim();
  const moves = (fields.get('m') || '').split(/[_+ ]+/).filter((t) => t);
  const ply = fields.has('p') ? parseInt(fields.get('p'), 10) : moves.length;
  return { variant: fields.get('v'), fen: fen || null, moves, ply: Number.isFinite(ply) ? ply : moves.length };
}

const ask = (variant, fen, moves) => new Promise((resolve) => {
  requestPosition(variant, fen, moves, (ok, msg) => resolve({ ok, msg }));
});

let restoring = false;

/** Loads the game of the address's fragment, if it holds one; what in it
 * cannot be played is said, and the legal part kept. */
function restoreLink() {
  const link = parseLink(location.hash);
  if (!link) return false;
  restoring = true;
  loadLink(link).finally(() => { restoring = false; updateLink(); });
  return true;
}

async function loadLink(link) {
  const problems = [];
  let { variant, fen, moves } = link;
  if (!state.variants.includes(variant)) {
    problems.push(`unknown variant '${variant}'`);
    [variant, fen, moves] = ['chess', null, []];
  }
  let start = await ask(variant, fen, []);
  if (!start.ok) {
    problems.push(start.msg.message);
    [fen, moves] = [null, []];
    start = await ask(variant, fen, []);
    if (!start.ok) return;
  }
  const root = makeNode(null, null, null);
  root.startFen = start.msg.start_fen;
  root.startPly = start.msg.start_ply;
  root.fen = start.msg.fen;
  // A link holds a line of any length: it is checked in parts.
  const checked = await checkLine(variant, root.startFen, moves, 0);
  if (checked.error) problems.push(checked.error);
  const line = [];
  let node = root;
  moves.slice(0, checked.good).forEach((tok, i) => {
    const child = makeNode(node, tok, checked.sans[i] || tok);
    node.children.push(child);
    node = child;
    line.push(child);
  });
  for (const [ply, f] of checked.fens) line[ply - 1].fen = f;
  const ply = Math.max(0, Math.min(link.ply, line.length));
  const shownNode = ply ? line[ply - 1] : root;
  const at = await askNode(variant, shownNode);
  if (!at.ok) return;
  stopGameAnalysis();
  state.ended = null;
  state.variant = variant;
  $('variant').value = variant;
  state.root = root;
  state.node = shownNode;
  show(at.msg);
  if (problems.length) showError(`This link's game is shown up to what can be played: ${problems.join('; ')}.`, true);
  else clearError();
}

/** Checks `tokens` played from `fen` (the FEN of the position after `ply`
 * plies of the game), however many: in requests of at most
 * MAX_REQUEST_MOVES moves, each from the position the one before reached
 * (what is legal is the position's, and its FEN holds it whole). Returns
 * how many moves play (`good`), their readable text, the FEN reached after
 * each request (`fens`: [ply, FEN], positions to ask later ones from) and,
 * when a move is refused, why, its number counted from the game's start. */
async function checkLine(variant, fen, tokens, ply) {
  const sans = [];
  const fens = [];
  let base = fen;
  for (let from = 0; from < tokens.length; from += MAX_REQUEST_MOVES) {
    const part = tokens.slice(from, from + MAX_REQUEST_MOVES);
    const answer = await ask(variant, base, part);
    if (answer.ok) {
      part.forEach((t, i) => sans.push(answer.msg.sans[i] || t));
      base = answer.msg.fen;
      fens.push([ply + from + part.length, base]);
      continue;
    }
    // The longest playable beginning: legality of a prefix is monotone.
    let [lo, hi] = [0, part.length - 1]; // prefix lo plays; prefix hi + 1 does not
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if ((await ask(variant, base, part.slice(0, mid))).ok) lo = mid; else hi = mid - 1;
    }
    if (lo) {
      const kept = await ask(variant, base, part.slice(0, lo));
      if (kept.ok) {
        part.slice(0, lo).forEach((t, i) => sans.push(kept.msg.sans[i] || t));
        fens.push([ply + from + lo, kept.msg.fen]);
      } else {
        lo = 0;
      }
    }
    // The backend numbers the moves of its request: the game's are wanted.
    const error = answer.msg.message.replace(/^move (\d+):/, (_, k) => `move ${ply + from + Number(k)}:`);
    return { good: from + lo, sans, fens, error };
  }
  return { good: tokens.length, sans, fens, error: null };
}

/** The position of `node` of a game of `variant` (as goTo asks it). */
const askNode = (variant, node) => new Promise((resolve) => {
  requestLine(node, [], (ok, msg) => resolve({ ok, msg }), variant);
});

window.addEventListener('hashchange', () => {
  const link = parseLink(location.hash);
  if (link && location.hash !== linkOf()) { stopPlaying(); restoreLink(); }
});

/** Shows `node` (asking the server for its position). */
function goTo(node) {
  if (!node) return;
  requestLine(node, [], (ok, msg) => {
    heading = null;
    if (!ok) { showError(msg.message); return; }
    node.fen = msg.fen;
    state.node = node;
    show(msg);
  });
  heading = node;
}

/** Most moves one position request may carry (the backend's MAX_MOVES). */
const MAX_REQUEST_MOVES = 2000;
/** A FEN's halfmove clock (0 right after a capture or a pawn move). */
const halfmoveOf = (fen) => parseInt(fen.split(' ')[4], 10);

/** Asks for `node`'s position, then the `extra` tokens played from it. A
 * longer game than one request carries is asked from the FEN of an ancestor
 * already seen, preferably one right after an irreversible move (the rules
 * then still see every earlier position a repetition could involve); when
 * none is near enough, one halfway up is fetched first. */
function requestLine(node, extra, cb, variant = state.variant) {
  const path = pathTokens(node).concat(extra);
  if (path.length <= MAX_REQUEST_MOVES) {
    let root = node;
    while (root.parent) root = root.parent;
    requestPosition(variant, root.startFen, path, cb);
    return;
  }
  const tail = extra.slice();
  let n = node;
  // From a strict ancestor when no move follows: the answer then says what
  // the last move did.
  if (!tail.length) { tail.unshift(n.token); n = n.parent; }
  let known = null;
  let fresh = null;
  for (; n && n.parent && tail.length <= MAX_REQUEST_MOVES; n = n.parent) {
    if (n.fen) {
      known = known || { fen: n.fen, moves: tail.slice() };
      if (halfmoveOf(n.fen) === 0) { fresh = { fen: n.fen, moves: tail.slice() }; break; }
    }
    tail.unshift(n.token);
  }
  const base = fresh || known;
  if (base) {
    requestPosition(variant, base.fen, base.moves, cb);
    return;
  }
  let a = node;
  for (let i = 0; i < MAX_REQUEST_MOVES / 2 && a.parent; i++) a = a.parent;
  requestLine(a, [], (ok, msg) => {
    if (!ok) { cb(false, msg); return; }
    a.fen = msg.fen;
    requestLine(node, extra, cb, variant);
  }, variant);
}

// Where the last step through the moves is going, until its answer comes:
// the next key press steps on from there, so quick presses are not lost.
let heading = null;
const here = () => heading || state.node;

/** Plays the tokens from the current node (after the server checked them). */
function playTokens(tokens, sans, onError, onPlayed) {
  const from = state.node;
  const clickTime = performance.now();
  requestLine(from, tokens, (ok, msg) => {
    if (!ok) {
      if (onError) onError(msg); else showError(msg.message);
      render();
      return;
    }
    clearError();
    let n = from;
    tokens.forEach((tok, i) => {
      let child = n.children.find((c) => c.token === tok);
      if (!child) {
        const san = i === tokens.length - 1 ? msg.last.san : (sans && sans[i]) || tok;
        child = makeNode(n, tok, san);
        n.children.push(child);
      }
      n = child;
    });
    if (tokens.length === 1) clockMoved(n);
    n.fen = msg.fen;
    state.node = n;
    show(msg);
    timings.lastMove = performance.now() - clickTime;
    if (onPlayed) onPlayed();
    maybeEngineMove();
  });
}

// ---------------------------------------------------------------- layout

// The board takes the room it has: beside the panel when both fit (the
// panel at its least width), above it when not (a phone), and never so tall
// that the controls under it leave the window. Whole pixels per square keep
// the squares sharp.

/** The right panel's least width beside the board (as app.css's #right). */
const PANEL_MIN_PX = 340;
/** The smallest board put beside the panel; narrower, the panel goes under. */
const BESIDE_MIN_PX = 320;
/** Never smaller than this, however short the window. */
const BOARD_MIN_PX = 192;

function fitBoard() {
  const root = document.documentElement;
  const px = (el, prop) => parseFloat(getComputedStyle(el)[prop]) || 0;
  const main = document.querySelector('main');
  const left = $('left');
  const bar = $('evalbar').offsetWidth + px($('boardrow'), 'columnGap');
  const column = root.clientWidth - px(main, 'paddingLeft') - px(main, 'paddingRight') - bar;
  const beside = column - px(main, 'columnGap') - PANEL_MIN_PX;
  const width = beside >= BESIDE_MIN_PX ? beside : column;
  // Under the board: the controls' first row, the hint, status and effects
  // lines (at their least height), the gaps between and main's padding.
  const gap = px(left, 'rowGap');
  const under = $('last').offsetHeight + px($('hint'), 'minHeight') + px($('status'), 'minHeight')
    + px($('effects'), 'minHeight') + 4 * gap + px(main, 'paddingBottom');
  const top = $('boardrow').getBoundingClientRect().top + window.scrollY;
  const height = window.innerHeight - top - under;
  const size = Math.max(BOARD_MIN_PX, Math.floor(Math.min(width, height) / 8) * 8);
  root.style.setProperty('--board', `${size}px`);
  window.turncoat.boardSize = size;
}
window.addEventListener('resize', fitBoard);

/** Scrolls the list `list` (and not the page: on a phone the list is under
 * the board, which must stay in view) to show its item `item`. */
function scrollIntoList(list, item) {
  const box = list.getBoundingClientRect();
  const at = item.getBoundingClientRect();
  if (at.top < box.top) list.scrollTop += at.top - box.top;
  else if (at.bottom > box.bottom) list.scrollTop += at.bottom - box.bottom;
}

// ---------------------------------------------------------------- board

fitBoard(); // the board's size before chessground measures it

// Chessground drags pieces and draws the user's arrows and circles; the
// clicks that enter moves are the page's own (below): its selection is off,
// and a drop is the page's two clicks (see "drag and drop").
const cg = Chessground($('board'), {
  coordinates: true,
  animation: { enabled: true, duration: 150 },
  highlight: { lastMove: true, check: false },
  movable: { free: false, color: undefined, showDests: false, events: { after: (orig, dest) => afterDrop(orig, dest) } },
  draggable: { enabled: true, showGhost: true, deleteOnDropOff: false },
  selectable: { enabled: false },
  premovable: { enabled: false },
  drawable: {
    enabled: true,
    visible: true,
    // lichess's analysis board: any left click on the board clears them.
    eraseOnMovablePieceClick: true,
    onChange: (shapes) => onShapesDrawn(shapes),
    brushes: {
      green: { key: 'g', color: '#15781B', opacity: 1, lineWidth: 10 },
      red: { key: 'r', color: '#882020', opacity: 1, lineWidth: 10 },
      blue: { key: 'b', color: '#003088', opacity: 1, lineWidth: 10 },
      yellow: { key: 'y', color: '#e68f00', opacity: 1, lineWidth: 10 },
      paleBlue: { key: 'pb', color: '#003088', opacity: 0.4, lineWidth: 15 },
      paleGreen: { key: 'pg', color: '#15781B', opacity: 0.4, lineWidth: 15 },
      paleRed: { key: 'pr', color: '#882020', opacity: 0.4, lineWidth: 15 },
      paleGrey: { key: 'pgr', color: '#4a4a4a', opacity: 0.35, lineWidth: 15 },
      best: { key: 'bst', color: '#003088', opacity: 0.8, lineWidth: 12 },
      alt: { key: 'alt', color: '#003088', opacity: 0.4, lineWidth: 9 },
      missile: { key: 'mis', color: '#d4350b', opacity: 0.85, lineWidth: 8 },
      link: { key: 'lnk', color: '#7a5cc2', opacity: 0.6, lineWidth: 4 },
      cascade: { key: 'cas', color: '#e0a000', opacity: 0.95, lineWidth: 6 },
    },
  },
});

function sqOf(el, e) {
  const r = el.getBoundingClientRect();
  const fx = Math.floor(((e.clientX - r.left) / r.width) * 8);
  const fy = Math.floor(((e.clientY - r.top) / r.height) * 8);
  if (fx < 0 || fx > 7 || fy < 0 || fy > 7) return null;
  const file = state.orientation === 'white' ? fx : 7 - fx;
  const rank = state.orientation === 'white' ? 7 - fy : fy;
  return 'abcdefgh'[file] + (rank + 1);
}

// A press is a click (a drag's press too: it selects the piece dragged).
// Shift with the left button draws, as the right button does (chessground).
$('board').addEventListener('pointerdown', (e) => {
  // Chessground keeps the press from moving the focus: take it from a text
  // field here, or the keys (arrows, Enter) would stay the field's.
  const focused = document.activeElement;
  if (focused && focused !== document.body && !$('board').contains(focused)) focused.blur();
  if (e.button !== 0 || e.shiftKey) return;
  const sq = sqOf($('board'), e);
  if (sq) clickSquare(sq);
});

// ---------------------------------------------------------------- drag and drop

// Chessground moves a dragged piece (mouse or finger) between the squares
// of the legal moves' first from->to steps. A drop is the page's click on
// the destination after one on the origin: a move so entered is played,
// and the rest of a longer one (a promotion's piece, an attendant's square,
// Cowardly Crew's choice) goes on by clicks, the piece shown where it was
// dropped meanwhile. A drop elsewhere puts the piece back; nothing is sent.

/** The legal moves' first from->to steps, as chessground's `movable.dests`
 * (a subversion starts on its target and a launch on its pawn twice: clicks). */
function dragDests(msg) {
  const dests = new Map();
  for (const m of msg.legal_moves) {
    if (m.kind === 'subversion') continue;
    const [from, to] = m.steps;
    if (!isSquare(from) || !isSquare(to) || from === to) continue;
    if (!dests.has(from)) dests.set(from, []);
    if (!dests.get(from).includes(to)) dests.get(from).push(to);
  }
  return dests;
}

window.turncoat.cg = cg; // for tests: the board as chessground holds it

// What chessground shows: the FEN last given to it, whether a drop moved a
// piece since, and the drop still waiting (its position, squares, and the
// request of the move it played, if it played one).
const boardView = { fen: null, moved: false, drop: null };

// The drop is taken at the pointer's release, before anything else can
// come in: chessground tells of its move only on a timer, after which a
// quick click (the attendant's square) would have been taken first.
let dropTaken = null;
document.addEventListener('pointerup', (e) => {
  const cur = cg.state.draggable.current;
  if (!cur || !cur.started || cur.newPiece || !state.dragDests) return;
  const dest = sqOf($('board'), e);
  if (!dest || dest === cur.orig || cg.state.movable.color !== cur.piece.color) return;
  if (!(state.dragDests.get(cur.orig) || []).includes(dest)) return; // chessground puts it back
  dropTaken = { orig: cur.orig, dest };
  onDrop(cur.orig, dest);
});

/** Chessground's word that it moved a piece: the drop taken already (then
 * only the board to settle), or one the release did not see. */
function afterDrop(orig, dest) {
  const taken = dropTaken;
  dropTaken = null;
  if (taken && taken.orig === orig && taken.dest === dest) {
    boardView.moved = true;
    render();
    return;
  }
  onDrop(orig, dest);
}

function onDrop(orig, dest) {
  boardView.moved = true;
  boardView.drop = { info: state.info, orig, dest, request: null };
  const [selBefore, requestBefore] = [state.sel, lastPositionRequest];
  const sel = [orig];
  state.sel = sel;
  clickSquare(dest);
  if (state.sel === sel) state.sel = selBefore; // refused (not the user's move): as it was
  if (lastPositionRequest !== requestBefore) boardView.drop.request = lastPositionRequest;
  render(); // a drop refused goes back at once
}

/** Whether the dropped piece stays where it was dropped: its move is on
 * its way, or the clicks that finish it are awaited. */
function dropHeld(info) {
  const d = boardView.drop;
  if (!d || d.info !== info) return false;
  if (d.request !== null) return pending.has(d.request);
  return state.sel.length >= 2 && state.sel[0] === d.orig && state.sel[1] === d.dest;
}

/** `config` for chessground with the pieces (unless a drop is held), what
 * may be dragged, and the user's shapes of the position shown. */
function withBoardInput(info, config) {
  const held = dropHeld(info);
  if (!held) boardView.drop = null;
  if (!held && (boardView.fen !== info.fen || boardView.moved)) {
    config.fen = info.fen; // chessground reads the board field and stops at the space
    boardView.fen = info.fen;
    boardView.moved = false;
  }
  // The side to move's pieces drag; a drop the page refuses (Turncoat's
  // move in a game against it) goes back.
  config.movable = { color: info.outcome ? undefined : info.turn, dests: state.dragDests };
  config.drawable = { shapes: shapesOf(state.node) };
  return config;
}

// ---------------------------------------------------------------- arrows and circles

// The user's shapes (right button: drag an arrow, click a circle; with
// shift or ctrl red, alt blue, both yellow, as on lichess) belong to the
// position they were drawn on: kept with its node of the move tree, shown
// again when it is, beside the engine's arrows. A left click on the board
// clears them.

function shapesOf(node) {
  return node && node.shapes ? node.shapes.map((s) => ({ ...s })) : [];
}

function onShapesDrawn(shapes) {
  if (!state.node) return;
  state.node.shapes = shapes.map(({ orig, dest, brush }) => (dest ? { orig, dest, brush } : { orig, brush }));
}

// ---------------------------------------------------------------- moves -> clicks

/** How a legal move is entered, from the server's steps (squares, or choices
 * `=q`, `,n`): in order, or for a subversion a target and a set of payment
 * squares. */
function entryOf(m) {
  if (m.kind === 'subversion') return { kind: m.kind, subv: true, target: m.steps[0], pay: m.steps.slice(1) };
  return { kind: m.kind, steps: m.steps };
}

const isSquare = (s) => /^[a-h][1-8]$/.test(s);

/** Tokens matching the current clicks: those complete now, and the next steps. */
function matches(sel) {
  const exact = [];
  const next = new Map(); // step -> tokens
  const add = (s, t) => { if (!next.has(s)) next.set(s, []); next.get(s).push(t); };
  for (const t of (state.info ? state.info.legal : [])) {
    const p = state.parsed.get(t);
    if (p.subv) {
      if (sel.length === 0) { add(p.target, t); continue; }
      if (sel[0] !== p.target) continue;
      const rest = sel.slice(1);
      if (!rest.every((s) => p.pay.includes(s))) continue;
      if (rest.length === p.pay.length) exact.push(t);
      else p.pay.filter((s) => !rest.includes(s)).forEach((s) => add(s, t));
    } else {
      const st = p.steps;
      if (st.length < sel.length) continue;
      let ok = true;
      for (let i = 0; i < sel.length; i++) if (st[i] !== sel[i]) { ok = false; break; }
      if (!ok) continue;
      if (st.length === sel.length) exact.push(t);
      else add(st[sel.length], t);
    }
  }
  return { exact, next };
}

function isSubvSel(sel) {
  return sel.length > 0 && state.info && state.info.legal.some((t) => {
    const p = state.parsed.get(t);
    return p.subv && p.target === sel[0];
  });
}

function clickSquare(sq) {
  if (!state.info || state.info.outcome || state.waitingEngine) return;
  if (state.playing && state.info.turn !== state.userSide) return;
  const sel = state.sel;
  // Subversion: a payment square clicked again is taken back.
  if (sel.length > 1 && isSubvSel(sel) && sel.slice(1).includes(sq)) {
    state.sel = sel.filter((s) => s !== sq);
    return advance();
  }
  const m = matches(sel);
  if (m.next.has(sq)) {
    state.sel = sel.concat([sq]);
    return advance();
  }
  // Not a continuation: deselect, or start a new move from this square.
  const wasLast = sel.length > 0 && sel[sel.length - 1] === sq;
  state.sel = [];
  if (!wasLast && matches([]).next.has(sq)) state.sel = [sq];
  advance();
}

function choose(step) {
  state.sel = state.sel.concat([step]);
  advance();
}

/** After a click or choice: play the move if it is settled, else show what
 * continues it. */
function advance() {
  const m = matches(state.sel);
  if (state.sel.length > 0 && m.exact.length === 1 && m.next.size === 0) {
    const tok = m.exact[0];
    state.sel = [];
    hideChooser();
    playTokens([tok]);
    return;
  }
  if (state.sel.length > 0 && m.exact.length === 0 && m.next.size === 0) state.sel = [];
  renderSelection();
}

const PIECE_NAMES = { q: '♛ Queen', r: '♜ Rook', b: '♝ Bishop', n: '♞ Knight' };

function renderSelection() {
  const m = matches(state.sel);
  const sel = state.sel;
  const choices = [...m.next.keys()].filter((s) => !isSquare(s));
  const squares = [...m.next.keys()].filter(isSquare);
  const showChooser = sel.length > 0 && (choices.length > 0 || (m.exact.length === 1 && m.next.size > 0));
  if (showChooser) {
    const buttons = [];
    if (m.exact.length === 1) buttons.push({ label: exactLabel(m.exact[0], sel), tok: m.exact[0], def: true });
    for (const c of choices.sort((a, b) => 'qrbn'.indexOf(a[1]) - 'qrbn'.indexOf(b[1]))) {
      let label = c;
      if (c.startsWith('=')) label = PIECE_NAMES[c[1]] || c;
      else if (c === ',n') label = 'Spare (no conversion)';
      buttons.push({ label, step: c, def: !m.exact.length && c === '=q' });
    }
    showChooserButtons(buttons);
  } else {
    hideChooser();
  }
  $('hint').textContent = hintFor(sel, m, squares);
  render();
}

function exactLabel(tok, sel) {
  const kind = state.parsed.get(tok).kind;
  if (kind === 'subversion') return 'Subvert now (Enter)';
  if (kind === 'detonation') return 'Self-detonate (Enter)';
  // A capture that can also spare (Cowardly Crew's `,n`): the plain one converts.
  if (state.parsed.has(`${tok},n`)) return 'Convert (Enter)';
  return `Play ${tok} (Enter)`;
}

function hintFor(sel, m, squares) {
  if (sel.length === 0) return '';
  if (isSubvSel(sel)) {
    return sel.length === 1 ? `Subvert ${sel[0]}: click the pieces to pay with` : `Subvert ${sel[0]} paying ${sel.slice(1).join(', ')}${squares.length ? ': more payment squares are lit' : ''}`;
  }
  // Only a missile's clicks name the same square twice (the pawn arms it).
  if (sel.length >= 2 && sel[0] === sel[1]) {
    return `Missile armed on ${sel[0]}: click its path square by square${m.exact.length ? ', or self-detonate' : ''}` + (sel.length > 2 ? ` (path ${sel.slice(2).join(' ')})` : '');
  }
  // A piece's move whose clicks go on to a square past its destination
  // places an attendant (Attending Pawns).
  if (sel.length >= 2 && squares.some((s) => m.next.get(s).some((t) => state.parsed.get(t).kind === 'move'))) {
    return `Now click the square for the attendant pawn`;
  }
  if (sel.length === 1 && m.next.has(sel[0])) {
    return `Selected ${sel[0]}: click a destination, or the pawn again to arm a missile`;
  }
  return `Selected ${sel.filter(isSquare).join(' → ')}`;
}

let chooserButtons = [];
function showChooserButtons(buttons) {
  chooserButtons = buttons;
  const el = $('chooser');
  el.innerHTML = '';
  for (const b of buttons) {
    const btn = document.createElement('button');
    btn.textContent = b.label;
    if (b.def) btn.className = 'default';
    btn.dataset.step = b.step || '';
    btn.dataset.token = b.tok || '';
    btn.addEventListener('pointerdown', (e) => e.stopPropagation());
    btn.addEventListener('click', (e) => {
      e.stopPropagation();
      if (b.tok) { state.sel = []; hideChooser(); playTokens([b.tok]); } else choose(b.step);
    });
    el.appendChild(btn);
  }
  const cancel = document.createElement('button');
  cancel.textContent = '✕';
  cancel.title = 'Cancel (Esc)';
  cancel.addEventListener('pointerdown', (e) => e.stopPropagation());
  cancel.addEventListener('click', (e) => { e.stopPropagation(); state.sel = []; hideChooser(); renderSelection(); });
  el.appendChild(cancel);
  el.hidden = false;
}
function hideChooser() { $('chooser').hidden = true; chooserButtons = []; }
$('chooser').addEventListener('pointerdown', (e) => e.stopPropagation());

// ---------------------------------------------------------------- display

function show(msg) {
  soundOfShow(msg);
  state.info = msg;
  // Who can never mate here: a flag fall against the other side is a draw.
  if (state.node) state.node.cannotMate = msg.cannot_mate || [];
  state.dragDests = dragDests(msg);
  state.parsed = new Map(msg.legal_moves.map((m) => [m.token, entryOf(m)]));
  state.sel = [];
  hideChooser();
  $('fen').value = msg.fen;
  $('fen').classList.remove('bad');
  $('hint').textContent = '';
  if (state.analysis && state.analysis.fen !== msg.fen) state.analysis = null;
  // What each move of the line shown did, in words: its title in the move list.
  for (let n = state.node, i = msg.moves.length - 1; n && n.parent && i >= 0 && n.token === msg.moves[i]; n = n.parent, i--) n.said = msg.said[i];
  render();
  renderStatus();
  renderMoves();
  renderLines();
  renderGraph();
  updateLink();
  explore();
  // The game is over: so is the play.
  if (state.playing && msg.outcome) stopPlaying();
  if (timings.firstRender === null) timings.firstRender = performance.now();
}

function render() {
  const info = state.info;
  if (!info) return;
  const custom = new Map();
  const addClass = (sq, c) => custom.set(sq, ((custom.get(sq) || '') + ' ' + c).trim());
  const shapes = [];
  const last = info.last;
  if (last) {
    // The ring has the colour the piece now has: the mover's in most
    // variants, the other side's where a piece turns after its own move
    // (the Andernach variants).
    last.converted.forEach((sq) => { const c = colourOn(info.fen, sq); if (c) addClass(sq, 'conv-' + c); });
    last.removed.forEach((sq) => addClass(sq, 'removed'));
    if (last.kind === 'subversion') last.squares.slice(1).forEach((sq) => addClass(sq, 'paid'));
    last.cascade.forEach((round, i) => round.forEach((sq) => shapes.push({ orig: sq, brush: 'cascade', label: { text: String(i + 1), fill: '#e0a000' } })));
  }
  if (info.check) addClass(info.check, 'check');
  if (info.missile) {
    const path = [info.missile.launch, ...info.missile.path];
    for (let i = 0; i + 1 < path.length; i++) shapes.push({ orig: path[i], dest: path[i + 1], brush: 'missile' });
    info.missile.shootable.forEach((sq) => addClass(sq, 'shoot'));
    addClass(info.missile.target, 'target');
  }
  if ($('links-toggle').checked) {
    for (const [c, p] of info.links) shapes.push({ orig: c, dest: p, brush: 'link' });
  }
  // The clicks so far and what continues them.
  const m = matches(state.sel);
  if (state.sel.length) {
    state.sel.filter(isSquare).forEach((sq) => addClass(sq, 'sel'));
    const pieces = cg.state.pieces;
    for (const s of m.next.keys()) {
      if (!isSquare(s)) continue;
      if (state.sel.includes(s)) addClass(s, 'arm');
      else addClass(s, pieces.has(s) ? 'dest-oc' : 'dest');
    }
  }
  // Engine arrows.
  if (state.analysing && state.analysis && state.analysis.fen === info.fen) {
    state.analysis.lines.forEach((l, i) => {
      if (l.pv.length) shapes.push(...arrowsFor(l.pv[0], i === 0 ? 'best' : 'alt'));
    });
  }
  let lastMove;
  if (last) {
    if (last.kind !== 'move') lastMove = last.squares.slice(0, 1);
    else lastMove = last.squares.slice(0, 2);
  }
  cg.set(withBoardInput(info, {
    orientation: state.orientation,
    turnColor: info.turn,
    lastMove: lastMove && lastMove.length ? lastMove : undefined,
    highlight: { lastMove: true, check: false, custom },
  }));
  cg.setAutoShapes(shapes);
}

/** The colour of the piece on `sq` in a FEN's board field, or null. */
function colourOn(fen, sq) {
  const rows = fen.split(' ')[0].split('/');
  const row = rows[8 - Number(sq[1])];
  if (!row) return null;
  let file = 0;
  const want = sq.charCodeAt(0) - 97;
  for (const ch of row) {
    if (/[1-8]/.test(ch)) { file += Number(ch); continue; }
    if (!/[a-zA-Z]/.test(ch)) continue;
    if (file === want) return ch === ch.toUpperCase() ? 'white' : 'black';
    file += 1;
  }
  return null;
}

/** Arrows for a line's first move, one of the current position's legal moves. */
function arrowsFor(tok, brush) {
  const p = state.parsed.get(tok);
  if (!p) return [];
  if (p.subv) return [{ orig: p.target, brush }];
  const sq = p.steps.filter(isSquare);
  if (p.kind === 'launch' || p.kind === 'detonation') {
    if (sq.length === 2) return [{ orig: sq[0], brush }];
    // The best line's missile path in full; the others' first step and target.
    if (brush !== 'best') return [{ orig: sq[0], dest: sq[2], brush }, { orig: sq[sq.length - 1], brush }];
    const out = [];
    for (let i = 1; i + 1 < sq.length; i++) out.push({ orig: i === 1 ? sq[0] : sq[i], dest: sq[i + 1], brush });
    return out;
  }
  return [{ orig: sq[0], dest: sq[1], brush }];
}

function renderStatus() {
  const info = state.info;
  const el = $('status');
  const ended = endedHere();
  if (info.outcome || ended) {
    const o = info.outcome || AGREED[ended.kind];
    const who = o.winner ? `${o.winner === 'white' ? 'White' : 'Black'} wins` : 'Draw';
    el.textContent = `Game over: ${o.result} — ${who} (${o.reason})`;
    el.className = 'status over';
  } else {
    el.textContent = `${info.turn === 'white' ? 'White' : 'Black'} to move` + (info.check ? ' (check)' : '') + (state.playing ? (info.turn === state.userSide ? ' — your move' : ' — Turncoat thinks…') : '');
    el.className = 'status';
  }
  const fx = [];
  const last = info.last;
  if (last) fx.push(`Last move ${last.san}: ${last.said}`);
  if (info.missile) fx.push(`a missile flies from ${info.missile.launch} along ${info.missile.path.join('-')} (it may be shot down on ${info.missile.shootable.join(', ') || 'no square'})`);
  $('effects').textContent = fx.join(' · ');
  $('links-toggle').parentElement.style.display = info.links.length ? '' : 'none';
}

function renderMoves() {
  const el = $('moves');
  const parts = [];
  const startPly = state.root.startPly;
  const label = (n, forceNum) => {
    const ply = startPly + n.ply - 1;
    const num = Math.floor(ply / 2) + 1;
    const white = ply % 2 === 0;
    return (white ? `<span class="num">${num}.</span>` : forceNum ? `<span class="num">${num}…</span>` : '');
  };
  const nodes = [];
  const walk = (n, forceNum) => {
    // n: a node whose children are to be listed
    let first = true;
    let cur = n;
    while (cur.children.length) {
      const [main, ...vars] = cur.children;
      parts.push(label(main, forceNum || first));
      nodes.push(main);
      parts.push(moveSpan(main, nodes.length - 1));
      for (const v of vars) {
        parts.push('<span class="var"> (');
        parts.push(label(v, true));
        nodes.push(v);
        parts.push(moveSpan(v, nodes.length - 1));
        walk(v, true);
        parts.push(')</span> ');
      }
      forceNum = vars.length > 0;
      first = false;
      cur = main;
    }
  };
  walk(state.root, true);
  if (state.info && state.info.outcome && !state.node.children.length) parts.push(`<span class="result">${state.info.outcome.result}</span>`);
  else if (state.ended && mainLine().pop() === state.ended.node) parts.push(`<span class="result">${AGREED[state.ended.kind].result}</span>`);
  el.innerHTML = parts.join(' ') || '<span class="num">No moves yet: click a piece.</span>';
  el.querySelectorAll('.mv').forEach((s) => s.addEventListener('click', () => goTo(nodes[+s.dataset.n])));
  const cur = el.querySelector('.current');
  if (cur) scrollIntoList(el, cur);
  state.moveNodes = nodes;
}

/** A move of the move list: its ply (1-based) and, once a whole-game
 * analysis judged it, its glyph (`?!`, `?`, `??` or empty; drawn by the
 * style sheet, so the move's text stays its SAN). */
function moveSpan(node, n) {
  const glyph = node.glyph !== undefined ? ` data-glyph="${node.glyph}"` : '';
  const nag = node.nags && MOVE_GLYPHS[node.nags[0]] ? `<span class="nag">${MOVE_GLYPHS[node.nags[0]]}</span>` : '';
  const before = node.before !== undefined ? `<span class="comment">${esc(node.before)}</span> ` : '';
  const after = node.comment !== undefined ? ` <span class="comment">${esc(node.comment)}</span>` : '';
  const title = node.said ? ` title="${esc(node.said)}"` : '';
  return `${before}<span class="mv${node === state.node ? ' current' : ''}" data-n="${n}" data-ply="${node.ply}"${glyph}${title}>${esc(node.san)}${nag}</span>${after}`;
}

function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

// ---------------------------------------------------------------- sounds

// A sound for each move played or stepped to (a move, a capture, a change
// of side, a check, the end of the game), made by WebAudio oscillators: no
// sound files. The switch is kept in the browser's storage. Every sound
// asked for is counted in `window.turncoat.sound` (`requested`, and
// `played` unless muted) and logged with its kind.

const SOUND_KEY = 'turncoat.sound';
/** Most recent sounds kept in the log. */
const SOUND_LOG_MAX = 50;
const sound = { requested: 0, played: 0, log: [], ctx: null };
window.turncoat.sound = sound;

try { $('sound').checked = localStorage.getItem(SOUND_KEY) !== 'off'; } catch { /* storage disabled: on */ }
$('sound').addEventListener('change', () => {
  try { localStorage.setItem(SOUND_KEY, $('sound').checked ? 'on' : 'off'); } catch { /* not kept */ }
});

// Notes: frequency (Hz), its glide target, start and length (s), peak gain.
const TONES = {
  move: [{ type: 'triangle', f: 420, to: 300, at: 0, len: 0.07, gain: 0.3 }],
  capture: [{ type: 'square', f: 260, to: 110, at: 0, len: 0.1, gain: 0.12 }, { type: 'triangle', f: 520, to: 200, at: 0, len: 0.08, gain: 0.2 }],
  convert: [{ type: 'triangle', f: 440, to: 880, at: 0, len: 0.16, gain: 0.25 }],
  check: [{ type: 'sine', f: 880, at: 0, len: 0.08, gain: 0.25 }, { type: 'sine', f: 1175, at: 0.1, len: 0.1, gain: 0.25 }],
  end: [523, 659, 784, 1047].map((f, i) => ({ type: 'triangle', f, at: i * 0.11, len: i === 3 ? 0.45 : 0.14, gain: 0.22 })),
};

function playSound(kind) {
  const on = $('sound').checked;
  sound.requested++;
  sound.log.push({ kind, played: on });
  if (sound.log.length > SOUND_LOG_MAX) sound.log.shift();
  if (!on) return;
  sound.played++;
  // After the board is drawn: the first sound starts the audio, which
  // takes a while.
  setTimeout(() => synthesise(kind), 0);
}

function synthesise(kind) {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try {
    sound.ctx = sound.ctx || new Ctx();
    const ctx = sound.ctx;
    if (ctx.state === 'suspended') ctx.resume();
    const now = ctx.currentTime;
    for (const n of TONES[kind]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      const [start, end] = [now + n.at, now + n.at + n.len];
      osc.type = n.type;
      osc.frequency.setValueAtTime(n.f, start);
      if (n.to) osc.frequency.exponentialRampToValueAtTime(n.to, end);
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(n.gain, start + 0.005);
      gain.gain.exponentialRampToValueAtTime(0.0001, end);
      osc.connect(gain).connect(ctx.destination);
      osc.start(start);
      osc.stop(end + 0.02);
    }
  } catch {
    // No audio here: the game goes on silently.
  }
}

let soundNode = null; // the node shown last
/** Before `msg` is shown: the sound of its last move, when the node shown
 * is the one after the node shown before (a move played, or one step on). */
function soundOfShow(msg) {
  const before = soundNode;
  const prev = state.info;
  soundNode = state.node;
  if (!before || !prev || !msg.last || state.node.parent !== before) return;
  playSound(moveSound(msg, prev.fen));
}

function moveSound(msg, prevFen) {
  const last = msg.last;
  if (msg.outcome) return 'end';
  if (msg.check) return 'check';
  if (last.converted.length) return 'convert';
  if (last.removed.length) return 'capture';
  if (last.kind === 'move' && isSquare(last.squares[1]) && colourOn(prevFen, last.squares[1])) return 'capture';
  return 'move';
}

// ---------------------------------------------------------------- navigation

function back() { if (here().parent) goTo(here().parent); }
function forward() { if (here().children.length) goTo(here().children[0]); }
function first() { goTo(state.root); }
function last() { let n = here(); while (n.children.length) n = n.children[0]; goTo(n); }

$('back').onclick = back;
$('forward').onclick = forward;
$('first').onclick = first;
$('last').onclick = last;
$('flip').onclick = flip;
$('links-toggle').onchange = render;

function flip() {
  state.orientation = state.orientation === 'white' ? 'black' : 'white';
  $('evalbar').classList.toggle('flipped', state.orientation === 'black');
  render();
  renderEval();
}

document.addEventListener('keydown', (e) => {
  const tag = (e.target && e.target.tagName) || '';
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
  if (!$('confirm').hidden) {
    if (e.key === 'Enter' || e.key === ' ') confirmYes();
    else if (e.key === 'Escape') hideConfirm();
    e.preventDefault();
    return;
  }
  if (e.key === 'ArrowLeft') { back(); e.preventDefault(); }
  else if (e.key === 'ArrowRight') { forward(); e.preventDefault(); }
  else if (e.key === 'Home') { first(); e.preventDefault(); }
  else if (e.key === 'End') { last(); e.preventDefault(); }
  else if (e.key === 'f') flip();
  else if (e.key === ' ' && state.playing) {
    askConfirm('End the game against Turncoat and analyse?', 'End and analyse (Enter)', () => { stopPlaying(); startAnalysis(); });
    e.preventDefault();
  } else if (e.key === ' ') { toggleAnalysis(); e.preventDefault(); }
  else if (e.key === 'Escape') { state.sel = []; hideChooser(); renderSelection(); }
  else if (e.key === 'Enter' && chooserButtons.length) {
    const d = chooserButtons.find((b) => b.def) || chooserButtons[0];
    if (d.tok) { state.sel = []; hideChooser(); playTokens([d.tok]); } else choose(d.step);
    e.preventDefault();
  }
});

// ---------------------------------------------------------------- inputs

$('move').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  const tok = $('move').value.trim();
  if (!tok) return;
  // Cleared once played, unless something else was typed meanwhile (a timer
  // here fired late in a background tab and wiped the next move typed).
  playTokens([tok], null, (msg) => showError(`Illegal move '${tok}': ${msg.message}`), () => {
    if ($('move').value.trim() === tok) $('move').value = '';
  });
});

$('fen').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  const fen = $('fen').value.trim();
  newGame(state.variant, fen, (ok) => {
    if (!ok) $('fen').classList.add('bad');
  });
});

$('variant').addEventListener('change', () => {
  stopPlaying();
  newGame($('variant').value, null);
});
$('newgame').onclick = () => { stopPlaying(); newGame(state.variant, null); };

// ---------------------------------------------------------------- position editor

// The editor (editor.js) builds a FEN; the backend judges it, and a position
// it accepts starts a new game.
const editor = createEditor({
  startFen: (variant) => state.startFens[variant],
  check: (variant, fen) => ask(variant, fen, []),
  // Accepted, the editor closes before the new game is drawn (a board
  // drawn while hidden has no size to draw its arrows in).
  load: async (variant, fen) => {
    const answer = await ask(variant, fen, []);
    if (answer.ok) setTimeout(() => newGame(variant, fen));
    return answer;
  },
  // Shown again, the board takes its size (the window may have changed
  // meanwhile) and measures itself before it draws its marks again (hidden,
  // it has no size to draw arrows in).
  closed: () => { fitBoard(); cg.redrawAll(); render(); },
  leave: () => goTo(state.node),
});
window.turncoat.editor = editor.state;
$('edit-position').onclick = () => {
  if (!state.info) return;
  stopPlaying();
  if (state.analysing) stopAnalysis();
  stopGameAnalysis();
  state.sel = [];
  hideChooser();
  cg.setAutoShapes([]);
  editor.open({ variant: state.variant, variants: state.variants, fen: state.info.fen, orientation: state.orientation });
};

// ---------------------------------------------------------------- analysis

let analyseSentAt = null;
let stopSentAt = null;

function toggleAnalysis() {
  if (state.analysing) stopAnalysis();
  else startAnalysis();
}

function startAnalysis() {
  if (state.playing) stopPlaying();
  stopGameAnalysis();
  state.analysing = true;
  state.analysis = null;
  state.multipv = +$('multipv').value;
  analyseSentAt = performance.now();
  timings.analysisFirstLine = null;
  timings.analysisUpdates = 0;
  send({ type: 'analyse', multipv: state.multipv });
  $('analyse').textContent = '■ Stop';
  $('analyse').classList.add('on');
  renderLines();
}

function stopAnalysis() {
  state.analysing = false;
  stopSentAt = performance.now();
  send({ type: 'stop' });
  $('analyse').textContent = '▶ Analyse';
  $('analyse').classList.remove('on');
  render();
  renderLines();
}

$('analyse').onclick = toggleAnalysis;

// Engine settings for this tab (the backend bounds them).
function fillThreads(max) {
  const n = Math.max(1, Math.min(max, navigator.hardwareConcurrency || 1));
  $('threads').innerHTML = Array.from({ length: n }, (_, i) => `<option>${i + 1}</option>`).join('');
}
function sendOptions() {
  send({ type: 'options', threads: +$('threads').value, hash: +$('hash').value });
  if (state.analysing) startAnalysis();
}
$('threads').onchange = sendOptions;
$('hash').onchange = sendOptions;
$('multipv').onchange = () => { if (state.analysing) startAnalysis(); };

function onAnalysis(msg) {
  if (!state.analysing || !state.info || msg.fen !== state.info.fen) return;
  timings.analysisUpdates++;
  if (timings.analysisFirstLine === null && msg.lines.length && analyseSentAt !== null) {
    timings.analysisFirstLine = performance.now() - analyseSentAt;
  }
  state.analysis = msg;
  renderLines();
  render();
}

/** A score as the page writes it, White's view: `+0.35`, `#3` (White
 * mates in 3), `#-2` (Black mates in 2). */
function scoreText(s) {
  if (!s) return '';
  if ('mate' in s) return (s.mate > 0 ? '#' : '#-') + Math.abs(s.mate);
  const v = s.cp / 100;
  return (v > 0 ? '+' : '') + v.toFixed(2);
}

/** A finished game's result as the analysis shows it (no line to search). */
function outcomeText(o) {
  const who = o.winner ? `${o.winner === 'white' ? 'White' : 'Black'} wins` : 'Draw';
  return `${o.result} · ${who} (${o.reason})`;
}

function renderLines() {
  const a = state.analysis;
  const el = $('lines');
  if (!state.analysing) {
    $('stats').textContent = '';
    el.innerHTML = '';
    renderEval();
    return;
  }
  const outcome = state.info && state.info.outcome;
  if (outcome) {
    // Nothing to search: the game is over, whatever the engine says of it.
    $('stats').textContent = '';
    el.innerHTML = `<div class="line over">${esc(outcomeText(outcome))}</div>`;
    renderEval();
    return;
  }
  if (!a) { el.innerHTML = '<div class="line">…</div>'; $('stats').textContent = ''; return; }
  $('stats').textContent = `depth ${a.depth}/${a.seldepth} · ${fmtNum(a.nodes)} nodes · ${fmtNum(a.nps)} nps`;
  const startPly = state.root.startPly + state.node.ply;
  // The backend sends the lines best first for the side to move.
  el.innerHTML = a.lines.map((l, i) => {
    const moves = l.pv_san.map((san, k) => {
      const ply = startPly + k;
      const num = ply % 2 === 0 ? `${Math.floor(ply / 2) + 1}. ` : k === 0 ? `${Math.floor(ply / 2) + 1}… ` : '';
      return `${num}<span class="mv" data-l="${i}" data-k="${k}">${esc(san)}</span>`;
    }).join(' ');
    const bound = l.bound === 'lower' ? '≥' : l.bound === 'upper' ? '≤' : '';
    return `<div class="line" data-multipv="${l.multipv}"><span class="score">${bound}${scoreText(l.score)}</span>`
      + `<span class="depth" title="depth of this line">d${l.depth}</span> ${moves}</div>`;
  }).join('');
  el.querySelectorAll('.mv').forEach((s) => s.addEventListener('click', () => {
    const l = a.lines[+s.dataset.l];
    const k = +s.dataset.k;
    playTokens(l.pv.slice(0, k + 1), l.pv_san.slice(0, k + 1));
  }));
  renderEval();
}

function fmtNum(n) {
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e3) return (n / 1e3).toFixed(0) + 'k';
  return String(n);
}

/** White's winning chances in percent from centipawns (lichess's curve). */
function winPercent(cp) {
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}

function renderEval() {
  const a = state.analysing ? state.analysis : null;
  const outcome = state.info && state.info.outcome;
  let frac = 0.5;
  let text = '';
  if (outcome) {
    // A finished game: the bar is the winner's, the label the result.
    frac = outcome.winner === 'white' ? 1 : outcome.winner === 'black' ? 0 : 0.5;
    text = outcome.result;
  } else if (a && a.lines.length) {
    const s = a.lines[0].score;
    if ('mate' in s) frac = s.mate > 0 ? 1 : 0;
    else frac = winPercent(s.cp) / 100;
    text = scoreText(s);
  }
  $('evalfill').style.height = `${(frac * 100).toFixed(1)}%`;
  $('evaltext').textContent = text;
}

// ---------------------------------------------------------------- whole-game analysis

// Every position of the main line searched to a node budget, one after the
// other in the background (the tab's one engine: interactive analysis and
// play stop it); the backend turns the values into lichess's judgements and
// accuracies (crates/board/src/report.rs). Values are kept per position and
// budget, so a stopped analysis goes on where it stopped.
const game = {
  run: null, // { nodes: [root, ...main line], budget, index, requestId }
  values: new Map(), // `${budget} ${variant} ${startFen} ${tokens}` -> value
  reports: [], // the main lines of the reports asked for, in order
};
window.turncoat.game = game;

function mainLine() {
  const nodes = [state.root];
  for (let n = state.root; n.children.length; n = n.children[0]) nodes.push(n.children[0]);
  return nodes;
}

function valueKey(node, budget) {
  return `${budget} ${state.variant} ${state.root.startFen} ${pathTokens(node).join(' ')}`;
}

function startGameAnalysis() {
  if (!state.root) return;
  if (state.analysing) stopAnalysis();
  if (state.playing) stopPlaying();
  const nodes = mainLine();
  game.run = { nodes, budget: +$('budget').value, index: 0, requestId: null, started: performance.now() };
  timings.gameAnalysis = null;
  $('analyse-game').textContent = '■ Stop game analysis';
  $('analyse-game').classList.add('on');
  $('gameprogress').hidden = false;
  nextEvaluation();
}

function stopGameAnalysis() {
  if (!game.run) return;
  const running = game.run.requestId !== null;
  game.run = null;
  if (running) send({ type: 'stop' });
  $('analyse-game').textContent = 'Analyse game';
  $('analyse-game').classList.remove('on');
  $('gameprogress').hidden = true;
}

/** Asks for the next position without a value; at the end, the report. */
function nextEvaluation() {
  const run = game.run;
  while (run.index < run.nodes.length && game.values.has(valueKey(run.nodes[run.index], run.budget))) run.index++;
  $('gameprogress').max = run.nodes.length;
  $('gameprogress').value = run.index;
  $('gameprogress').title = `${run.index} of ${run.nodes.length} positions`;
  requestReport(run.nodes, run.budget);
  if (run.index >= run.nodes.length) {
    timings.gameAnalysis = performance.now() - run.started;
    stopGameAnalysis();
    return;
  }
  const node = run.nodes[run.index];
  run.requestId = nextId++;
  send({ type: 'evaluate', id: run.requestId, variant: state.variant, fen: state.root.startFen, moves: pathTokens(node), nodes: run.budget });
}

function onEvaluation(msg) {
  if (drawOffer !== null && msg.id === drawOffer) { onDrawAnswer(msg); return; }
  if (onExplorerEvaluation(msg)) return;
  const run = game.run;
  if (!run || msg.id !== run.requestId) return;
  run.requestId = null;
  game.values.set(valueKey(run.nodes[run.index], run.budget), msg.value);
  run.index++;
  nextEvaluation();
}

function requestReport(nodes, budget) {
  game.reports.push(nodes);
  const values = nodes.map((n) => game.values.get(valueKey(n, budget)) || null);
  send({ type: 'game_report', values, white_first: state.root.startPly % 2 === 0 });
}

function onGameReport(msg) {
  const nodes = game.reports.shift();
  if (!nodes || nodes[0] !== state.root) return; // another game's
  nodes.forEach((n, i) => {
    n.win = msg.win[i];
    if (i > 0) {
      n.glyph = msg.moves[i - 1].glyph;
      n.accuracy = msg.moves[i - 1].accuracy;
    }
  });
  state.report = { nodes, white: msg.white, black: msg.black };
  renderMoves();
  renderGraph();
  renderAccuracy();
}

function renderAccuracy() {
  const r = state.report;
  if (!r || r.nodes[0] !== state.root || (r.white === null && r.black === null)) { $('accuracy').textContent = ''; return; }
  const side = (name, white, acc) => {
    const count = (g) => r.nodes.filter((n, i) => i > 0 && n.glyph === g && ((state.root.startPly + i - 1) % 2 === 0) === white).length;
    const pct = acc === null ? '–' : `${Math.round(acc)}%`;
    return `${name} ${pct} (${count('?!')} ?!, ${count('?')} ?, ${count('??')} ??)`;
  };
  $('accuracy').textContent = `Accuracy: ${side('White', true, r.white)} · ${side('Black', false, r.black)}`;
}

const GRAPH_W = 600;
const GRAPH_H = 90;

/** White's win % along the main line, as analysed: click a point to go
 * there. */
function renderGraph() {
  const el = $('graph');
  const r = state.report;
  if (!r || r.nodes[0] !== state.root || !r.nodes.some((n) => n.win != null)) { el.innerHTML = ''; return; }
  const nodes = r.nodes;
  const last = Math.max(1, nodes.length - 1);
  const x = (i) => (i / last) * GRAPH_W;
  const y = (w) => GRAPH_H - (w / 100) * GRAPH_H;
  const known = nodes.map((n, i) => [i, n.win]).filter(([, w]) => w != null);
  const line = known.map(([i, w]) => `${x(i).toFixed(1)},${y(w).toFixed(1)}`).join(' ');
  const area = `${x(known[0][0]).toFixed(1)},${GRAPH_H} ${line} ${x(known[known.length - 1][0]).toFixed(1)},${GRAPH_H}`;
  const marks = nodes.map((n, i) => (n.glyph && n.win != null
    ? `<circle class="g${n.glyph.length}${n.glyph === '?!' ? 'i' : ''}" cx="${x(i).toFixed(1)}" cy="${y(n.win).toFixed(1)}" r="4"><title>${esc(n.san)}${n.glyph}</title></circle>`
    : '')).join('');
  const at = nodes.indexOf(state.node);
  const cursor = at >= 0 ? `<line class="cursor" x1="${x(at).toFixed(1)}" x2="${x(at).toFixed(1)}" y1="0" y2="${GRAPH_H}"/>` : '';
  el.innerHTML = `<svg viewBox="0 0 ${GRAPH_W} ${GRAPH_H}" preserveAspectRatio="none" role="img" aria-label="evaluation graph">`
    + `<rect class="bg" width="${GRAPH_W}" height="${GRAPH_H}"/><polygon class="area" points="${area}"/>`
    + `<line class="mid" x1="0" x2="${GRAPH_W}" y1="${GRAPH_H / 2}" y2="${GRAPH_H / 2}"/>`
    + `<polyline class="curve" points="${line}"/>${cursor}${marks}</svg>`;
  state.graphNodes = nodes;
}

$('graph').addEventListener('click', (e) => {
  const nodes = state.graphNodes;
  const svg = $('graph').querySelector('svg');
  if (!nodes || !svg) return;
  const box = svg.getBoundingClientRect();
  const i = Math.round(((e.clientX - box.left) / box.width) * Math.max(1, nodes.length - 1));
  goTo(nodes[Math.max(0, Math.min(nodes.length - 1, i))]);
});

$('analyse-game').onclick = () => { if (game.run) stopGameAnalysis(); else startGameAnalysis(); };

// ---------------------------------------------------------------- play vs Turncoat

$('playbtn').onclick = () => {
  if (state.playing) { stopPlaying(); return; }
  if (state.analysing) stopAnalysis();
  stopGameAnalysis();
  state.playing = true;
  state.userSide = $('side').value;
  startClock();
  if (state.orientation !== state.userSide) flip();
  $('playbtn').textContent = 'Stop playing';
  $('playbtn').classList.add('on');
  $('resign').hidden = false;
  $('draw').hidden = false;
  renderStatus();
  maybeEngineMove();
};

function stopPlaying() {
  if (!state.playing) return;
  state.playing = false;
  pauseClock();
  if (state.waitingEngine) send({ type: 'stop' });
  state.waitingEngine = false;
  $('playbtn').textContent = 'Play vs Turncoat';
  $('playbtn').classList.remove('on');
  $('resign').hidden = true;
  $('draw').hidden = true;
  drawOffer = null;
  hideConfirm();
  if (state.info) renderStatus();
}

let goId = 0;
function maybeEngineMove() {
  if (!state.playing || !state.info || state.info.outcome) return;
  if (state.info.turn === state.userSide || state.waitingEngine) return;
  const s = $('strength').value;
  const n = parseInt(s.slice(1), 10);
  goId = nextId++;
  drawOffer = null;
  state.waitingEngine = true;
  if (clock.on) {
    const ms = (side) => Math.max(0, Math.round(clockLeft(side)));
    send({ type: 'go', id: goId, wtime: ms('white'), btime: ms('black'), winc: clock.inc, binc: clock.inc });
  } else {
    send(s[0] === 't' ? { type: 'go', id: goId, movetime: n } : { type: 'go', id: goId, nodes: n });
  }
  renderStatus();
}

function onBestmove(msg) {
  if (msg.id !== goId) return;
  state.waitingEngine = false;
  if (!state.playing || !state.info || msg.fen !== state.info.fen || !msg.token) return;
  playTokens([msg.token]);
}

$('takeback').onclick = () => {
  if (state.waitingEngine) { send({ type: 'stop' }); state.waitingEngine = false; goId = -1; }
  let n = state.node;
  if (!n.parent) return;
  // Back to the last position where the user was to move (before their move).
  n = n.parent;
  if (state.playing && n.parent && sideToMove(n) !== state.userSide) n = n.parent;
  // The moves taken back leave the game: the next move played from there
  // is the main line.
  let cut = state.node;
  while (cut.parent !== n) cut = cut.parent;
  n.children = n.children.filter((c) => c !== cut);
  if (state.report && state.report.nodes.includes(cut)) state.report = null;
  if (state.ended && !mainLine().includes(state.ended.node)) state.ended = null;
  // As on lichess, a takeback leaves the times as they are; the clock that
  // runs is the side's to move.
  if (state.playing && clock.running) runClock(sideToMove(n));
  goTo(n);
};

// ---------------------------------------------------------------- clocks

// A clocked game against Turncoat: the time control picked before the start
// (minutes a side, seconds added per move), the side to move's clock running,
// the flag falling at zero. Turncoat is sent both clocks with each move asked
// for and spends its own time, as a UCI engine under a GUI does.
const clock = { on: false, initial: 0, inc: 0, left: { white: 0, black: 0 }, running: null, since: 0, timer: null };
/** Display refresh while a clock runs, ms. */
const CLOCK_TICK_MS = 100;
/** Below this a clock shows tenths, and turns red. */
const CLOCK_LOW_MS = 10000;

function startClock() {
  pauseClock();
  const minutes = parseFloat($('tc-minutes').value);
  clock.on = minutes > 0;
  $('clocks').hidden = !clock.on;
  for (const id of ['tc-minutes', 'tc-increment', 'strength']) $(id).disabled = true;
  if (!clock.on) return;
  clock.initial = Math.round(minutes * 60000);
  clock.inc = parseInt($('tc-increment').value, 10) * 1000;
  clock.left = { white: clock.initial, black: clock.initial };
  $('clock-white').classList.remove('flagged');
  $('clock-black').classList.remove('flagged');
  runClock(state.info.turn);
}

/** Stops the running clock (the game ended or play stopped). */
function pauseClock() {
  if (clock.running) clock.left[clock.running] = clockLeft(clock.running);
  clock.running = null;
  clearInterval(clock.timer);
  clock.timer = null;
  for (const id of ['tc-minutes', 'tc-increment', 'strength']) $(id).disabled = false;
  renderClocks();
}

function clockLeft(side) {
  return clock.left[side] - (clock.running === side ? performance.now() - clock.since : 0);
}

function runClock(side) {
  if (clock.running) clock.left[clock.running] = clockLeft(clock.running);
  clock.running = side;
  clock.since = performance.now();
  if (!clock.timer) clock.timer = setInterval(tickClock, CLOCK_TICK_MS);
  renderClocks();
}

/** A move of the clocked game was played (node is the new position): the
 * mover's time stops, gains the increment, and the other clock starts. */
function clockMoved(node) {
  if (!state.playing || !clock.on || !clock.running) return;
  const mover = clock.running;
  clock.left[mover] = clockLeft(mover) + clock.inc;
  node.clk = Math.max(0, clock.left[mover]);
  clock.running = null;
  runClock(mover === 'white' ? 'black' : 'white');
}

function tickClock() {
  const side = clock.running;
  if (!side) return;
  if (clockLeft(side) > 0) { renderClocks(); return; }
  // The flag falls: the game ends where it stands.
  clock.left[side] = 0;
  clock.running = null;
  $('clock-' + side).classList.add('flagged');
  if (state.waitingEngine) { send({ type: 'stop' }); state.waitingEngine = false; goId = -1; }
  const end = mainLine().pop();
  if (end !== state.node) goTo(end);
  // As FIDE's Laws and lichess: a draw when the side with time left can
  // never checkmate (the rules say when: a lone king in most variants).
  const other = side === 'white' ? 'black' : 'white';
  const drawn = (end.cannotMate || []).includes(other);
  state.ended = { node: end, kind: `${side}_flag${drawn ? '_drawn' : ''}` };
  playSound('end');
  stopPlaying();
  renderStatus();
  renderMoves();
}

/** `h:mm:ss` for PGN (`full`), else `m:ss`, with tenths under 10 s. */
function clockText(ms, full) {
  const t = Math.max(0, ms);
  const s = Math.floor(t / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  const pad = (x) => String(x).padStart(2, '0');
  if (full) return `${h}:${pad(m)}:${pad(sec)}`;
  const main = h > 0 ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
  return t < CLOCK_LOW_MS ? `${main}.${Math.floor((t % 1000) / 100)}` : main;
}

function renderClocks() {
  if (!clock.on) return;
  for (const side of ['white', 'black']) {
    const el = $('clock-' + side);
    const left = clockLeft(side);
    el.textContent = clockText(left, false);
    el.classList.toggle('running', clock.running === side);
    el.classList.toggle('low', left < CLOCK_LOW_MS);
  }
}
window.turncoat.clock = () => ({ on: clock.on, white: clockLeft('white'), black: clockLeft('black'), running: clock.running, inc: clock.inc });

// ---------------------------------------------------------------- the end of a game by the players

// A resignation or an agreed draw ends the game at the position shown
// (`state.ended`): the status and the move list say so, and the PGN export
// writes its result.
const AGREED = {
  white_resigns: { result: '0-1', winner: 'black', reason: 'White resigns' },
  black_resigns: { result: '1-0', winner: 'white', reason: 'Black resigns' },
  draw_agreed: { result: '1/2-1/2', winner: null, reason: 'draw agreed' },
  white_flag: { result: '0-1', winner: 'black', reason: "White's time is up" },
  black_flag: { result: '1-0', winner: 'white', reason: "Black's time is up" },
  white_flag_drawn: { result: '1/2-1/2', winner: null, reason: "White's time is up, but Black cannot checkmate" },
  black_flag_drawn: { result: '1/2-1/2', winner: null, reason: "Black's time is up, but White cannot checkmate" },
};

/** The players' end of the game, if the position shown is where it ended. */
function endedHere() {
  return state.ended && state.ended.node === state.node ? state.ended : null;
}

function endByAgreement(kind) {
  state.ended = { node: state.node, kind };
  playSound('end');
  stopPlaying();
  renderStatus();
  renderMoves();
}

$('resign').onclick = () => {
  if (state.playing) endByAgreement(state.userSide === 'white' ? 'white_resigns' : 'black_resigns');
};

/** Nodes Turncoat searches before answering a draw offer. */
const DRAW_NODES = 200000;
/** Turncoat accepts a draw when it thinks itself worse by this much. */
const DRAW_ACCEPT_CP = 50;
let drawOffer = null; // the evaluation's id

$('draw').onclick = () => {
  if (!state.playing || state.info.outcome) return;
  if (state.waitingEngine || state.info.turn !== state.userSide) { showError('Offer a draw when it is your move.'); return; }
  drawOffer = nextId++;
  $('hint').textContent = 'Turncoat considers your draw offer…';
  send({ type: 'evaluate', id: drawOffer, variant: state.variant, fen: state.root.startFen, moves: pathTokens(state.node), nodes: DRAW_NODES });
};

function onDrawAnswer(msg) {
  drawOffer = null;
  if (!state.playing || msg.fen !== state.info.fen) return;
  const v = msg.value;
  const sign = state.userSide === 'white' ? -1 : 1; // Turncoat's view
  const accepts = 'mate' in v ? v.mate * sign < 0 : 'cp' in v ? v.cp * sign <= -DRAW_ACCEPT_CP : true;
  if (accepts) {
    $('hint').textContent = 'Turncoat accepts the draw.';
    endByAgreement('draw_agreed');
  } else {
    $('hint').textContent = 'Turncoat declines the draw.';
  }
}

// ---------------------------------------------------------------- asking first

let confirmed = null;
/** Asks `question` over the board; `yes` runs if the user says so (the
 * button, Enter or space), nothing if not (the other button, Escape). */
function askConfirm(question, yesLabel, yes) {
  $('confirm-text').textContent = question;
  $('confirm-yes').textContent = yesLabel;
  $('confirm').hidden = false;
  confirmed = yes;
}
function hideConfirm() { $('confirm').hidden = true; confirmed = null; }
function confirmYes() { const yes = confirmed; hideConfirm(); if (yes) yes(); }
$('confirm-yes').onclick = confirmYes;
$('confirm-no').onclick = hideConfirm;
$('confirm').addEventListener('pointerdown', (e) => e.stopPropagation());

function sideToMove(node) {
  return (state.root.startPly + node.ply) % 2 === 0 ? 'white' : 'black';
}

// ---------------------------------------------------------------- PGN

$('pgnload').onclick = () => {
  const text = $('pgn').value;
  if (!text.trim()) { showError('Paste PGN text first (or choose a file).'); return; }
  state.games = [];
  send({ type: 'pgn_import', text });
};
$('pgnfile').onchange = () => {
  const f = $('pgnfile').files[0];
  if (!f) return;
  f.text().then((text) => { $('pgn').value = text; state.games = []; send({ type: 'pgn_import', text }); });
};

function onPgn(games) {
  state.games = games;
  const sel = $('games');
  sel.innerHTML = games.map((g, i) => {
    const tag = (k) => (g.tags.find((t) => t[0] === k) || [k, '?'])[1];
    return `<option value="${i}">${i + 1}. ${esc(tag('White'))} – ${esc(tag('Black'))} ${esc(g.result)} (${g.variant})</option>`;
  }).join('');
  sel.hidden = games.length < 2;
  loadGame(0);
}
$('games').onchange = () => loadGame(+$('games').value);

function loadGame(i) {
  const g = state.games[i];
  if (!g) return;
  stopPlaying();
  newGame(g.variant, g.start_fen, (ok) => {
    if (!ok) return;
    // The main line, each move followed by the variations in its place.
    const build = (from, line) => {
      let n = from;
      for (const m of line) {
        const c = makeNode(n, m.token, m.san || m.token);
        setNotes(c, m);
        n.children.push(c);
        m.variations.forEach((v) => build(n, v));
        n = c;
      }
    };
    build(state.root, g.tree);
    $('games').value = String(i);
    renderMoves();
    updateLink();
    // What the import left out, said (the game itself loaded).
    if (g.cut && g.cut.length) showError(`Loaded, but ${g.cut.join('; ')}.`);
  });
}

// The whole game: its main line with the variations, comments and glyphs.
$('pgnexport').onclick = () => {
  const end = mainLine().pop();
  const user = 'User';
  const white = state.playing ? (state.userSide === 'white' ? user : 'Turncoat') : '?';
  const black = state.playing ? (state.userSide === 'black' ? user : 'Turncoat') : '?';
  const ended = state.ended && state.ended.node === end ? state.ended.kind : undefined;
  // A clocked game's moves carry the time left after each, as lichess
  // writes it: [%clk 0:04:58].
  const tree = flatTree(state.root).nodes.map(([parent, token, , notes]) => {
    const { clk, ...rest } = notes || {};
    const m = { parent, token, ...rest };
    if (clk != null) m.comment = `[%clk ${clockText(clk, true)}]` + (m.comment ? ' ' + m.comment : '');
    return m;
  });
  const tc = clock.initial > 0 && mainLine().some((n) => n.clk != null) ? `${Math.round(clock.initial / 1000)}+${Math.round(clock.inc / 1000)}` : undefined;
  send({ type: 'pgn_export', variant: state.variant, fen: state.root.startFen, moves: pathTokens(end), white, black, ended, tree, time_control: tc });
};

/** A move's annotations from PGN: its glyphs as NAGs, comments before and
 * after it. */
function setNotes(node, m) {
  if (Array.isArray(m.nags) && m.nags.length) node.nags = m.nags.filter((n) => Number.isInteger(n) && n >= 0 && n <= 255);
  if (typeof m.comment === 'string') {
    // lichess's commands in a comment are data, not words: the clock is
    // kept (and written back on export), the rest ([%eval], [%csl], ...)
    // is not shown.
    const clk = /\[%clk (\d+):(\d\d):(\d\d(?:\.\d+)?)\]/.exec(m.comment);
    if (clk) node.clk = Math.round((Number(clk[1]) * 3600 + Number(clk[2]) * 60 + Number(clk[3])) * 1000);
    const words = m.comment.replace(/\[%[^\]]*\]/g, ' ').replace(/\s+/g, ' ').trim();
    if (words || !/\[%/.test(m.comment)) node.comment = words;
  }
  if (typeof m.before === 'string') node.before = m.before;
  if (Number.isFinite(m.clk) && m.clk >= 0) node.clk = m.clk;
}

/** The notes kept with a node (storage, export), or undefined. */
function notesOf(node) {
  if (!node.nags && node.comment === undefined && node.before === undefined && node.clk == null) return undefined;
  const notes = {};
  if (node.clk != null) notes.clk = Math.round(node.clk);
  if (node.nags) notes.nags = node.nags;
  if (node.comment !== undefined) notes.comment = node.comment;
  if (node.before !== undefined) notes.before = node.before;
  return notes;
}

const MOVE_GLYPHS = { 1: '!', 2: '?', 3: '!!', 4: '??', 5: '!?', 6: '?!' };

function onPgnText(text) {
  $('pgn').value = text;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/x-chess-pgn' }));
  a.download = `turncoat-${state.variant}.pgn`;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

// ---------------------------------------------------------------- opening explorer

// The games of the PGN files the user adds (match runs, self-play) are
// counted by the backend, position by position; for the position shown the
// explorer lists the moves played there, how often, how those games ended,
// and, while the engine is otherwise idle, each move's value by a short
// search. Files go in parts cut between games: a message holds at most
// MAX_MESSAGE_BYTES.
/** Largest message the backend reads, in bytes of its JSON (the server's
 * MAX_MESSAGE_BYTES: it closes the socket on a larger one). */
const MAX_MESSAGE_BYTES = 1 << 20;
/** The parts' size, in bytes of their message: well under the limit (a
 * part is read in one go; a game larger than this goes alone). */
const EXPLORER_PART_BYTES = 800000;
/** Nodes of the search that values each listed move. */
const EXPLORER_NODES = 30000;
/** Moves valued by a search, the most played first. */
const EXPLORER_VALUED = 6;
let explorerGames = 0;
let explorerUpload = null; // the parts still to send, and what the others did
let explorerShown = null; // { fen, moves }
let explorerEval = null; // { id, fen, token }

/** Where the games of PGN text may be cut: after each result token (`1-0`,
 * `0-1`, `1/2-1/2`, `*`) of the movetext, as a PGN reader ends a game there,
 * with tags or without (pgn-extract --notags writes none), and before each
 * tag section after a blank line (a game with no result). Not in comments,
 * variations or tag pairs. */
function gameCuts(text) {
  const cuts = [];
  const n = text.length;
  let depth = 0; // variations open
  let lineStart = true;
  let blank = false; // the line before was empty
  for (let i = 0; i < n;) {
    const c = text[i];
    if (c === '\n') {
      blank = lineStart;
      lineStart = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    const atLineStart = lineStart;
    lineStart = false;
    if (c === '{') {
      const j = text.indexOf('}', i + 1);
      i = j < 0 ? n : j + 1;
    } else if (c === ';' || (c === '%' && atLineStart)) {
      const j = text.indexOf('\n', i + 1);
      i = j < 0 ? n : j;
    } else if (c === '[' && atLineStart) {
      // A tag pair (a quoted value may hold `]`): a game without a result
      // ends before its section.
      if (blank && depth === 0 && i > 0) cuts.push(i);
      depth = 0;
      let j = i + 1;
      for (let quoted = false; j < n && text[j] !== '\n'; j++) {
        if (quoted && text[j] === '\\') j++;
        else if (text[j] === '"') quoted = !quoted;
        else if (!quoted && text[j] === ']') break;
      }
      i = j + 1;
    } else if (c === '(') {
      depth++;
      i++;
    } else if (c === ')') {
      depth = Math.max(0, depth - 1);
      i++;
    } else {
      let j = i;
      while (j < n && !' \t\r\n{}();'.includes(text[j])) j++;
      if (j === i) j++; // a stray `}`
      const token = text.slice(i, j);
      if (depth === 0 && (token === '1-0' || token === '0-1' || token === '1/2-1/2' || token === '*')) cuts.push(j);
      i = j;
    }
    blank = false;
  }
  return cuts;
}

const utf8 = new TextEncoder();
/** The bytes `text` adds to a JSON message. */
const jsonBytes = (text) => utf8.encode(JSON.stringify(text)).length - 2;
/** The message of a part, less its text. */
const PART_ENVELOPE_BYTES = utf8.encode(JSON.stringify({ type: 'explorer_add', text: '' })).length;

/** `text` cut between games into parts whose message is at most
 * EXPLORER_PART_BYTES (or, a game larger than that alone, at most
 * MAX_MESSAGE_BYTES). What cannot be sent (a game, or text not cut into
 * games, over the limit) is counted in `tooBig`. */
function pgnParts(text) {
  const parts = [];
  const tooBig = [];
  let part = [];
  let size = PART_ENVELOPE_BYTES;
  // Games joined by a line break: the blank text between them is left out.
  const flush = () => {
    if (part.length) parts.push(part.join('\n'));
    part = [];
    size = PART_ENVELOPE_BYTES;
  };
  let from = 0;
  for (const at of gameCuts(text).concat([text.length])) {
    const game = text.slice(from, at);
    from = at;
    if (!game.trim()) continue;
    const bytes = jsonBytes(game);
    if (PART_ENVELOPE_BYTES + bytes > MAX_MESSAGE_BYTES) { tooBig.push(bytes); continue; }
    if (size + bytes + 2 > EXPLORER_PART_BYTES) flush();
    part.push(game);
    size += bytes + 2;
  }
  flush();
  return { parts, tooBig };
}

/** Sends the next part of the upload, or says what it did. */
function nextExplorerPart() {
  const up = explorerUpload;
  if (!up) return;
  if (up.parts.length) {
    const text = up.parts.shift();
    window.turncoat.explorerSent.push(jsonBytes(text) + PART_ENVELOPE_BYTES);
    send({ type: 'explorer_add', text });
    return;
  }
  explorerUpload = null;
  explorerInfo(up);
  explore();
}

/** The explorer's line: what it holds, and what the last upload could not
 * add and why. */
function explorerInfo(up) {
  const notes = [];
  if (up) {
    if (up.skipped) notes.push(`${up.skipped} skipped (not readable)`);
    if (up.full) notes.push(`${up.full} left out: the explorer is full`);
    const big = up.tooBig;
    if (big.length) notes.push(`${big.length} not read: ${big.length === 1 ? 'a game' : 'games'} of ${big.join(', ')} bytes, more than a message holds (${MAX_MESSAGE_BYTES})`);
    up.failed.forEach((m) => notes.push(`a part not read: ${m}`));
  }
  const held = explorerGames ? `${explorerGames} games, ${explorerPositions} positions` : 'no games';
  $('explorer-info').textContent = [held].concat(notes).join(', ');
}
let explorerPositions = 0;

$('explorer-files').onchange = async (e) => {
  const files = Array.from(e.target.files || []);
  e.target.value = '';
  const up = { parts: [], added: 0, skipped: 0, full: 0, tooBig: [], failed: [] };
  for (const f of files) {
    const { parts, tooBig } = pgnParts(await f.text());
    up.parts.push(...parts);
    up.tooBig.push(...tooBig);
  }
  if (!up.parts.length && !up.tooBig.length) return;
  explorerUpload = up;
  $('explorer-info').textContent = 'reading…';
  nextExplorerPart();
};

$('explorer-clear').onclick = () => send({ type: 'explorer_clear' });

function onExplorer(msg) {
  explorerGames = msg.games;
  explorerPositions = msg.positions;
  const up = explorerUpload;
  if (up) {
    up.added += msg.added.games;
    up.skipped += msg.added.skipped;
    up.full += msg.added.full;
    nextExplorerPart();
    return;
  }
  explorerInfo(null);
  explore();
}

/** A part the backend refused: said at the end, and the next sent. */
function onExplorerRefused(message) {
  if (!explorerUpload) { showError(message); return; }
  explorerUpload.failed.push(message);
  nextExplorerPart();
}

/** The backend is gone (the server's session with it): so are the games
 * counted there, and what was being sent. */
function explorerLost() {
  if (!explorerGames && !explorerUpload) return;
  explorerUpload = null;
  explorerGames = 0;
  explorerPositions = 0;
  explorerShown = null;
  explorerEval = null;
  $('explorer-moves').innerHTML = '';
  $('explorer-info').textContent = "the connection was lost, and the explorer's games with it: add the files again";
}

/** Asks for the moves played from the position shown. */
function explore() {
  if (!state.info) return;
  explorerEval = null;
  if (!explorerGames) { explorerShown = null; $('explorer-moves').innerHTML = ''; return; }
  send({ type: 'explore', variant: state.variant, fen: state.info.fen });
}

function onExplored(msg) {
  if (!state.info || msg.fen !== state.info.fen) return;
  explorerShown = { fen: msg.fen, moves: msg.moves.map((m) => ({ ...m, value: null })) };
  renderExplorer();
  nextExplorerEvaluation();
}

function renderExplorer() {
  const shown = explorerShown;
  if (!shown) { $('explorer-moves').innerHTML = ''; return; }
  if (!shown.moves.length) { $('explorer-moves').innerHTML = '<tr><td class="none">no game reached this position</td></tr>'; return; }
  const pc = (x, n) => Math.round((100 * x) / Math.max(1, n));
  $('explorer-moves').innerHTML = shown.moves.map((m, i) => {
    const [w, d, b] = [pc(m.white, m.games), pc(m.draws, m.games), pc(m.black, m.games)];
    const bar = [['w', w], ['d', d], ['b', b]].map(([c, p]) => `<span class="${c}" data-p="${p}">${p >= 12 ? p + '%' : ''}</span>`).join('');
    const value = m.value == null ? '' : ('result' in m.value ? m.value.result : scoreText(m.value));
    return `<tr class="mv" data-i="${i}" title="${m.white} won by White, ${m.draws} drawn, ${m.black} won by Black"><td class="san">${esc(m.san)}</td><td class="n">${m.games}</td><td class="bar">${bar}</td><td class="ev">${esc(value)}</td></tr>`;
  }).join('');
  // Widths through the style object: the page's Content-Security-Policy
  // refuses style attributes in markup.
  $('explorer-moves').querySelectorAll('.bar span').forEach((el) => { el.style.width = `${el.dataset.p}%`; });
}

$('explorer-moves').onclick = (e) => {
  const tr = e.target.closest('tr.mv');
  if (!tr || !explorerShown) return;
  const m = explorerShown.moves[+tr.dataset.i];
  if (m) playTokens([m.token]);
};

/** Values the next listed move by a short search, when the engine has
 * nothing else to do (analysis, play and game analysis come first). */
function nextExplorerEvaluation() {
  const shown = explorerShown;
  if (!shown || explorerEval || state.analysing || state.playing || game.run) return;
  const i = shown.moves.slice(0, EXPLORER_VALUED).findIndex((m) => m.value == null);
  if (i < 0) return;
  explorerEval = { id: nextId++, fen: shown.fen, token: shown.moves[i].token };
  send({ type: 'evaluate', id: explorerEval.id, variant: state.variant, fen: shown.fen, moves: [shown.moves[i].token], nodes: EXPLORER_NODES });
}

/** An evaluation the explorer asked for: true when it was. */
function onExplorerEvaluation(msg) {
  const ev = explorerEval;
  if (!ev || msg.id !== ev.id) return false;
  explorerEval = null;
  const shown = explorerShown;
  if (shown && shown.fen === ev.fen) {
    const m = shown.moves.find((x) => x.token === ev.token);
    if (m) m.value = msg.value;
    renderExplorer();
    nextExplorerEvaluation();
  }
  return true;
}
window.turncoat.explorer = () => explorerShown;
// The size of each part sent, in bytes of its message.
window.turncoat.explorerSent = [];

// ---------------------------------------------------------------- start

connect();
window.turncoat.ready = () => state.info !== null;
// No position asked for and not answered yet (tests wait for it before
// clicking: an answer arriving between two clicks clears the first).
window.turncoat.idle = () => pending.size === 0;
window.turncoat.t0 = t0;
