// What the LEDs show, laid over the virtual board: on the simulator there are no LEDs to look at, and the page
// draws the board from the game's state, not the self-test's sweep, the status pixels or the current
// limiter's dimming. A glow round each lit node in its LED's colour, under the stones, as the cloth glows
// round its printed dot; the status pixels in a line of the panel.
// GET /api/leds is asked every quarter second while the choice is on (a frame unchanged since is a bodiless
// 304), and not at all while it is off or the page is out of sight. Off at each load: it is a look at the
// hardware, not a way of playing.
import { get } from "./api.js";
import { nodesOf } from "./board.js";

const NS = "http://www.w3.org/2000/svg";
const EVERY = 250;  // ms between asks: the LEDs change at up to 30 frames a second, the eye needs fewer

function circle(parent, x, y, r, cls, fill) {
  const c = document.createElementNS(NS, "circle");
  c.setAttribute("cx", x); c.setAttribute("cy", y); c.setAttribute("r", r);
  c.setAttribute("class", cls);
  if (fill) c.setAttribute("fill", fill);
  parent.appendChild(c);
  return c;
}

// The glows on a board: in their own group under the nodes, so the printed dot, the stones and the rings
// stay on top and a tap still reaches the node.
function glow(svg, leds) {
  let group = svg.querySelector(".leds");
  if (!group) {
    group = document.createElementNS(NS, "g");
    group.setAttribute("class", "leds");
    group.setAttribute("aria-hidden", "true");
    svg.querySelector(".nodes").before(group);
  }
  const nodes = nodesOf(svg);
  const frag = document.createDocumentFragment();
  for (const [name, colour] of Object.entries(leds.nodes)) {
    const p = nodes.get(name);  // the cloth's nodes: a smaller board has fewer, a Giant one shows none of its own
    if (p) circle(frag, p.x, p.y, p.r + 0.45, "led", colour).dataset.n = name;
  }
  for (const name of leds.withheld) {
    const p = nodes.get(name);
    if (p) circle(frag, p.x, p.y, p.r + 0.45, "led withheld").dataset.n = name;
  }
  group.replaceChildren(frag);
}

// The status pixels in a row: the first half (whose turn it is), a gap, the other half (the die).
function pixels(strip, status) {
  const half = status.length / 2;
  strip.replaceChildren();
  status.forEach((colour, i) => circle(strip, i + 0.5 + (i < half ? 0 : 1), 0.5, 0.4, "pixel", colour));
}

// The choice ``box`` (a checkbox), the board shown now ``board()``, the line with the status pixels
// (``line``, its svg ``strip``) and the note said while a pairing code's nodes are withheld.
export function ledsChoice(box, board, line, strip, note) {
  let round = 0;  // each time the LEDs are shown a new round of asking begins; an older one stops
  let drawn = null;  // what was drawn last: the board, the frame and whether nodes were withheld

  async function ask(mine) {
    while (mine === round) {
      try {
        const leds = await get("/api/leds");
        const svg = board(), key = `${leds.frames} ${leds.withheld.length}`;
        if (mine !== round) return;
        if (!drawn || drawn.svg !== svg || drawn.key !== key) {  // a new frame, or a board of another depth
          glow(svg, leds);
          pixels(strip, leds.status);
          note.hidden = !leds.withheld.length;
          drawn = { svg, key };
        }
      } catch { /* the board is away: the page says so already, and the next ask tries again */ }
      await new Promise((resolve) => setTimeout(resolve, EVERY));
    }
  }

  function show(on) {
    round++;
    drawn = null;
    line.hidden = !on;
    if (!on) { board().querySelector(".leds")?.remove(); note.hidden = true; return; }
    ask(round);
  }

  box.checked = false;
  box.addEventListener("change", () => show(box.checked));
  // Out of sight, nothing is asked; back in sight, the LEDs again as they are now.
  document.addEventListener("visibilitychange", () => { if (box.checked) { if (document.hidden) round++; else show(true); } });
}
