// Link boards: open a match or join one by its code; the match's boards, seats and link health.
import { get, post } from "./api.js";

const said = document.getElementById("said");

function cell(row, text) { const td = document.createElement("td"); td.textContent = text; row.append(td); }

async function refresh() {
  let s;
  try { s = await get("/api/link"); } catch (e) { said.textContent = e.message; return; }
  document.getElementById("code").textContent = s.code ? `Match code: ${s.code}` : "";
  const body = document.querySelector("#match tbody");
  body.replaceChildren();
  for (const b of s.boards || []) {
    const row = document.createElement("tr");
    cell(row, b.board + (b.here ? " (this board)" : ""));
    cell(row, b.seats.map((n) => `Player ${n + 1}`).join(", ") || "watching");
    cell(row, b.up ? "up" : "down");
    cell(row, b.rtt_ms === null ? "" : `${b.rtt_ms} ms`);
    body.append(row);
  }
  document.getElementById("health").textContent = !s.match ? "" : s.connected
    ? `connected to the broker${s.refused ? ` · ${s.refused} messages refused` : ""}`
    : "the link is down: the game waits until it is back";
}

// The game on this board: the form offers it, and links it with its options (chosen on the Games page).
let here = null;
async function onBoard() {
  try { here = (await get("/api/state")).game; } catch { return; }
  const game = document.querySelector("#host [name=game]");
  if (!game) return;
  if (game.value === game.defaultValue) game.value = here.id;  // not over what was typed
  const set = Object.entries(here.settings || {}).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ");
  document.getElementById("options").textContent = set ? `With the options of the game on this board: ${set}` : "";
}

for (const [id, path] of [["host", "/api/link/host"], ["join", "/api/link/join"]]) {
  const form = document.getElementById(id);
  if (!form) continue;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    if (data.players) data.players = Number(data.players);
    if (id === "host" && here && data.game === here.id) data.options = here.settings || {};
    try { said.textContent = (await post(path, data)).message; } catch (e) { said.textContent = e.message; }
    refresh();
  });
}
onBoard();
refresh();
setInterval(refresh, 2000);
