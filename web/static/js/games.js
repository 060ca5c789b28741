// Choose a game: show the chosen game's form, keep seats in step with the player count, start it.
import { post, isPaired, openPairing } from "./api.js";

const forms = [...document.querySelectorAll("form.newgame")];
// The chosen game's form opens right under its card, so a phone need not scroll past the whole list.
function pick(radio) {
  forms.forEach((f) => { f.hidden = f.dataset.game !== radio.value; });
  const form = forms.find((f) => f.dataset.game === radio.value);
  const card = radio.closest(".gamecard");
  if (form && card) card.after(form);
  return card;
}
const still = matchMedia("(prefers-reduced-motion: reduce)");
document.querySelectorAll('input[name="game"]').forEach((r) => r.addEventListener("change", () => {
  pick(r).scrollIntoView({ block: "start", behavior: still.matches ? "auto" : "smooth" });
}));
const checked = document.querySelector('input[name="game"]:checked') || document.querySelector('input[name="game"]');
if (checked) { checked.checked = true; pick(checked); }

for (const form of forms) {
  const count = form.elements.players;
  const seats = () => form.querySelectorAll(".seat").forEach((s) => { s.hidden = +s.dataset.seat >= +count.value; });
  count.addEventListener("change", seats); seats();
  const custom = form.querySelector(".custom");
  form.elements.series.addEventListener("change", () => { custom.hidden = form.elements.series.value !== "custom"; });
  const msg = form.querySelector(".message");
  // A reason given for the form as it was goes once it changes (the browser's own note on a field out
  // of range would otherwise sit beside a server's answer about another value).
  form.addEventListener("input", () => { msg.textContent = ""; });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!isPaired()) { openPairing(); msg.textContent = "Pair this phone first."; return; }
    const players = +count.value;
    const options = {};
    form.querySelectorAll("[name^='opt-']").forEach((el) => {
      const name = el.name.slice(4);
      if (el.dataset.type === "bool") options[name] = el.checked;
      else if (el.dataset.type === "int") options[name] = parseInt(el.value, 10);
      else options[name] = el.value;
    });
    const names = [], kinds = [];
    for (let i = 0; i < players; i++) { names.push(form.elements["name" + i].value.trim()); kinds.push(form.elements["kind" + i].value); }
    let series = null;
    const choice = form.elements.series.value;
    if (choice.startsWith("preset:")) { const [, method, target] = choice.split(":"); series = { method, target: +target }; }
    else if (choice === "continue") series = "continue";
    else if (choice === "custom") series = { method: form.elements.method.value, target: parseInt(form.elements.target.value, 10) };
    try {
      await post("/api/games/new", { game: form.dataset.game, players, options, names, seats: kinds, series });
      location.href = "/";
    } catch (err) { msg.textContent = err.message; }
  });
}
