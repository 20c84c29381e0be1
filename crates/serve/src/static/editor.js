// The position editor, after lichess's board editor: pieces placed, moved and
// removed on a board of its own (chessground's free moves, its drag of new
// pieces from the palettes), the side to move, castling rights, the en
// passant square, and the variant's own state (docs/RULES.md, FEN: fields):
// Attending Pawns' links, a Cruise Pawns missile in flight. Like the page, it
// knows no rules: it builds the FEN text, and the backend judges it (live,
// and when the position is loaded), its reason shown as it gives it.
import { Chessground } from './vendor/chessground.min.js';

const COLORS = ['white', 'black'];
const ROLES = ['king', 'queen', 'rook', 'bishop', 'knight', 'pawn'];
const LETTERS = { king: 'k', queen: 'q', rook: 'r', bishop: 'b', knight: 'n', pawn: 'p' };
const ROLE_OF = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
const FILES = 'abcdefgh';
const CASTLING = ['K', 'Q', 'k', 'q'];
const CASTLING_NAMES = { K: 'White O-O', Q: 'White O-O-O', k: 'Black O-O', q: 'Black O-O-O' };

// What a variant's FEN holds beyond the six standard fields (docs/RULES.md,
// FEN: fields: only these two have a seventh field), and Pacifist, which has
// no en passant at all (Pacifist: FEN).
const SEVENTH = { attendingpawns: 'links', cruisepawns: 'missile' };
const NO_EN_PASSANT = new Set(['pacifist']);

/** Quiet time after an edit before the backend is asked about the position. */
const CHECK_DELAY_MS = 150;
/** The panel's least width beside the board (as editor.css's .ed-panel). */
const PANEL_MIN_PX = 300;
/** The smallest board put beside the panel; narrower, the panel goes under. */
const BESIDE_MIN_PX = 320;
/** Never smaller than this, however small the window. */
const BOARD_MIN_PX = 192;

const squareIndex = (sq) => FILES.indexOf(sq[0]) + 8 * (Number(sq[1]) - 1);
const isSquare = (s) => /^[a-h][1-8]$/.test(s);
const letterOf = (p) => (p ? (p.color === 'white' ? LETTERS[p.role].toUpperCase() : LETTERS[p.role]) : '');

/** A FEN's board field as chessground's pieces, or null when it is not 8
 * ranks of 8 squares with known letters. */
function parseBoard(field) {
  const rows = field.split('/');
  if (rows.length !== 8) return null;
  const pieces = new Map();
  for (let r = 0; r < 8; r++) {
    let file = 0;
    for (const ch of rows[r]) {
      if (/[1-8]/.test(ch)) { file += Number(ch); continue; }
      const role = ROLE_OF[ch.toLowerCase()];
      if (!role || file > 7) return null;
      pieces.set(FILES[file] + (8 - r), { role, color: ch === ch.toLowerCase() ? 'black' : 'white' });
      file += 1;
    }
    if (file !== 8) return null;
  }
  return pieces;
}

/** The editor's reading of a FEN's text (the fields' format only), or null
 * when it cannot show it: the backend then says what is wrong. */
function parseFen(text, variant) {
  const f = text.trim().split(/\s+/);
  if (f.length < 4 || f.length > 7) return null;
  const pieces = parseBoard(f[0]);
  if (!pieces || !/^[wb]$/.test(f[1]) || !/^(-|[KQkq]+)$/.test(f[2]) || !/^(-|[a-h][1-8])$/.test(f[3])) return null;
  if ((f[4] !== undefined && !/^\d+$/.test(f[4])) || (f[5] !== undefined && !/^\d+$/.test(f[5]))) return null;
  const out = {
    pieces,
    turn: f[1],
    castling: CASTLING.filter((c) => f[2].includes(c)).join(''),
    ep: f[3],
    half: f[4] ?? '0',
    full: f[5] ?? '1',
    links: null,
    missile: null,
  };
  const seventh = f[6];
  const kind = SEVENTH[variant];
  if (seventh !== undefined && !kind) return null;
  if (kind === 'links') {
    if (seventh === undefined) out.links = null; // the default links
    else if (seventh === '-') out.links = [];
    else {
      const pairs = seventh.split(',');
      if (!pairs.every((p) => /^[a-h][1-8][a-h][1-8]$/.test(p))) return null;
      out.links = pairs.map((p) => ({ c: p.slice(0, 2), p: p.slice(2) }));
    }
  }
  if (kind === 'missile' && seventh !== undefined && seventh !== '-') {
    const m = /^([a-h][1-8])\*((?:[a-h][1-8])*)$/.exec(seventh);
    if (!m) return null;
    out.missile = { launch: m[1], path: m[2].match(/../g) || [] };
  }
  return out;
}

/**
 * The editor. `api` connects it to the page:
 * - `startFen(variant)`: the variant's start position;
 * - `check(variant, fen)`: a promise of the backend's answer `{ ok, msg }`
 *   (a position request: `msg.fen`, `msg.links` when accepted, `msg.message`
 *   when refused; an answer overtaken by a newer request never comes);
 * - `load(variant, fen)`: the position as a new game, a promise of
 *   `{ ok, msg }` the same way;
 * - `closed()`: the game's page is shown again;
 * - `leave()`: called on Cancel, after the editor asked the backend anything
 *   (the game's position is the backend's again).
 */
export function createEditor(api) {
  const ed = {
    open: false,
    variant: 'chess',
    orientation: 'white',
    tool: 'pointer', // pointer | trash | link | missile | `${color}-${role}`
    turn: 'w',
    castling: 'KQkq',
    ep: '-',
    half: '0',
    full: '1',
    // Attending Pawns: [{ c, p, cp, pp }], the celebrity's and the pawn's
    // squares and the letters of the pieces they joined when linked (a link
    // goes with the pieces it joins); null: the 7th field absent, so the
    // default links.
    links: [],
    linkFrom: null, // the celebrity picked in link mode
    missile: null, // Cruise Pawns: { launch, path }
    asked: false, // the backend was asked something while editing
  };
  let cg = null;
  let root = null;
  const el = {};
  const headerDisabled = new Map();

  // ------------------------------------------------------------ DOM

  function build() {
    root = document.getElementById('editor');
    root.innerHTML = '';
    const boardcol = div('ed-boardcol');
    el.top = div('ed-spare cg-wrap');
    el.board = div('cg-wrap');
    el.board.id = 'editor-board';
    el.bottom = div('ed-spare cg-wrap');
    el.tools = div('ed-tools');
    const tool = (name, label, title) => {
      const b = button(label, title);
      b.id = `editor-tool-${name}`;
      b.dataset.tool = name;
      b.addEventListener('click', () => setTool(name));
      el.tools.appendChild(b);
      return b;
    };
    tool('pointer', '↔ Move', 'Move pieces: drag them, or click one then a square; drag one off the board to remove it');
    tool('trash', '✕ Remove', 'Click (or drag over) pieces to remove them');
    el.linkTool = tool('link', '∞ Links', "Attending Pawns: click a piece, then a pawn of its colour to link them; click a link's pawn (or the same two squares) to undo it");
    el.missileTool = tool('missile', '➶ Missile', 'Cruise Pawns: click the launch square, then the path square by square up to the target; click the last square again to take it back');
    boardcol.append(el.top, el.board, el.bottom, el.tools);

    const panel = div('ed-panel');
    const title = document.createElement('h2');
    title.textContent = 'Position editor';
    el.variant = select('editor-variant', []);
    el.variant.addEventListener('change', () => setVariant(el.variant.value));
    el.turn = select('editor-turn', [['w', 'White to play'], ['b', 'Black to play']]);
    el.turn.addEventListener('change', () => { ed.turn = el.turn.value; ed.ep = '-'; changed(); });
    const castling = document.createElement('fieldset');
    castling.innerHTML = '<legend>Castling</legend>';
    el.castling = {};
    for (const c of CASTLING) {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.id = `editor-castle-${c === c.toUpperCase() ? 'w' : 'b'}${c.toLowerCase()}`;
      box.addEventListener('change', () => {
        ed.castling = CASTLING.filter((x) => (x === c ? box.checked : ed.castling.includes(x))).join('');
        changed();
      });
      label.append(box, ` ${CASTLING_NAMES[c]}`);
      castling.appendChild(label);
      el.castling[c] = box;
    }
    el.ep = select('editor-ep', []);
    el.ep.title = 'The square a double step just passed over (listed where a pawn stands past an empty square)';
    el.ep.addEventListener('change', () => { ed.ep = el.ep.value; changed(); });
    el.epLabel = labelled('En passant', el.ep);

    el.linksBox = div('ed-state');
    el.linksBox.id = 'editor-links';
    el.missileBox = div('ed-state');
    el.missileBox.id = 'editor-missile';

    const row = div('ed-row');
    const start = button('Start position', "The variant's start position");
    start.id = 'editor-start';
    start.addEventListener('click', () => applyFen(api.startFen(ed.variant), true));
    const clear = button('Clear board', 'An empty board');
    clear.id = 'editor-clear';
    clear.addEventListener('click', clearBoard);
    const flip = button('⇅ Flip', 'Flip the board');
    flip.id = 'editor-flip';
    flip.addEventListener('click', flipBoard);
    row.append(start, clear, flip);

    el.fen = document.createElement('input');
    el.fen.id = 'editor-fen';
    el.fen.spellcheck = false;
    el.fen.autocomplete = 'off';
    el.fen.title = 'The FEN being built; type or paste one to set the board';
    el.fen.addEventListener('input', typed);
    el.fen.addEventListener('change', () => { if (ed.links === null) scheduleCheck(); });
    el.fen.addEventListener('keydown', (e) => { if (e.key === 'Enter') load(); });
    el.status = div('ed-status');
    el.status.id = 'editor-status';
    el.status.setAttribute('role', 'status');

    const done = div('ed-row');
    el.load = button('Load position', 'Leave the editor and start a game from this position (Enter in the FEN field)');
    el.load.id = 'editor-load';
    el.load.classList.add('primary');
    el.load.addEventListener('click', load);
    const cancel = button('Cancel', 'Leave the editor; the game stays as it was');
    cancel.id = 'editor-cancel';
    cancel.addEventListener('click', () => close(false));
    done.append(el.load, cancel);

    panel.append(title, labelled('Variant', el.variant), labelled('Side to move', el.turn), castling, el.epLabel,
      el.linksBox, el.missileBox, row, labelled('FEN', el.fen, 'ed-fenlabel'), el.status, done);
    root.append(boardcol, panel);

    // Tools other than the pointer act on a press (and a drag) themselves:
    // chessground, below, does not see those presses.
    for (const type of ['mousedown', 'touchstart']) el.board.addEventListener(type, press, { capture: true, passive: false });
    el.board.addEventListener('mousemove', paint);
    el.board.addEventListener('touchmove', paint, { passive: false });
    document.addEventListener('mouseup', () => { painting = null; });
    document.addEventListener('touchend', () => { painting = null; });
    el.board.addEventListener('contextmenu', (e) => e.preventDefault());

    window.addEventListener('resize', () => { if (ed.open) fit(); });

    // Keys belong to the editor while it is open (the page's own keys step
    // through the game and flip its board).
    window.addEventListener('keydown', (e) => {
      if (!ed.open) return;
      const tag = (e.target && e.target.tagName) || '';
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
      e.stopImmediatePropagation();
      if (e.key === 'f') flipBoard();
      else if (e.key === 'Escape' && ed.linkFrom) { ed.linkFrom = null; render(); }
    }, true);
  }

  const div = (cls) => { const d = document.createElement('div'); d.className = cls; return d; };
  function button(text, title) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    if (title) b.title = title;
    return b;
  }
  function select(id, options) {
    const s = document.createElement('select');
    s.id = id;
    setOptions(s, options);
    return s;
  }
  function setOptions(s, options) {
    s.innerHTML = '';
    for (const [value, text] of options) {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = text;
      s.appendChild(o);
    }
  }
  function labelled(text, control, cls) {
    const l = document.createElement('label');
    if (cls) l.className = cls;
    l.append(`${text} `, control);
    return l;
  }

  /** The palettes: the colour at the top of the board above it. */
  function renderSpares() {
    const top = ed.orientation === 'white' ? 'black' : 'white';
    for (const [box, color] of [[el.top, top], [el.bottom, top === 'white' ? 'black' : 'white']]) {
      box.innerHTML = '';
      box.dataset.color = color;
      for (const role of ROLES) {
        const name = `${color}-${role}`;
        const cell = div('ed-piece');
        cell.dataset.piece = name;
        cell.title = `${color === 'white' ? 'White' : 'Black'} ${role}: click squares to place it, or drag it onto the board`;
        const piece = document.createElement('piece');
        piece.className = `${color} ${role}`;
        cell.appendChild(piece);
        // Pressed: the piece is the tool, and follows the pointer until
        // dropped (on the board: placed there).
        const grab = (e) => {
          if (e.type === 'mousedown' && e.button !== 0) return;
          e.preventDefault();
          setTool(name);
          cg.dragNewPiece({ color, role }, e, true);
        };
        cell.addEventListener('mousedown', grab);
        cell.addEventListener('touchstart', grab, { passive: false });
        box.appendChild(cell);
      }
    }
    markTool();
  }

  /** The board's side: as much as the window gives beside the panel (above
   * it on a phone), the palettes above and below it and the tools under it
   * in view; whole pixels a square. */
  function fit() {
    const main = root.parentElement;
    const px = (e, prop) => parseFloat(getComputedStyle(e)[prop]) || 0;
    const column = document.documentElement.clientWidth - px(main, 'paddingLeft') - px(main, 'paddingRight');
    const beside = column - px(root, 'columnGap') - PANEL_MIN_PX;
    const width = beside >= BESIDE_MIN_PX ? beside : column;
    const col = el.top.parentElement;
    // Under and around the board: the palettes' padding, the tools, the
    // column's gaps and main's padding; the palettes are an eighth of the
    // board each.
    const fixed = 2 * (px(el.top, 'paddingTop') + px(el.top, 'paddingBottom')) + el.tools.offsetHeight
      + 3 * px(col, 'rowGap') + px(main, 'paddingBottom');
    const top = el.top.getBoundingClientRect().top + window.scrollY;
    const height = ((window.innerHeight - top - fixed) * 8) / 10;
    const size = Math.max(BOARD_MIN_PX, Math.floor(Math.min(width, height) / 8) * 8);
    root.style.setProperty('--editor-board', `${size}px`);
  }

  // ------------------------------------------------------------ board

  function makeBoard() {
    cg = Chessground(el.board, {
      orientation: ed.orientation,
      coordinates: true,
      autoCastle: false,
      animation: { enabled: false },
      highlight: { lastMove: false, check: false },
      movable: { free: true, color: 'both', showDests: false },
      premovable: { enabled: false },
      draggable: { enabled: true, showGhost: true, deleteOnDropOff: true },
      selectable: { enabled: true },
      drawable: {
        enabled: false,
        visible: true,
        brushes: {
          link: { key: 'lnk', color: '#7a5cc2', opacity: 0.8, lineWidth: 6 },
          missile: { key: 'mis', color: '#d4350b', opacity: 0.85, lineWidth: 8 },
        },
      },
      events: {
        // A piece moved on the board takes its links along; a piece it
        // lands on loses its own.
        move: (orig, dest) => {
          if (!ed.links) return;
          ed.links = ed.links.filter((l) => l.c !== dest && l.p !== dest);
          for (const l of ed.links) {
            if (l.c === orig) l.c = dest;
            if (l.p === orig) l.p = dest;
          }
        },
        change: boardChanged,
      },
    });
  }

  const pieceAt = (sq) => cg.state.pieces.get(sq);

  function keyAt(e) {
    const t = e.touches && e.touches[0] ? e.touches[0] : e;
    return cg.getKeyAtDomPos([t.clientX, t.clientY]) || null;
  }

  let painting = null; // a press of the piece or trash tool being dragged: { mode, last }

  function press(e) {
    if (ed.tool === 'pointer' || (cg.state.draggable.current && cg.state.draggable.current.newPiece)) return;
    if (e.type === 'mousedown' && e.button !== 0) return;
    e.stopPropagation();
    e.preventDefault();
    const sq = keyAt(e);
    if (!sq) return;
    if (ed.tool === 'link') linkClick(sq);
    else if (ed.tool === 'missile') missileClick(sq);
    else if (ed.tool === 'trash') { painting = { mode: 'erase', last: sq }; setPiece(sq, undefined); }
    else {
      const want = toolPiece();
      const here = pieceAt(sq);
      // Clicking the tool's own piece takes it away (and a drag goes on
      // taking those away).
      const same = here && here.role === want.role && here.color === want.color;
      painting = { mode: same ? 'erase-same' : 'place', last: sq };
      setPiece(sq, same ? undefined : want);
    }
  }

  /** A drag with the piece or trash tool pressed: every square it enters. */
  function paint(e) {
    if (!painting) return;
    if (e.type === 'mousemove' && !(e.buttons & 1)) { painting = null; return; }
    if (e.cancelable) e.preventDefault();
    const sq = keyAt(e);
    if (!sq || sq === painting.last) return;
    painting.last = sq;
    if (painting.mode === 'erase') setPiece(sq, undefined);
    else if (painting.mode === 'place') setPiece(sq, toolPiece());
    else {
      const want = toolPiece();
      const here = pieceAt(sq);
      if (here && here.role === want.role && here.color === want.color) setPiece(sq, undefined);
    }
  }

  function toolPiece() {
    const [color, role] = ed.tool.split('-');
    return { color, role };
  }

  function setPiece(sq, piece) {
    cg.setPieces(new Map([[sq, piece]]));
    boardChanged();
  }

  /** After any change of the pieces: the links whose pieces are gone or
   * changed go too. */
  function boardChanged() {
    if (ed.links) ed.links = ed.links.filter((l) => letterOf(pieceAt(l.c)) === l.cp && letterOf(pieceAt(l.p)) === l.pp);
    if (ed.linkFrom && !isCelebrity(ed.linkFrom)) ed.linkFrom = null;
    changed();
  }

  const isCelebrity = (sq) => { const p = pieceAt(sq); return !!p && p.role !== 'pawn'; };

  function linkClick(sq) {
    const here = pieceAt(sq);
    if (ed.links === null) ed.links = [];
    if (ed.linkFrom && here && here.role === 'pawn' && here.color === pieceAt(ed.linkFrom).color) {
      const from = ed.linkFrom;
      const had = ed.links.some((l) => l.c === from && l.p === sq);
      // A square is in one link at most: a new link replaces those of its
      // two squares; the same two squares again undo the link.
      ed.links = ed.links.filter((l) => l.c !== from && l.p !== sq);
      if (!had) ed.links.push({ c: from, p: sq, cp: letterOf(pieceAt(from)), pp: letterOf(here) });
      ed.linkFrom = null;
      changed();
      return;
    }
    if (here && here.role !== 'pawn') {
      ed.linkFrom = ed.linkFrom === sq ? null : sq;
      render();
      return;
    }
    if (here && here.role === 'pawn' && ed.links.some((l) => l.p === sq)) {
      ed.links = ed.links.filter((l) => l.p !== sq);
      ed.linkFrom = null;
      changed();
      return;
    }
    ed.linkFrom = null;
    render();
  }

  function missileClick(sq) {
    const m = ed.missile;
    if (!m) ed.missile = { launch: sq, path: [] };
    else if ((m.path.length ? m.path[m.path.length - 1] : m.launch) === sq) {
      if (m.path.length) m.path.pop();
      else ed.missile = null;
    } else m.path.push(sq);
    changed();
  }

  // ------------------------------------------------------------ the FEN

  const sortedLinks = () => ed.links.slice().sort((a, b) => squareIndex(a.c) - squareIndex(b.c));
  const missileText = () => (ed.missile ? `${ed.missile.launch}*${ed.missile.path.join('')}` : '-');

  /** The FEN the editor's state makes. */
  function buildFen() {
    // A missile in flight leaves no en passant square (Cruise Pawns: FEN).
    const ep = ed.missile || NO_EN_PASSANT.has(ed.variant) ? '-' : ed.ep;
    let fen = `${cg.getFen()} ${ed.turn} ${ed.castling || '-'} ${ep} ${ed.half} ${ed.full}`;
    const kind = SEVENTH[ed.variant];
    if (kind === 'links' && ed.links !== null) fen += ' ' + (ed.links.length ? sortedLinks().map((l) => l.c + l.p).join(',') : '-');
    if (kind === 'missile') fen += ' ' + missileText();
    return fen;
  }

  /** Sets the editor to a FEN (`rewrite`: the field shows it as the editor
   * writes it); false when the editor cannot read it. */
  function applyFen(text, rewrite) {
    const f = parseFen(text, ed.variant);
    if (!f) return false;
    cg.set({ fen: text.trim().split(/\s+/)[0] });
    ed.turn = f.turn;
    ed.castling = f.castling;
    ed.ep = f.ep;
    ed.half = f.half;
    ed.full = f.full;
    ed.links = f.links && f.links.map((l) => ({ ...l, cp: letterOf(pieceAt(l.c)), pp: letterOf(pieceAt(l.p)) }));
    ed.linkFrom = null;
    ed.missile = f.missile;
    changed(!rewrite);
    return true;
  }

  /** Typed in the FEN field: the board follows what it can read. */
  function typed() {
    const ok = applyFen(el.fen.value, false);
    el.fen.classList.toggle('bad', !ok);
    if (!ok) scheduleCheck();
  }

  function clearBoard() {
    cg.set({ fen: '8/8/8/8/8/8/8/8' });
    ed.castling = '';
    ed.ep = '-';
    ed.links = SEVENTH[ed.variant] === 'links' ? [] : null;
    ed.linkFrom = null;
    ed.missile = null;
    changed();
  }

  function flipBoard() {
    ed.orientation = ed.orientation === 'white' ? 'black' : 'white';
    cg.set({ orientation: ed.orientation });
    renderSpares();
    render();
  }

  function setVariant(v) {
    const kind = SEVENTH[v];
    ed.variant = v;
    // Another variant's state does not carry over; Attending Pawns starts
    // from its default links (the 7th field absent) until they are edited.
    if (kind !== 'links') ed.links = null;
    if (kind !== 'missile') ed.missile = null;
    ed.linkFrom = null;
    if ((ed.tool === 'link' && kind !== 'links') || (ed.tool === 'missile' && kind !== 'missile')) ed.tool = 'pointer';
    changed();
  }

  function setTool(name) {
    ed.tool = name;
    ed.linkFrom = null;
    painting = null;
    cg.selectSquare(null);
    markTool();
    render();
  }

  function markTool() {
    root.querySelectorAll('[data-tool], [data-piece]').forEach((b) => {
      b.classList.toggle('on', (b.dataset.tool || b.dataset.piece) === ed.tool);
    });
    el.board.dataset.tool = ed.tool;
  }

  /** After an edit: the controls and the field show it, and the backend is
   * asked about it (`keepText`: the field was typed, and stays as typed). */
  function changed(keepText) {
    if (!keepText) {
      el.fen.value = buildFen();
      el.fen.classList.remove('bad');
    }
    render();
    scheduleCheck();
  }

  /** En passant squares to offer: on the side to move's 6th rank (3rd for
   * Black), an empty square with an empty square behind it and a pawn in
   * front (the shape a double step leaves); the backend keeps it only if the
   * rules do. */
  function epCandidates() {
    const white = ed.turn === 'w';
    const [rank, from, past] = white ? [6, 7, 5] : [3, 2, 4];
    const out = [];
    for (const f of FILES) {
      const pawn = pieceAt(f + past);
      if (!pieceAt(f + rank) && !pieceAt(f + from) && pawn && pawn.role === 'pawn') out.push(f + rank);
    }
    return out;
  }

  // ------------------------------------------------------------ drawing

  function render() {
    if (!cg) return;
    el.turn.value = ed.turn;
    for (const c of CASTLING) el.castling[c].checked = ed.castling.includes(c);
    const noEp = NO_EN_PASSANT.has(ed.variant);
    el.epLabel.hidden = noEp;
    const squares = epCandidates();
    if (ed.ep !== '-' && !squares.includes(ed.ep)) squares.push(ed.ep);
    setOptions(el.ep, [['-', '–'], ...squares.map((s) => [s, s])]);
    el.ep.value = ed.missile ? '-' : ed.ep;
    el.ep.disabled = !!ed.missile;

    const kind = SEVENTH[ed.variant];
    el.linkTool.hidden = kind !== 'links';
    el.missileTool.hidden = kind !== 'missile';
    el.linksBox.hidden = kind !== 'links';
    el.missileBox.hidden = kind !== 'missile';
    if (kind === 'links') renderLinks();
    if (kind === 'missile') renderMissile();

    const shapes = [];
    const custom = new Map();
    if (kind === 'links' && ed.links) for (const l of ed.links) shapes.push({ orig: l.c, dest: l.p, brush: 'link' });
    if (kind === 'missile' && ed.missile) {
      const path = [ed.missile.launch, ...ed.missile.path];
      for (let i = 0; i + 1 < path.length; i++) shapes.push({ orig: path[i], dest: path[i + 1], brush: 'missile' });
      custom.set(ed.missile.launch, 'launch');
      if (ed.missile.path.length) custom.set(path[path.length - 1], 'target');
    }
    if (ed.linkFrom) {
      custom.set(ed.linkFrom, 'sel');
      const colour = pieceAt(ed.linkFrom).color;
      for (const [sq, p] of cg.state.pieces) if (p.role === 'pawn' && p.color === colour) custom.set(sq, 'dest-oc');
    }
    cg.set({ highlight: { lastMove: false, check: false, custom } });
    cg.setAutoShapes(shapes);
  }

  function renderLinks() {
    const box = el.linksBox;
    box.innerHTML = '';
    const head = document.createElement('div');
    head.className = 'ed-statehead';
    head.textContent = 'Links (celebrity → pawn)';
    const defaults = button('Default links', "The links the rules give when the FEN has none: each pawn on its own 2nd rank with the piece behind it");
    defaults.id = 'editor-links-default';
    defaults.addEventListener('click', () => { ed.links = null; ed.linkFrom = null; changed(); });
    const none = button('No links', 'Every pawn unattached');
    none.id = 'editor-links-clear';
    none.addEventListener('click', () => { ed.links = []; ed.linkFrom = null; changed(); });
    head.append(' ', defaults, ' ', none);
    box.appendChild(head);
    const list = div('ed-list');
    if (ed.links === null) list.textContent = 'the default links (the FEN has no 7th field)';
    else if (!ed.links.length) list.textContent = 'none: use ∞ Links, then click a piece and a pawn';
    for (const l of ed.links ? sortedLinks() : []) {
      const item = document.createElement('span');
      item.className = 'ed-item';
      item.dataset.link = l.c + l.p;
      item.textContent = `${l.c}→${l.p} `;
      const x = button('✕', `Remove the link ${l.c}${l.p}`);
      x.addEventListener('click', () => { ed.links = ed.links.filter((k) => k !== l); changed(); });
      item.appendChild(x);
      list.appendChild(item);
    }
    box.appendChild(list);
  }

  function renderMissile() {
    const box = el.missileBox;
    box.innerHTML = '';
    const head = document.createElement('div');
    head.className = 'ed-statehead';
    head.textContent = 'Missile in flight ';
    const text = document.createElement('code');
    text.textContent = ed.missile ? missileText() : 'none';
    head.appendChild(text);
    if (ed.missile) {
      const x = button('✕', 'No missile in flight');
      x.id = 'editor-missile-clear';
      x.addEventListener('click', () => { ed.missile = null; changed(); });
      head.append(' ', x);
    }
    box.appendChild(head);
    const hint = div('ed-list');
    hint.textContent = ed.missile
      ? (ed.missile.path.length ? `launched from ${ed.missile.launch}, target ${ed.missile.path[ed.missile.path.length - 1]}; the side to move is the defender` : `launched from ${ed.missile.launch}: click its path square by square`)
      : 'use ➶ Missile, then click the launch square and the path';
    box.appendChild(hint);
  }

  // ------------------------------------------------------------ the backend's word

  let checkTimer = null;
  let checkSeq = 0;

  function scheduleCheck() {
    clearTimeout(checkTimer);
    checkSeq++;
    checkTimer = setTimeout(runCheck, CHECK_DELAY_MS);
  }

  async function runCheck() {
    if (!ed.open) return;
    const seq = ++checkSeq;
    const fen = el.fen.value.trim();
    const variant = ed.variant;
    setStatus('', 'checking…');
    ed.asked = true;
    const { ok, msg } = await api.check(variant, fen);
    if (seq !== checkSeq || !ed.open) return; // edited since: a newer check runs
    if (!ok) { setStatus('bad', msg.message); return; }
    // The 7th field absent: the default links, as the rules place them,
    // written out (once the field is left: not under the user's typing).
    if (SEVENTH[variant] === 'links' && ed.links === null && Array.isArray(msg.links)) {
      if (document.activeElement === el.fen) {
        setStatus('good', `A legal position, with the default links (${msg.links.map((l) => l.join('')).join(',') || 'none'}).`);
        return;
      }
      ed.links = msg.links.map(([c, p]) => ({ c, p, cp: letterOf(pieceAt(c)), pp: letterOf(pieceAt(p)) }));
      el.fen.value = buildFen();
      el.fen.classList.remove('bad');
      render();
      return scheduleCheck();
    }
    setStatus('good', readsAs(fen, msg.fen));
  }

  /** What the rules make of the FEN sent, where it is not what was written
   * (castling rights or an en passant square they drop). */
  function readsAs(sent, got) {
    const a = sent.split(/\s+/);
    const b = got.split(/\s+/);
    const names = ['board', 'side to move', 'castling', 'en passant', 'halfmove clock', 'move number', '7th field'];
    const diffs = [];
    for (let i = 0; i < names.length; i++) {
      if (a[i] !== undefined && b[i] !== undefined && a[i] !== b[i]) diffs.push(`${names[i]} '${b[i]}' (not '${a[i]}')`);
    }
    return diffs.length ? `A legal position; the rules read it with ${diffs.join(', ')}.` : 'A legal position.';
  }

  function setStatus(kind, text) {
    el.status.textContent = text;
    el.status.className = `ed-status ${kind}`;
  }

  async function load() {
    clearTimeout(checkTimer);
    const seq = ++checkSeq;
    const fen = el.fen.value.trim();
    setStatus('', 'loading…');
    ed.asked = true;
    const { ok, msg } = await api.load(ed.variant, fen);
    if (!ed.open) return;
    if (ok) { close(true); return; }
    // Refused: the reason, and the position stays as edited.
    if (seq === checkSeq) setStatus('bad', msg.message);
  }

  // ------------------------------------------------------------ open and close

  function open({ variant, variants, fen, orientation }) {
    if (!root) build();
    ed.open = true;
    ed.asked = false;
    setOptions(el.variant, variants.map((v) => [v, v]));
    ed.variant = variants.includes(variant) ? variant : variants[0];
    el.variant.value = ed.variant;
    ed.orientation = orientation;
    ed.tool = 'pointer';
    root.hidden = false;
    document.body.classList.add('editing');
    fit();
    // The game's controls wait until the editor is left.
    for (const id of ['variant', 'fen', 'edit-position']) {
      const c = document.getElementById(id);
      if (c) { headerDisabled.set(c, c.disabled); c.disabled = true; }
    }
    // Shown again, the board measures itself anew before anything is drawn
    // (a redraw asked for earlier would draw into the elements it replaces).
    if (!cg) makeBoard();
    else { cg.redrawAll(); cg.set({ orientation }); }
    renderSpares();
    if (!applyFen(fen, true)) applyFen(api.startFen(ed.variant), true);
    clearTimeout(checkTimer);
    checkSeq++;
    setStatus('', 'Place pieces with the palettes, then Load position.');
  }

  function close(loaded) {
    ed.open = false;
    clearTimeout(checkTimer);
    checkSeq++;
    painting = null;
    root.hidden = true;
    document.body.classList.remove('editing');
    for (const [c, was] of headerDisabled) c.disabled = was;
    headerDisabled.clear();
    api.closed();
    if (!loaded && ed.asked) api.leave();
  }

  const isOpen = () => ed.open;
  return {
    open,
    isOpen,
    // For tests: the editor's orientation and state.
    state: () => ({ open: ed.open, orientation: ed.orientation, tool: ed.tool, variant: ed.variant, fen: ed.open ? el.fen.value : null }),
  };
}
