// The board from the keyboard, for a laptop's player and for a screen reader: the board is one tab stop;
// the arrows move a ring to the nearest node that way, the letters G R Y B walk the manuals' notation
// down (R, then G, is RG; a letter on a bottom-level node starts again at the top), Backspace goes up a
// level, 0 or Home is the head node, and Enter or Space presses the node under the ring, as a tap does.
// What is under the ring is said in a live region. A tap moves the ring too, so the two mix.
import { nodesOf } from "./board.js";
import { reveal } from "./zoom.js";

const ARROWS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
const NS = "http://www.w3.org/2000/svg";

// The node a step away in a direction: ahead of the ring, nearest, and as straight ahead as may be.
function step(nodes, from, [dx, dy]) {
  const p = nodes.get(from);
  let best = null, cost = Infinity;
  for (const [name, q] of nodes) {
    const along = (q.x - p.x) * dx + (q.y - p.y) * dy;
    if (along < 0.1) continue;
    const across = Math.abs((q.x - p.x) * dy - (q.y - p.y) * dx);
    const c = along + 2 * across;
    if (c < cost) { cost = c; best = name; }
  }
  return best;
}

// The node a key leads to from ``at`` on a board of ``depth`` levels, or null for a key that moves nothing.
function next(nodes, at, key, depth) {
  if (key in ARROWS) return step(nodes, at, ARROWS[key]);
  if (/^[gryb]$/i.test(key)) return (at === "0" || at.length >= depth ? "" : at) + key.toUpperCase();
  if (key === "Backspace") return at.length > 1 ? at.slice(0, -1) : "0";
  if (key === "0" || key === "Home") return "0";
  return null;
}

// The board as one control: focusable, saying how it is worked (each board the page swaps in, too).
export function focusable(svg) {
  if (svg.hasAttribute("tabindex")) return;
  svg.setAttribute("tabindex", "0");
  svg.setAttribute("role", "application");
  svg.setAttribute("aria-describedby", "board-keys");
}

// Keys on the boards inside ``wrap``: ``board()`` is the board shown now, ``press(name)`` presses a node,
// ``describe(name)`` says what is on it.
export function boardKeys(wrap, board, press, describe) {
  const say = document.getElementById("board-say");
  let at = "0";

  function show(svg, speak, scroll = speak) {
    const p = nodesOf(svg).get(at);
    let ring = svg.querySelector("circle.cursor");
    if (!ring) {
      ring = document.createElementNS(NS, "circle");
      ring.setAttribute("class", "cursor");
      svg.appendChild(ring);
    }
    ring.setAttribute("cx", p.x); ring.setAttribute("cy", p.y); ring.setAttribute("r", p.r + 0.5);
    svg.dataset.at = at;
    if (speak) say.textContent = describe(at);
    if (scroll) reveal(svg, at);
  }

  wrap.addEventListener("keydown", (e) => {
    const svg = board();
    if (e.target !== svg || e.altKey || e.ctrlKey || e.metaKey) return;
    const nodes = nodesOf(svg);
    if (!nodes.has(at)) at = "0";
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      press(at);
      return;
    }
    const to = next(nodes, at, e.key, +svg.dataset.depth);
    if (to === null) return;
    e.preventDefault(); // the arrows and Space would scroll the page, Backspace once went back
    if (!nodes.has(to)) return; // a letter past the board's depth: the ring stays
    at = to;
    show(svg, true);
  });
  wrap.addEventListener("focusin", (e) => {
    const svg = board();
    if (e.target !== svg) return;
    if (!nodesOf(svg).has(at)) at = "0";
    // A tap or a click gives the board the keyboard too, its ring unseen (:focus-visible is the keyboard's):
    // a zoomed box scrolled to that ring would move under the finger, between a pick and its target.
    show(svg, true, svg.matches(":focus-visible"));
  });
  wrap.addEventListener("click", (e) => {
    const node = e.target.closest && e.target.closest("circle.n");
    if (!node) return;
    at = node.dataset.n;
    show(board(), false);
  });
}
