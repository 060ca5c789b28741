// A game of your own: check and save a composition; start from one of the companion's own; delete.
import { post, isPaired, openPairing } from "./api.js";

const form = document.getElementById("compose");
const msg = form.querySelector(".message");

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  if (!isPaired()) { openPairing(); msg.textContent = "Pair this phone first."; return; }
  msg.classList.remove("refused");
  try {
    const r = await post("/api/compositions", { text: form.elements.text.value, replace: form.elements.replace.checked });
    msg.textContent = `Saved ${r.game.name}: choose it on Games.`;
    setTimeout(() => location.reload(), 1200);
  } catch (err) { msg.textContent = err.message; msg.classList.add("refused"); }
});

document.querySelectorAll("[data-load]").forEach((b) => b.addEventListener("click", async () => {
  const r = await fetch(`/api/compositions/${b.dataset.load}.toml`);
  // Comments off: the parameters alone, ready to change (and a new id to save it under).
  const text = (await r.text()).split("\n").map((l) => l.replace(/\s+#.*$/, "")).join("\n");
  // A new id and name, so the saved game is told apart from the one it started from.
  form.elements.text.value = text.replace(/^id = "([^"]*)"/m, 'id = "my-$1"').replace(/^name = "([^"]*)"/m, 'name = "My $1"');
  form.elements.text.scrollIntoView();
}));

document.querySelectorAll("[data-delete]").forEach((b) => b.addEventListener("click", async () => {
  if (!isPaired()) { openPairing(); return; }
  try { await post(`/api/compositions/${b.dataset.delete}/delete`); location.reload(); }
  catch (err) { msg.textContent = err.message; msg.classList.add("refused"); }
}));
