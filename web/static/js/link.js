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

for (const [id, path] of [["host", "/api/link/host"], ["join", "/api/link/join"]]) {
  const form = document.getElementById(id);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    if (data.players) data.players = Number(data.players);
    try { said.textContent = (await post(path, data)).message; } catch (e) { said.textContent = e.message; }
    refresh();
  });
}
refresh();
setInterval(refresh, 2000);
