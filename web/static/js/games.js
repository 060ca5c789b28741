// Choose a game: one form, set for the game chosen (its name, players, options and series), opened under its
// card; the seats kept in step with the player count; Start sends it.
import { post, isPaired, openPairing } from "./api.js";

const form = document.querySelector("form.newgame");
const count = form.elements.players;
const series = form.elements.series;
const custom = form.querySelector(".custom");
const msg = form.querySelector(".message");

const seats = () => form.querySelectorAll(".seat").forEach((s) => { s.hidden = +s.dataset.seat >= +count.value; });

// The form as the chosen game has it. The names and who plays stay as typed: the same people play whichever
// game they choose. The number of players is who plays now where the game takes as many, else its least.
function setFor(radio) {
  const { name, min, max } = radio.dataset;
  form.dataset.game = radio.value;
  form.querySelectorAll(".chosen").forEach((el) => { el.textContent = name; });
  form.querySelector(".howto").href = `/games/${encodeURIComponent(radio.value)}/rules`;
  const now = +form.dataset.players;
  count.replaceChildren(...Array.from({ length: max - min + 1 }, (_, i) => {
    const n = +min + i;
    return new Option(n, n, false, n === now);
  }));
  seats();
  // Its own options, from the page's template for it (a game without options has no fieldset).
  const options = form.querySelector(".options");
  const own = document.getElementById(`options-${radio.value}`);
  options.replaceChildren(options.querySelector("legend"), ...(own ? [own.content.cloneNode(true)] : []));
  options.hidden = !own;
  // The series its manuals give the game (EZ GRYB: five games, or first to 21 points), and only those; the
  // manuals' default is chosen already. Going on with the series being played is chosen instead on the form
  // of the game being played; a game the manuals give no series starts as just this game.
  const given = new Set(radio.dataset.presets.split(" ").filter(Boolean));
  let preset = "";
  for (const o of series.options) {
    if (!o.dataset.id) continue;
    o.hidden = o.disabled = !given.has(o.dataset.id);
    if (o.dataset.id === radio.dataset.default) preset = o.value;
  }
  series.value = radio.value === form.dataset.current && [...series.options].some((o) => o.value === "continue") ? "continue" : preset;
  custom.hidden = true;
  msg.textContent = "";
  form.querySelector(".confirm").hidden = true;
}

// The chosen game's form opens right under its card, so a phone need not scroll past the whole list.
function pick(radio) {
  setFor(radio);
  const card = radio.closest(".gamecard");
  card.after(form);
  form.hidden = false;
  return card;
}
const still = matchMedia("(prefers-reduced-motion: reduce)");
document.querySelectorAll('input[name="game"]').forEach((r) => r.addEventListener("change", () => {
  pick(r).scrollIntoView({ block: "start", behavior: still.matches ? "auto" : "smooth" });
}));
const checked = document.querySelector('input[name="game"]:checked') || document.querySelector('input[name="game"]');
if (checked) { checked.checked = true; pick(checked); }

count.addEventListener("change", seats);
series.addEventListener("change", () => { custom.hidden = series.value !== "custom"; });
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
  let chosen = null;
  const choice = series.value;
  if (choice.startsWith("preset:")) { const [, method, target] = choice.split(":"); chosen = { method, target: +target }; }
  else if (choice === "continue") chosen = "continue";
  else if (choice === "custom") chosen = { method: form.elements.method.value, target: parseInt(form.elements.target.value, 10) };
  const start = async (abandon) => {
    await post("/api/games/new", { game: form.dataset.game, players, options, names, seats: kinds, series: chosen, ...(abandon ? { abandon } : {}) });
    location.href = "/";
  };
  try { await start(false); } catch (err) {
    if (err.status !== 409) { msg.textContent = err.message; return; }
    // A game is under way: the runtime says which, and starts this one only once the player agrees.
    confirmSays.textContent = err.message + ".";
    confirmBox.hidden = false;
    confirmBox.querySelector("[data-abandon]").onclick = () => start(true).catch((e) => { msg.textContent = e.message; });
    confirmBox.querySelector("[data-abandon]").focus();
  }
});
const confirmBox = form.querySelector(".confirm");
const confirmSays = document.getElementById("confirm-says");
form.addEventListener("input", () => { confirmBox.hidden = true; });
