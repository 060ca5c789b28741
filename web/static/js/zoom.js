// Zoom: the board twice as large in a box of its usual size that the finger scrolls. On a phone of 320-360
// px a bottom-level node is a target of about 20 px, under the 24 px a fingertip needs (WCAG 2.2's target
// size); zoomed it is about 40. The choice is this phone's (kept in its browser, as the player numbers).
// While zoomed, what the player must see next is scrolled into the box when it is outside it: the
// computer's move, the hint, a pick, a chore, another player's last move; and the keyboard's ring.
import { actionNodes, choice } from "./board.js";

const zoom = choice("gryb-zoom");

// The box a board sits in, when that box is zoomed (null otherwise: nothing to scroll).
function box(svg) {
  const view = svg && svg.parentElement;
  return view && view.classList.contains("zoomed") ? view : null;
}

function nodeAt(svg, name) {
  return svg.querySelector(`circle.n[data-n="${CSS.escape(name)}"]`);
}

// Whether the node is wholly inside the zoomed box.
function inside(view, el) {
  const v = view.getBoundingClientRect(), r = el.getBoundingClientRect();
  return r.left >= v.left && r.right <= v.right && r.top >= v.top && r.bottom <= v.bottom;
}

// Whether the node's middle is in the zoomed box: at least half of it shows, enough to see and to tap (a
// node the player has just tapped at the box's edge is not scrolled away from under the finger).
function shown(view, el) {
  const v = view.getBoundingClientRect(), r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  return x >= v.left && x <= v.right && y >= v.top && y <= v.bottom;
}

// Scroll the zoomed box (only the box, never the page) to put the node in its middle.
function centre(view, el, smooth) {
  const v = view.getBoundingClientRect(), r = el.getBoundingClientRect();
  view.scrollBy({ left: r.left + r.width / 2 - (v.left + v.width / 2), top: r.top + r.height / 2 - (v.top + v.height / 2),
    behavior: smooth ? "smooth" : "auto" });
}

// Bring the node into the zoomed box if it is not in it already (a node in view stays where it is).
export function reveal(svg, name, smooth = true) {
  const view = box(svg), el = view && name && nodeAt(svg, name);
  if (el && !inside(view, el)) centre(view, el, smooth);
}

// The nodes worth following, most pressing first, kind by kind: the computer's move (its stone), the hint,
// a pick, a chore, the last move.
function kinds(snap) {
  const table = snap.table || {}, state = snap.state || {};
  return [
    table.proposal ? actionNodes(table.proposal).flat() : [],
    table.hint ? actionNodes(table.hint).flat() : [],
    table.picks || [],
    (table.chores || []).map((c) => c.node),
    state.last || [],
  ];
}
const spots = (snap) => kinds(snap).flat();

// After each drawing: when what is worth following has changed, the most pressing kind of it decides: none
// of it in the box, the box scrolls to the first of it (the computer's move off the box is not left there
// because the player's own last move is in it).
// A finger on the box is the player looking round: nothing followed scrolls the box from under it (it jumped
// mid-drag, and the finger went on dragging from where it landed).
let followed = "", held = false;
export function follow(svg, snap) {
  const all = kinds(snap);
  const key = JSON.stringify([snap.game_id, all.flat()]);
  if (key === followed) return;
  followed = key;
  const view = box(svg);
  if (!view || held) return;
  const els = all.map((names) => names.map((n) => nodeAt(svg, n)).filter(Boolean)).find((found) => found.length);
  if (els && !els.some((el) => shown(view, el))) centre(view, els[0], true);
}

// The Zoom button: pressed, the box scrolls and the board inside it is twice as large. Zooming keeps in the
// middle what was in the middle (the head node, from the whole board), or goes to what is worth following in
// ``snap()``, the snapshot shown.
export function zoomButton(button, view, board, snap) {
  function set(on, keep) {
    const svg = board();
    const v = view.getBoundingClientRect();
    // Where the middle of the box is, as a fraction of the board, before the change.
    const s = svg.getBoundingClientRect();
    const fx = (v.left + v.width / 2 - s.left) / s.width, fy = (v.top + v.height / 2 - s.top) / s.height;
    view.classList.toggle("zoomed", on);
    button.setAttribute("aria-pressed", String(on));
    if (keep) zoom.set(on);
    if (!on) return;
    const name = spots(snap())[0];
    const el = name && nodeAt(svg, name);
    if (el) { centre(view, el, false); return; }
    const z = svg.getBoundingClientRect();
    view.scrollTo({ left: fx * z.width - view.clientWidth / 2, top: fy * z.height - view.clientHeight / 2 });
  }
  const hold = (e) => { held = e.touches.length > 0; };
  for (const type of ["touchstart", "touchend", "touchcancel"]) view.addEventListener(type, hold, { passive: true });
  set(zoom.on(), false);
  button.addEventListener("click", () => set(view.classList.contains("zoomed") ? false : true, true));
}
