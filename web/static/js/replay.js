// Replay: step through a finished game's record; each position comes from the server.
import { get } from "./api.js";
import { draw, drawBoards, scoreRows } from "./board.js";
import { drawCloth } from "./cloth.js";
import { follow, zoomButton } from "./zoom.js";

const main = document.getElementById("replay");
const id = main.dataset.id, total = +main.dataset.total;
const names = JSON.parse(document.getElementById("names").textContent);
const columns = JSON.parse(document.getElementById("columns").textContent); // {score, hand}: their heads
const slider = document.getElementById("ply");
drawCloth(document.getElementById("board"));  // the rods and nodes, before the first step is asked for
let ply = total, snap = { game_id: id, state: {}, table: {} };

let asked = 0; // dragging the slider asks for many positions: only the last one asked is drawn
async function show(n) {
  ply = Math.max(0, Math.min(total, n));
  slider.value = ply;
  const mine = ++asked;
  const r = await get(`/api/history/${id}?ply=${ply}`);
  if (mine !== asked) return;
  snap = { game_id: id, state: r.state, table: { names }, colours: r.colours, order: r.order, game: columns, board: r.board };
  const svg = document.getElementById("board");
  draw(svg, snap);
  follow(svg, snap);  // zoomed, the step just made is brought into the box
  drawBoards(document.getElementById("boards"), svg, snap);  // Multiverse's
  scoreRows(document.getElementById("scores").tBodies[0], snap, names);
  document.getElementById("plyno").textContent = ply;
  // Who made the step and what it was, in words (its notation in the title).
  const step = document.getElementById("action");
  step.textContent = ply ? `· ${r.step}` : "· start";
  step.title = ply ? r.actions[ply - 1] : "";
}
const steps = { first: () => 0, prev: () => ply - 1, next: () => ply + 1, last: () => total };
document.querySelectorAll("[data-step]").forEach((b) => b.addEventListener("click", () => show(steps[b.dataset.step]())));
slider.addEventListener("input", () => show(+slider.value));
zoomButton(document.getElementById("zoom"), document.getElementById("board-view"), () => document.getElementById("board"), () => snap);
show(total);
