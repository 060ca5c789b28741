// Settings: brightness and night mode go to the board as soon as they change.
import { get, post, isPaired, openPairing } from "./api.js";
import { cancelSelftest, say, selftestHowFar, selftestSays, watchStatus } from "./hardware.js";

const form = document.getElementById("settings");
const msg = form.querySelector(".message");
const out = document.getElementById("bright-out");
// The API's field names as the form labels them, for its messages.
const LABELS = [[/\bcolours\[(\d)\]/g, (m, i) => `Player ${+i + 1}'s colour`], [/^colours\b/, () => "Stone colours"],
  [/^time_scale\b/, () => "Thinking time"], [/^budget_ma\b/, () => "LED power supply"],
  [/^brightness\b/, () => "Brightness"]];
const plain = (text) => LABELS.reduce((t, [re, fn]) => t.replace(re, fn), text);

const percent = (fraction) => Math.round(fraction * 100) + " %";

// Every field as the companion has it now: a refused change goes back to the value in force.
function show(settings) {
  const f = form.elements;
  f.brightness.value = settings.brightness;
  out.textContent = percent(settings.brightness);
  f.night.checked = settings.night;
  f.sounds.checked = settings.sounds;
  f.die.value = settings.die;
  f.stones.value = settings.stones;
  f.budget_ma.value = settings.budget_ma;
  f.time_scale.value = settings.time_scale;
  settings.colours.forEach((c, i) => { f["colour" + i].value = c.toLowerCase(); });
}

async function restore() {
  try { show((await get("/api/settings")).settings); } catch (err) { /* the message already says what went wrong */ }
}

async function save(change) {
  // Unpaired, nothing is saved: the field goes back too, so it never shows a value the board is not using.
  if (!isPaired()) { openPairing(); msg.textContent = "Pair this phone to change settings."; restore(); return; }
  try {
    const answer = await post("/api/settings", change);
    if (answer.settings) show(answer.settings);
    msg.textContent = "Saved.";
  } catch (e) {
    msg.textContent = plain(e.message) + " (not saved)";
    restore();
  }
}
form.elements.brightness.addEventListener("input", () => { out.textContent = percent(form.elements.brightness.value); });
form.elements.brightness.addEventListener("change", () => save({ brightness: +form.elements.brightness.value }));
form.elements.night.addEventListener("change", () => save({ night: form.elements.night.checked }));
form.elements.sounds.addEventListener("change", () => save({ sounds: form.elements.sounds.checked }));
form.elements.die.addEventListener("change", () => save({ die: form.elements.die.value }));
form.elements.stones.addEventListener("change", () => save({ stones: form.elements.stones.value }));
form.elements.budget_ma.addEventListener("change", () => save({ budget_ma: Math.round(+form.elements.budget_ma.value) }));
form.elements.time_scale.addEventListener("change", () => save({ time_scale: +form.elements.time_scale.value }));
const colours = () => [0, 1, 2, 3].map((i) => form.elements["colour" + i].value.toUpperCase());
for (let i = 0; i < 4; i++) form.elements["colour" + i].addEventListener("change", () => save({ colours: colours() }));

// The hardware status and the self-test, kept live (hardware.js): the table as the server words it, the
// self-test's progress or report, and its Cancel while it runs.
const report = document.getElementById("selftest-report");
const howFar = document.getElementById("selftest-how-far");
const cancel = document.getElementById("selftest-cancel");
function showStatus(status) {
  const rows = (status.shown || []).map(([label, text]) => {
    const tr = document.createElement("tr"), th = document.createElement("th"), td = document.createElement("td");
    th.textContent = label; td.textContent = text; tr.append(th, td);
    return tr;
  });
  const table = document.getElementById("status");
  if (rows.map((r) => r.outerHTML).join("") !== [...table.rows].map((r) => r.outerHTML).join("")) table.replaceChildren(...rows);
  const s = status.selftest;
  cancel.hidden = !(s && s.running);
  if (s) { say(report, selftestSays(s)); say(howFar, selftestHowFar(s)); }
}
document.getElementById("selftest").addEventListener("click", async () => {
  if (!isPaired()) { openPairing(); return; }
  try { await post("/api/selftest"); say(report, selftestSays({ running: true, step: "sweep" })); cancel.hidden = false; }
  catch (e) { say(report, e.message); }
});
cancel.addEventListener("click", async () => { say(report, await cancelSelftest()); say(howFar, ""); cancel.hidden = true; });
watchStatus(showStatus);
form.addEventListener("submit", (e) => e.preventDefault());
document.getElementById("unpair").addEventListener("click", async () => { await post("/api/unpair"); location.reload(); });
document.getElementById("forget-all").addEventListener("click", async () => {
  // Every paired phone, this one too, must pair again with a code from the board.
  if (!window.confirm("Forget all phones? Every phone, this one too, will have to pair again.")) return;
  await post("/api/pair/forget-all"); location.reload();
});
