// Zoom: the board larger in a box of its usual size that the finger scrolls. On a phone of 320-360 px a
// bottom-level node is a target of about 20 px, under the 24 px a fingertip needs (WCAG 2.2's target size);
// zoomed it is about 40 (the standard board twice as large, the Giant boards more: style.css). The choice is this phone's (kept in its browser, as the player numbers).
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

// Whether the node is in the zoomed box: ``whole``, all of it; otherwise its middle, so that at least half
// of it shows, enough to see and to tap (a node the player has just tapped at the box's edge is not scrolled
// away from under the finger).
function inside(view, el, whole) {
  const v = view.getBoundingClientRect(), r = el.getBoundingClientRect();
  if (whole) return r.left >= v.left && r.right <= v.right && r.top >= v.top && r.bottom <= v.bottom;
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
  if (el && !inside(view, el, true)) centre(view, el, smooth);
}

// The nodes worth following, most pressing first, kind by kind: the computer's move (the node of it to press
// next: its stone, then once picked its target, so what blinks is what comes into the box), the hint, a pick,
// a chore, the last move, and last the nodes the rules let the player press (after a roll: where it lets them
// go; Multiverse's node die: the one node rolled).
function kinds(snap) {
  const table = snap.table || {}, state = snap.state || {};
  const picks = table.picks || [];
  return [
    table.proposal ? actionNodes(table.proposal).flat().filter((n) => !picks.includes(n)).slice(0, 1) : [],
    table.hint ? actionNodes(table.hint).flat() : [],
    picks,
    (table.chores || []).map((c) => c.node),
    state.last || [],
    table.targets || [],
  ];
}

// Scroll the box to the first of these nodes when none of them is in it.
function toward(view, svg, names, smooth) {
  const els = names.map((n) => nodeAt(svg, n)).filter(Boolean);
  if (els.length && !els.some((el) => inside(view, el, false))) centre(view, els[0], smooth);
}

// After each drawing, the news decides: of the kinds that have changed since the last drawing, the most
// pressing one; when none of its nodes is in the box, the box scrolls to the first of them. So the
// computer's move off the box is scrolled to though the player's own move is in it, another player's move
// is followed though it left the player's targets as they were, and the targets a roll brings are followed
// though the last move (unchanged by the roll) is in the box.
// A finger on the box is the player looking round: nothing followed scrolls the box from under it (it jumped
// mid-drag, and the finger went on dragging from where it landed).
let before = [], game = null, held = false;
export function follow(svg, snap) {
  const now = kinds(snap), keys = now.map((names) => JSON.stringify(names));
  const was = snap.game_id === game ? before : [];
  game = snap.game_id;
  before = keys;
  const view = box(svg);
  if (!view || held) return;
  const k = keys.findIndex((key, i) => key !== was[i] && now[i].length);
  if (k >= 0) toward(view, svg, now[k], true);
}

// The Zoom button: pressed, the box scrolls and the board inside it is larger. Zooming keeps in the middle
// what was in the middle (the head node, from the whole board), unless that leaves out all of the most
// pressing kind of what is worth following in ``snap()``, the snapshot shown: then it goes to the first.
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
    const z = svg.getBoundingClientRect();
    view.scrollTo({ left: fx * z.width - view.clientWidth / 2, top: fy * z.height - view.clientHeight / 2 });
    toward(view, svg, kinds(snap()).find((names) => names.length) || [], false);
  }
  const hold = (e) => { held = e.touches.length > 0; };
  for (const type of ["touchstart", "touchend", "touchcancel"]) view.addEventListener(type, hold, { passive: true });
  set(zoom.on(), false);
  button.addEventListener("click", () => set(!view.classList.contains("zoomed"), true));
}
