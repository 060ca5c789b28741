// Talking to the companion: JSON POSTs with the session's CSRF token, pairing, the live feed.
const meta = document.querySelector('meta[name="csrf-token"]');
let csrf = meta && meta.content ? meta.content : null;
const listeners = new Set();

export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

export const isPaired = () => csrf !== null;
export function onPairing(fn) { listeners.add(fn); fn(isPaired()); }

function setPaired(token) {
  csrf = token || null;
  const btn = document.getElementById("pair-open");
  if (btn) { btn.textContent = csrf ? "Paired" : "Pair"; btn.dataset.paired = csrf ? "yes" : "no"; }
  listeners.forEach((fn) => fn(isPaired()));
}

export async function post(path, data) {
  const headers = { "Content-Type": "application/json" };
  if (csrf) headers["X-CSRF-Token"] = csrf;
  let r;
  try {
    r = await fetch(path, { method: "POST", headers, body: JSON.stringify(data || {}), credentials: "same-origin" });
  } catch (e) { // no answer at all: the companion is off, restarting, or out of the phone's reach
    throw new ApiError(0, "no answer from the board: is it on and on this network? Try again.");
  }
  let answer = {};
  try { answer = await r.json(); } catch (e) { /* empty body */ }
  if (r.status === 401) { setPaired(null); openPairing(); }
  if (!r.ok) throw new ApiError(r.status, answer.error || r.statusText);
  if ("csrf" in answer) setPaired(answer.csrf);
  return answer;
}

export async function get(path) {
  const r = await fetch(path, { credentials: "same-origin" });
  if (!r.ok) throw new ApiError(r.status, r.statusText);
  return r.json();
}

// The live feed. EventSource reconnects by itself after a drop; a page put in the background
// closes its stream (phones kill them anyway) and opens a fresh one, which starts with the newest
// snapshot, when it comes back.
function offline(lost) {
  const note = document.getElementById("offline");
  if (note) note.hidden = !lost;
}

export function live(onSnapshot) {
  let source = null;
  let retry = null;
  const open = () => {
    clearTimeout(retry);
    if (source) source.close();
    source = new EventSource("/api/events");
    source.onmessage = (e) => {
      offline(false);
      try { onSnapshot(JSON.parse(e.data)); } catch (err) { console.error(err); }
    };
    source.onerror = () => {
      offline(true); // what the page shows may be out of date until the feed is back
      if (source.readyState === EventSource.CLOSED) retry = setTimeout(open, 2000);
    };
  };
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) { if (source) { source.close(); source = null; } }
    else open();
  });
  window.addEventListener("pageshow", (e) => { if (e.persisted) open(); });
  open();
}

// -- pairing ---------------------------------------------------------------------------------
const panel = document.getElementById("pair-panel");
let typed = "";

function showSlots() {
  panel.querySelectorAll(".slots span").forEach((el, i) => { el.className = typed[i] || ""; el.textContent = typed[i] || ""; });
}

function say(text) { panel.querySelector("#pair-msg").textContent = text; }

// A pairing code as four coloured dots.
function showCode(view, code) {
  view.replaceChildren(...[...code].map((c) => { const s = document.createElement("span"); s.className = "dot " + c; s.textContent = c; return s; }));
}

let attempt = 0; // a late answer to an abandoned start must not show its (no longer valid) code
let shownCode = null; // the code the sheet shows (the laptop simulator: this page is the board) while it lives

// The code the sheet shows is spent (used, or expired): it says so, and New code is due.
function spent() {
  shownCode = null;
  panel.querySelector("#pair-shown").classList.add("spent");
  panel.querySelector("#pair-again").classList.add("attention");
}

async function startCode() {
  const mine = ++attempt;
  typed = ""; showSlots(); say("");
  const shown = panel.querySelector("#pair-shown");
  shown.hidden = true;
  shownCode = null;
  shown.classList.remove("spent");
  panel.querySelector("#pair-again").classList.remove("attention");
  try {
    const r = await post("/api/pair/start");
    if (mine !== attempt || panel.hidden) return;
    if (r.code) { // the laptop simulator: this page is the board
      shown.hidden = false;
      shownCode = r.code;
      showCode(shown.querySelector(".codeview"), r.code);
    }
    say("Look at the board and tap its colours.");
  } catch (e) { if (mine === attempt) say(e.message); }
}

// The simulator's own page on the laptop is the board: it shows the code a phone on the LAN asked for,
// as the LEDs would (asked every two seconds while the page is in view, and after a wrong try), and its own
// sheet learns there when the code it shows is no longer the board's.
const banner = document.getElementById("pair-banner");
async function showAsked() {
  if (!banner || document.hidden) return;
  const asked = attempt;
  try {
    const { code } = await get("/api/pair/shown");
    if (shownCode && code !== shownCode && asked === attempt) spent();
    banner.hidden = !code || !panel.hidden; // this page's own sheet shows its own code
    if (code) showCode(banner.querySelector(".codeview"), code);
  } catch (e) { banner.hidden = true; }
}
if (banner) { setInterval(showAsked, 2000); showAsked(); }

export function openPairing() {
  if (!panel || !panel.hidden) return;
  panel.hidden = false;
  startCode();
}

async function key(c) {
  if (typed.length >= 4) return;
  typed += c; showSlots();
  if (typed.length < 4) return;
  try {
    await post("/api/pair", { code: typed });
    say("Paired. This phone can now play.");
    setTimeout(() => { panel.hidden = true; }, 600);
  } catch (e) { say(e.message); typed = ""; setTimeout(showSlots, 400); showAsked(); }
}

if (panel) {
  panel.querySelectorAll(".key").forEach((b) => b.addEventListener("click", () => key(b.dataset.c)));
  panel.querySelector("#pair-again").addEventListener("click", startCode);
  panel.querySelector("#pair-close").addEventListener("click", () => { attempt++; panel.hidden = true; });
  document.getElementById("pair-open").addEventListener("click", () => { if (!isPaired()) openPairing(); else location.href = "/settings"; });
  document.querySelectorAll("[data-pair]").forEach((b) => b.addEventListener("click", openPairing));
}
