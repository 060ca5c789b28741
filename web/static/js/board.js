// Draws a snapshot over the board (its nodes and rods drawn by cloth.js from the shared geometry).
import { drawCloth } from "./cloth.js";

const NS = "http://www.w3.org/2000/svg";
const geometry = new WeakMap();

export function nodesOf(svg) {
  let map = geometry.get(svg);
  if (!map) {
    drawCloth(svg);  // a board's frame as the server sent it has no nodes yet
    map = new Map();
    svg.querySelectorAll("circle.n").forEach((c) => map.set(c.dataset.n, {
      x: +c.getAttribute("cx"), y: +c.getAttribute("cy"), r: +c.getAttribute("r"), focus: c.classList[1] }));
    geometry.set(svg, map);
  }
  return map;
}

function circle(parent, p, r, cls, fill) {
  const c = document.createElementNS(NS, "circle");
  c.setAttribute("cx", p.x); c.setAttribute("cy", p.y); c.setAttribute("r", r);
  c.setAttribute("class", cls);
  if (fill) c.setAttribute("fill", fill);
  parent.appendChild(c);
  return c;
}

// A stone's kind where the game has several (Hyper-Chess's pieces, Grim Reaper's sexes, Battlefield's
// ranks), drawn on the stone: the cloth has the real pieces, the page has only circles. U+FE0E asks for
// the text glyph where a phone would otherwise draw an emoji.
const GLYPHS = { king: "♚", queen: "♛", rook: "♜", bishop: "♝", knight: "♞", pawn: "♟\uFE0E",
  male: "♂\uFE0E", female: "♀\uFE0E", sergeant: "S", lieutenant: "L" };

function text(parent, x, y, size, cls, content) {
  const t = document.createElementNS(NS, "text");
  t.setAttribute("x", x.toFixed(3)); t.setAttribute("y", y.toFixed(3));
  t.setAttribute("font-size", size.toFixed(3));
  t.setAttribute("class", cls);
  t.textContent = content;
  parent.appendChild(t);
}

// The figure, and Grim Reaper's life turns left as a badge at the stone's lower right. Returns whether
// anything was written on the stone (the last-move dot then moves off its centre).
function label(parent, p, stone, fill) {
  const glyph = GLYPHS[stone.kind];
  if (glyph) text(parent, p.x, p.y, p.r * 1.5, `kind ${light(fill) ? "on-light" : "on-dark"}`, glyph);
  if (typeof stone.life === "number") text(parent, p.x + p.r * 0.8, p.y + p.r * 0.75, p.r * 1.05, "life", String(stone.life));
  return !!glyph;
}

// The slice of a stone's circle from turn a to turn b (fractions of a whole turn, clockwise from the top).
function slice(parent, p, r, a, b, fill) {
  const at = (t) => `${(p.x + r * Math.sin(2 * Math.PI * t)).toFixed(3)},${(p.y - r * Math.cos(2 * Math.PI * t)).toFixed(3)}`;
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", `M${p.x},${p.y} L${at(a)} A${r},${r} 0 ${b - a > 0.5 ? 1 : 0} 1 ${at(b)} Z`);
  path.setAttribute("class", "slice");
  path.setAttribute("fill", fill);
  parent.appendChild(path);
  return path;
}

// A choice of this phone or laptop, on or off, kept in its browser (not on the board, which other phones
// share): ``on()`` reads it, ``set(on)`` keeps it (a browser in private mode keeps nothing: off).
export function choice(key) {
  return {
    on() { try { return localStorage.getItem(key) === "on"; } catch { return false; } },
    set(on) { try { if (on) localStorage.setItem(key, "on"); else localStorage.removeItem(key); } catch { /* private mode */ } },
  };
}
// For a player who cannot tell the colours apart. Numbers: each stone carries its player's number, as the
// terminal draws the board, and so does each player's colour chip. Letters: each node of the cloth its
// colour's letter, G R Y B, as the die and the notation name them.
export const numbers = choice("gryb-numbers");
export const letters = choice("gryb-letters");

// The letters on the nodes, under the stones (a stone covers its node's letter, its rim keeps the colour),
// drawn once a board and taken away when the choice is off.
function drawLetters(svg) {
  const drawn = svg.querySelector(".letters");
  if (!letters.on()) { drawn?.remove(); return; }
  if (drawn) return;
  const g = document.createElementNS(NS, "g");
  g.setAttribute("class", "letters");
  g.setAttribute("aria-hidden", "true");
  for (const p of nodesOf(svg).values()) if ("GRYB".includes(p.focus)) text(g, p.x, p.y, p.r * 1.25, `letter ${p.focus}`, p.focus);
  svg.querySelector(".marks").before(g);
}
// The number of the player in a seat: players keep their number when the start moves round.
export const playerNumber = (snap, seat) => ((snap.order || [])[seat] ?? seat) + 1;

function light(colour) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
  if (!m) return true;
  const [r, g, b] = m.slice(1).map((h) => parseInt(h, 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 140;
}

export function draw(svg, snap) {
  const nodes = nodesOf(svg);
  drawLetters(svg);
  // A game without the head node (EZ GRYB, PyraGRYB): the printed node stays on the cloth, faded, out of play.
  svg.classList.toggle("headless", !!(snap.board && snap.board.headless));
  const state = snap.state, table = snap.table || {};
  const marks = svg.querySelector(".marks");
  const grybs = svg.querySelector(".grybs");
  const frag = document.createDocumentFragment();
  const gfrag = document.createDocumentFragment();
  for (const g of state.grybs || []) {
    const pts = g.nodes.map((n) => nodes.get(n)).filter(Boolean);
    if (pts.length < 2) continue;
    const poly = document.createElementNS(NS, "polygon");
    poly.setAttribute("points", pts.map((p) => `${p.x},${p.y}`).join(" "));
    poly.setAttribute("class", "gryb");
    gfrag.appendChild(poly);
  }
  for (const name of table.targets || []) { const p = nodes.get(name); if (p) circle(frag, p, p.r + 0.3, "target"); }
  const written = new Set();
  const numbered = numbers.on();
  for (const [name, stone] of Object.entries(state.stones || {})) {
    const p = nodes.get(name);
    if (!p) continue;
    const fill = (snap.colours || [])[stone.player] || "#fff";
    const c = circle(frag, p, p.r + 0.06, `stone ${p.focus} k-${stone.kind}`, fill);
    c.dataset.player = stone.player;
    // Rings of several players in one space of the shown board (Multiverse): the circle in slices, one
    // per player, the first player's slice the circle itself.
    const sharing = stone.players || [];
    sharing.slice(1).forEach((q, j) => slice(frag, p, p.r + 0.06, (j + 1) / sharing.length, (j + 2) / sharing.length,
      (snap.colours || [])[q] || "#fff").dataset.player = q);
    if (label(frag, p, stone, fill)) written.add(name);
    if (numbered) {  // beside a figure, at its upper left; otherwise in the middle, where the last-move dot was
      const said = (sharing.length ? sharing : [stone.player]).map((q) => playerNumber(snap, q)).join("");
      const figure = written.has(name);
      text(frag, figure ? p.x - p.r * 0.75 : p.x, figure ? p.y - p.r * 0.75 : p.y,
        p.r * (figure ? 0.95 : said.length > 1 ? 1.0 : 1.4), "num", said);
      written.add(name);
    }
  }
  // Markers that are not stones: Multiverse's conduit markers, one ring per player (offset when shared).
  (state.conduits || []).forEach((name, i) => {
    const p = nodes.get(name);
    if (p) circle(frag, p, p.r + 0.5 + 0.22 * i, "conduit").setAttribute("stroke", (snap.colours || [])[i] || "#fff");
  });
  // The last move's nodes: a dot at the centre, or at the upper right where a figure would be covered.
  for (const name of state.last || []) {
    const p = nodes.get(name);
    if (p) circle(frag, written.has(name) ? { x: p.x + p.r * 0.7, y: p.y - p.r * 0.7 } : p, 0.2, "last");
  }
  for (const name of table.picks || []) { const p = nodes.get(name); if (p) circle(frag, p, p.r + 0.36, "pick"); }
  // A computer player's move waiting for hands, as the LEDs show it: from the start its stones blink until
  // lifted and the nodes it fills pulse, so where the stone goes is seen before it is lifted. A hint: its
  // nodes breathe.
  if (table.proposal) {
    const [lift, fill] = proposed(table.proposal, table.picks || []);
    for (const name of lift) { const p = nodes.get(name); if (p) circle(frag, p, p.r + 0.36, "proposal"); }
    for (const name of fill) { const p = nodes.get(name); if (p) circle(frag, p, p.r + 0.36, "proposal to"); }
  }
  if (table.hint) {
    for (const name of actionNodes(table.hint).flat()) { const p = nodes.get(name); if (p) circle(frag, p, p.r + 0.36, "hint-mark"); }
  }
  for (const chore of table.chores || []) { const p = nodes.get(chore.node); if (p) circle(frag, p, p.r + 0.36, `chore ${chore.kind}`); }
  marks.replaceChildren(frag);
  grybs.replaceChildren(gfrag);
}

// Games played on one board per player (Multiverse): every board small, its rings and its conduit marker.
export function drawBoards(container, svg, snap) {
  const boards = snap.state.boards || [];
  container.hidden = !boards.length;
  if (!boards.length) return;
  const names = (snap.table || {}).names || [];
  container.replaceChildren(...boards.map((b, i) => {
    const fig = document.createElement("figure");
    if (i === snap.state.shown_board) fig.className = "shown";
    const mini = svg.cloneNode(true);
    mini.removeAttribute("id");
    for (const a of ["tabindex", "aria-describedby", "data-at"]) mini.removeAttribute(a); // a picture, not the control
    mini.setAttribute("role", "img");
    mini.querySelector(".cursor")?.remove();
    mini.querySelector(".letters")?.remove();  // too small to read, and the cloth's board has them
    mini.querySelector(".leds")?.remove();  // the cloth's LEDs, not this player's board
    mini.setAttribute("aria-label", `${names[i] || "Player " + (i + 1)}'s board`);
    const nodes = nodesOf(mini);
    const frag = document.createDocumentFragment();
    for (const name of b.rings) { const p = nodes.get(name); if (p) circle(frag, p, p.r + 0.06, `stone ${p.focus}`, (snap.colours || [])[i]); }
    const c = nodes.get(b.conduit);
    if (c) circle(frag, c, c.r + 0.5, "conduit").setAttribute("stroke", (snap.colours || [])[i] || "#fff");
    mini.querySelector(".marks").replaceChildren(frag);
    mini.querySelector(".grybs").replaceChildren();
    const caption = document.createElement("figcaption");
    const n = b.rings.length;
    caption.textContent = `${names[i] || "Player " + (i + 1)}${b.out ? " (out)" : ""}: ${n} ring${n === 1 ? "" : "s"}`;
    fig.append(mini, caption);
    return fig;
  }));
}

// The nodes of an action in the notation (docs/notation.md): [stones or entered nodes, targets].
export function actionNodes(text) {
  const parts = text.replace(/^x/, "").split("-").map((p) => p.split(",").filter(Boolean));
  return parts.length === 2 ? parts : [parts[0], []];
}

// A computer player's move still to carry out: [its stones still to lift, the nodes still to fill], those
// pressed already left out (companion/table.py's Table.proposed, which the LEDs show). A removal lifts its
// node and a placement (or a conduit marker's move) fills its own; a line sliding along itself neither lifts
// nor fills the node it keeps.
function proposed(text, picks) {
  const [from, to] = actionNodes(text.replace(/^conduit:/, ""));
  const left = (names) => names.filter((n) => !picks.includes(n));
  if (text.startsWith("x")) return [left(from), []];
  if (!to.length) return [[], left(from)];
  return [left(from.filter((n) => !to.includes(n))), left(to.filter((n) => !from.includes(n)))];
}

// The board of a depth, its cloth drawn: the one shown, or a frame fetched in its place (its id stays "board").
export async function ensureDepth(svg, depth) {
  if (+svg.dataset.depth === depth) { drawCloth(svg); return svg; }
  const r = await fetch(`/board/${depth}.svg`);
  const doc = new DOMParser().parseFromString(await r.text(), "image/svg+xml");
  const fresh = document.importNode(doc.documentElement, true);
  drawCloth(fresh);
  (document.getElementById(svg.id) || svg).replaceWith(fresh);
  return fresh;
}

// A player's stone colour as a small round chip, beside their name (which says whose it is).
export function chip(colour, number) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "chip"); svg.setAttribute("viewBox", "0 0 2 2");
  svg.setAttribute("aria-hidden", "true");
  const dot = document.createElementNS(NS, "circle");
  dot.setAttribute("cx", 1); dot.setAttribute("cy", 1); dot.setAttribute("r", 0.85);
  dot.setAttribute("fill", colour || "#fff");
  svg.appendChild(dot);
  if (number && numbers.on()) text(svg, 1, 1, 1.3, "num", String(number));
  return svg;
}

// One row a player: chip, name, points where the game keeps them (one played win or lose, Hyper-Chess,
// has no column) and, where the game has stones in hand, how many (its own word for them heads the
// column: Grim Reaper's life reserve; a game with none, Hyper-Chess again, has no column).
export function scoreRows(tbody, snap, names) {
  const state = snap.state;
  const { score, hand } = snap.game;
  const sizes = state.stash && state.sizes; // pieces of several sizes (PyraGRYB): what is in hand, size by size
  const heads = ["", "Player", score, hand].filter((h) => h !== null && h !== undefined);
  const head = tbody.parentElement.tHead.rows[0];
  const key = [...heads, ...(sizes || [])].join("|");
  if (head.dataset.key !== key) {
    head.replaceChildren(...heads.map((h, k) => {
      const th = document.createElement("th"); th.textContent = h;
      if (sizes && k === heads.length - 1) { // L · M · S under "In hand"
        const small = document.createElement("small"); small.className = "aim";
        small.textContent = sizes.map((s) => s[0].toUpperCase()).join(" · "); small.title = sizes.join(" · ");
        th.append(small);
      }
      return th;
    }));
    head.dataset.key = key;
  }
  const rows = (state.scores || []).map((points, i) => {
    const tr = document.createElement("tr");
    if (state.to_move === i) tr.className = "to-move";
    if ((state.winners || []).includes(i)) tr.className = "winner";
    const colour = chip((snap.colours || [])[i], playerNumber(snap, i));
    const who = document.createDocumentFragment();
    const name = names[i] || `Player ${i + 1}`;
    who.append(name);
    // A computer seat says so, whatever name it was given (its own, "Computer (medium)", says it already).
    const level = (snap.seats || [])[i];
    if (level && level !== "human" && !name.startsWith("Computer")) {
      const small = document.createElement("small"); small.className = "aim"; small.textContent = `computer, ${level}`; who.append(small);
    }
    const aim = (state.aims || [])[i];
    if (aim) { const small = document.createElement("small"); small.className = "aim"; small.textContent = aim; who.append(small); }
    const cells = [colour, who];
    if (score) cells.push(String(points));
    if (hand) cells.push(sizes ? bySize(state, i) : String((state.in_hand || [])[i] ?? ""));
    cells.forEach((content, k) => {
      const td = document.createElement("td");
      if (k >= 2) td.className = "num";
      td.append(content);
      tr.appendChild(td);
    });
    return tr;
  });
  tbody.replaceChildren(...rows);
}

// A player's pieces size by size, in the order of the column's head: in hand, and under it on the board.
function bySize(state, player) {
  const held = state.stash[player] || [];
  const stones = Object.values(state.stones || {});
  const placed = state.sizes.map((k) => stones.filter((s) => s.player === player && s.kind === k).length);
  const cell = document.createDocumentFragment();
  const small = document.createElement("small"); small.className = "aim"; small.textContent = `on board ${placed.join(" · ")}`;
  cell.append(held.join(" · "), small);
  return cell;
}
