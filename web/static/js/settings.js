// Settings: brightness and night mode go to the board as soon as they change.
import { post, isPaired, openPairing } from "./api.js";

const form = document.getElementById("settings");
const msg = form.querySelector(".message");
const out = document.getElementById("bright-out");
async function save(change) {
  if (!isPaired()) { openPairing(); msg.textContent = "Pair this phone to change settings."; return; }
  try { await post("/api/settings", change); msg.textContent = "Saved."; } catch (e) { msg.textContent = e.message; }
}
form.elements.brightness.addEventListener("input", () => { out.textContent = Math.round(form.elements.brightness.value * 100) + " %"; });
form.elements.brightness.addEventListener("change", () => save({ brightness: +form.elements.brightness.value }));
form.elements.night.addEventListener("change", () => save({ night: form.elements.night.checked }));
form.addEventListener("submit", (e) => e.preventDefault());
document.getElementById("unpair").addEventListener("click", async () => { await post("/api/unpair"); location.reload(); });
document.getElementById("forget-all").addEventListener("click", async () => { await post("/api/pair/forget-all"); location.reload(); });
