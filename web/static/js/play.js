// Now playing: the live board, whose turn, the die, scores; taps and buttons go to the API.
import { get, post, live, onPairing, isPaired, openPairing } from "./api.js";
import { actionNodes, chip, draw, drawBoards, ensureDepth, letters, numbers, playerNumber, scoreRows } from "./board.js";
import { drawCloth } from "./cloth.js";
import { boardKeys, focusable } from "./keys.js";
import { follow, zoomButton } from "./zoom.js";
import { cancelSelftest, selftestHowFar, selftestSays, watchStatus } from "./hardware.js";
import { ledsChoice } from "./leds.js";

const $ = (id) => document.getElementById(id);
let snap = JSON.parse($("initial").textContent);
let svg = $("board");
drawCloth(svg);  // the rods and nodes, before anything looks for them
const COLOUR = { G: "green", R: "red", Y: "yellow", B: "blue" };

// Snapshots are drawn one at a time, the newest waiting: drawing awaits the board of a new depth, and
// two draws at once would both swap out the old board, leaving the page drawing on one that is not shown.
let waiting = null, drawing = false;
async function show(s) {
  waiting = s;
  if (drawing) return;
  drawing = true;
  try {
    while (waiting) { const next = waiting; waiting = null; await render(next); }
  } finally { drawing = false; }
}

let shownOnce = false;
async function render(s) {
  const before = snap;
  snap = s;
  const depth = (s.board && s.board.depth) || 4;
  svg = await ensureDepth(svg, depth);
  focusable(svg);
  draw(svg, s);
  follow(svg, s);
  drawBoards($("boards"), svg, s);
  const state = s.state, table = s.table, names = table.names || [];
  const turnChip = $("turn-chip");
  if (state.over) {
    say($("turn-name"), state.winners.length ? state.winners.map((w) => names[w]).join(" & ") + " won" : "a draw");
    turnChip.setAttribute("fill", state.winners.length ? s.colours[state.winners[0]] : "#888");
    $("turn-num").textContent = numbers.on() && state.winners.length ? playerNumber(s, state.winners[0]) : "";
  } else {
    say($("turn-name"), `${names[state.to_move] || "?"} to ${state.awaiting_roll ? "roll" : "move"}`);
    turnChip.setAttribute("fill", s.colours[state.to_move] || "#fff");
    $("turn-num").textContent = numbers.on() ? playerNumber(s, state.to_move) : "";
  }
  const die = $("die");
  const face = state.die_shown;  // as the board's die LEDs: blank while a roll is due (state.die is the last roll)
  die.className = "die" + (face && COLOUR[face] ? " " + face : face ? " node" : " blank");
  die.textContent = face || "–";
  die.setAttribute("aria-label", face ? `die shows ${COLOUR[face] || face}` : "die not rolled");
  // A refusal is news once: the page as loaded shows the table's message, not a refusal made before it.
  const fb = shownOnce ? s.feedback : null;
  shownOnce = true;
  // What the player to move owes (a removal, a second move, a pass), in the session's words; the message
  // ends with it when the move just made brought it, said once here.
  const owed = table.owed || "";
  say($("owed"), owed);
  $("owed").hidden = !owed;
  let text = (fb && fb.message) || table.message || "";
  if (owed && text.endsWith(" · " + owed)) text = text.slice(0, -(owed.length + 3));
  $("message").textContent = text === $("turn-name").textContent ? "" : text;
  $("message").classList.toggle("refused", !!(fb && !fb.ok));
  $("chores").replaceChildren(...(table.chores || []).map((c) => { const li = document.createElement("li"); li.textContent = c.text; return li; }));
  // Presses that fit several actions (e.g. Grim Reaper's sex and lifespan): one button for each.
  $("choices").replaceChildren(...choiceGroups(table.choices || []));
  $("roll").classList.toggle("attention", !!state.awaiting_roll && !state.over);
  $("roll").classList.toggle("idle", !state.awaiting_roll || state.over); // no roll due: dimmed (a tap says why)
  // Games without a die ('Drangles, Hyper-Chess, the Morris games ...): no ROLL and no die face; but one
  // that rolls now and then all the same (Grim Reaper's random life, after a birth) shows them from then.
  $("roll").hidden = $("die").hidden = s.game.die === "none" && !state.awaiting_roll && !state.die_shown;
  scoreRows($("scores").tBodies[0], s, names);
  // Points as they change (a GRYB found, a move undone): the table is no live region, the move's message
  // ("Ann: B") does not say them, and a GRYB's outline is for the eye.
  if (s.game.score && before.game_id === s.game_id) {
    const was = before.state.scores || [];
    const changed = (state.scores || []).flatMap((p, i) => (p === was[i] ? [] : [`${names[i] || "Player " + (i + 1)}: ${p} point${p === 1 ? "" : "s"}`]));
    if (changed.length) $("points-say").textContent = changed.join(", ");
  }
  $("grybs-found").hidden = !s.game.grybs;  // only where GRYBs are found (not Hyper-Chess, Grim Reaper ...)
  const list = $("grybs");
  if ((state.grybs || []).length) {
    list.replaceChildren(...state.grybs.map((g) => {
      const li = document.createElement("li");
      // Points only in a game that keeps them (25 Men's GRYB is played win or lose).
      li.textContent = s.game.score ? `${g.nodes.join(" ")} · ${g.points} point${g.points === 1 ? "" : "s"}` : g.nodes.join(" ");
      return li;
    }));
  } else {
    const li = document.createElement("li"); li.className = "none"; li.textContent = "none yet"; list.replaceChildren(li);
  }
  seriesLine(s);
  seatList(s);
  legalList(s);
  $("game-name").textContent = s.game.name;
  $("game-rules").href = `/games/${encodeURIComponent(s.game.id)}/rules`;
  $("again").hidden = !state.over;
  $("again").textContent = s.series && s.series.over ? "New series" : "Play again";
  // At a game's end OK, under the board, plays it again and says so: scrolling down to Play again took
  // the board, and how the game ended, out of a phone's view.
  $("ok").textContent = state.over ? $("again").textContent : "OK";
  // OK looks enabled only when it does something (EZ GRYB's tap ends the turn; OK would say "roll first").
  $("ok").classList.toggle("idle", !table.ok_does);
  $("die-note").hidden = s.game.die === "none";
  document.body.dataset.version = s.version;
}

// Text in a live region (whose turn it is), written only when it changes: every snapshot draws the panel
// again, and words written again would be read out again.
function say(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// The series under the scores: how it is played, the totals, and its end once decided; a timed series
// counts down, from the time the snapshot gives, by this page's clock between snapshots.
let countdown = null;
function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
function seriesLine(s) {
  const line = $("series");
  clearInterval(countdown);
  const series = s.series;
  line.hidden = !series;
  if (!series) return;
  const words = { games: `most points after ${series.target} game${series.target === 1 ? "" : "s"}`,
    time: `most points in ${clock(series.target)}`, points: `first to ${series.target}` };
  const names = series.names || [];  // by player: the seats move round from game to game
  const won = series.winners || [];
  const end = !series.over ? "" : won.length ? ` · series won by ${won.map((w) => names[w] || "P" + (w + 1)).join(" & ")}` : " · series over";
  const text = `Series (${words[series.method]}): ` + series.totals.map((t, i) => `${names[i] || "P" + (i + 1)} ${t}`).join(" · ") + end;
  line.textContent = text;
  if (series.method !== "time" || series.over) return;
  const deadline = Date.now() + (series.target - series.elapsed) * 1000;
  const tick = () => { line.textContent = `${text} · ${clock((deadline - Date.now()) / 1000)} left`; };
  tick();
  countdown = setInterval(tick, 1000);
}

// Who plays each seat, a person or the computer at a level, changeable during the game (a player who has
// to go leaves their seat to the computer; a person takes one over from it). Drawn anew only when the game,
// the names or the seats change, so a list a player has open is not pulled from under their finger.
function seatList(s) {
  const list = $("seat-list");
  const names = s.table.names || [], seats = s.seats || [];
  const key = JSON.stringify([s.game_id, names, seats, s.colours, s.order, numbers.on()]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...seats.map((kind, i) => {
    const row = document.createElement("label"); row.className = "seat-row";
    const name = document.createElement("span"); name.textContent = names[i] || `Player ${i + 1}`;
    const select = document.createElement("select");
    select.append($("seat-kinds").content.cloneNode(true));
    select.value = kind;
    select.dataset.seat = i;
    select.setAttribute("aria-label", `who plays for ${names[i] || "player " + (i + 1)}`);
    select.addEventListener("change", () => command("/api/seat", { seat: i, kind: select.value, game: s.game_id }));
    row.append(chip((s.colours || [])[i], playerNumber(s, i)), name, select);
    return row;
  }));
}

// An answer to a command: drawn unless the feed has already brought something newer.
function accept(s) {
  const last = waiting || snap;
  if (s && (s.version > last.version || s.game_id !== last.game_id)) show(s);
}

// A command for the game on the screen: a new game begun meanwhile (from another phone) refuses it, rather
// than take the move into a game its player has not seen.
const played = (data) => ({ ...data, game: snap.game_id });

async function command(path, data) {
  if (!isPaired()) { openPairing(); return false; }
  try {
    const r = await post(path, data);
    if (r.state) accept(r.state);
    // A tap on the simulator goes through the emulated board: its outcome (and any newer message, such
    // as the computer's proposal) comes on the live feed, so the "pressed X" echo must not overwrite it.
    else if (r.message && r.via !== "board") $("message").textContent = r.message;
    return r.ok !== false;
  } catch (e) {
    $("message").textContent = e.message;
    $("message").classList.add("refused");
    return false;
  }
}

$("roll").addEventListener("click", () => command("/api/roll", played()));
$("ok").addEventListener("click", () => command("/api/ok", played({ ply: snap.ply })));
$("undo").addEventListener("click", () => command("/api/undo", played({ ply: snap.ply })));
$("hint").addEventListener("click", () => command("/api/hint"));
// The same game again, begun by the next player along (the runtime's Play again, as OK at a game's end):
// a series that is still on goes on with it, and one that is over starts again with its method and target.
$("again").addEventListener("click", () => command("/api/again", played()));
// A move typed in the notation: for a player whose screen reader cannot aim at a node, or who would
// rather type. The legal moves are offered as the field's suggestions, drawn only while the box is open.
$("type-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const text = $("type-action").value.trim();
  if (!text) return;
  if (await command("/api/act", played({ action: text }))) $("type-action").value = "";
});
async function legalList(s) {
  const list = $("legal-list");
  if (!$("type-box").open || list.dataset.version === String(s.version)) return;
  list.dataset.version = s.version;
  let r;
  try { r = await get("/api/legal"); } catch { delete list.dataset.version; return; }
  if (r.version < snap.version) { delete list.dataset.version; return; }  // a newer state came meanwhile
  const moves = r.legal.filter((a) => !a.startsWith("roll"));
  list.replaceChildren(...moves.map((a) => Object.assign(document.createElement("option"), { value: a })));
}
$("type-box").addEventListener("toggle", () => legalList(snap));
for (const [id, which] of [["numbers", numbers], ["letters", letters]]) {
  $(id).checked = which.on();
  $(id).addEventListener("change", () => { which.set($(id).checked); show(snap); });
}
$("board-wrap").addEventListener("click", (e) => {
  const node = e.target.closest && e.target.closest("circle.n");
  if (node) command("/api/press", played({ node: node.dataset.n }));
});
zoomButton($("zoom"), $("board-view"), () => svg, () => snap);
if ($("leds")) ledsChoice($("leds"), () => svg, $("led-line"), $("led-status"), $("led-note"));  // the simulator's page
boardKeys($("board-wrap"), () => svg, (node) => command("/api/press", played({ node })), describe);

// A node in words, for the keyboard's ring: its name letter by letter (a screen reader would say GRYB
// as a word), what stands on it, and what the table marks there.
function describe(name) {
  const state = snap.state, table = snap.table || {}, names = table.names || [];
  const stone = (state.stones || {})[name];
  let what = "empty";
  if (stone) {
    const kind = stone.kind && stone.kind !== "stone" ? ` ${stone.kind}` : "";
    what = `${names[stone.player] || "Player " + (stone.player + 1)}'s${kind || " stone"}`;
    if (typeof stone.life === "number") what += `, life left ${stone.life}`;
  }
  const marks = [];
  if ((table.targets || []).includes(name)) marks.push("a target");
  if ((table.picks || []).includes(name)) marks.push("picked");
  if ((state.last || []).includes(name)) marks.push("last move");
  if (table.proposal && actionNodes(table.proposal).flat().includes(name)) marks.push("the computer's move");
  if (table.hint && actionNodes(table.hint).flat().includes(name)) marks.push("the hint");
  if ((table.chores || []).some((c) => c.node === name)) marks.push("to be done by hand");
  if ((state.conduits || []).includes(name)) marks.push("a conduit");
  const spoken = name === "0" ? "head node" : name.split("").join(" ");
  return [`${spoken}: ${what}`, ...marks].join(", ");
}
onPairing((yes) => { $("watching").hidden = yes; document.body.classList.toggle("watching", !yes); });

show(snap);
live((s) => { if (s.version !== snap.version || s.game_id !== snap.game_id) show(s); });

// A self-test started from Settings has the board (its LEDs, and every press on the cloth) for up to five
// minutes: the page says so, how far it has got, and offers to cancel it, rather than answer taps that
// nothing seems to follow.
const selftestBar = $("selftest-bar");
function showSelftest(status) {
  const s = status.selftest, running = !!(s && s.running);
  selftestBar.hidden = !running;
  say($("selftest-says"), running ? selftestSays(s) : "");
  say($("selftest-how-far"), selftestHowFar(s));
}
if (selftestBar.dataset.selftest === "yes") watchStatus(showSelftest);
$("selftest-cancel").addEventListener("click", async () => {
  $("message").textContent = await cancelSelftest();
  showSelftest(await get("/api/status"));
});

// The buttons for presses that fit several actions, each labelled in words ("male, 7 turns, on GGG").
// What every label shares ("on GGG") is left out, the message names the node; when the first words take
// a few values only ("male", "female") the buttons are grouped under them, so Grim Reaper's 24 ways fit
// on a phone's screen instead of running 1,200 px down it. Each button keeps its whole label for a
// screen reader.
function choiceGroups(choices) {
  const button = (c, text) => {
    const b = document.createElement("button"); b.type = "button"; b.className = "secondary"; b.textContent = text;
    b.title = c.action;
    b.setAttribute("aria-label", c.label);
    b.addEventListener("click", () => command("/api/act", played({ action: c.action })));
    return b;
  };
  const parts = choices.map((c) => c.label.split(", "));
  const k = parts.length ? parts[0].length : 0;
  if (choices.length < 6 || k < 2 || parts.some((p) => p.length !== k)) return choices.map((c) => button(c, c.label));
  const varying = [...Array(k).keys()].filter((i) => parts.some((p) => p[i] !== parts[0][i]));
  const kept = parts.map((p) => varying.map((i) => p[i]));
  const heads = [...new Set(kept.map((p) => p[0]))];
  if (varying.length < 2 || heads.length > 4) return choices.map((c, i) => button(c, kept[i].join(", ")));
  return heads.map((head) => {
    const group = document.createElement("div"); group.className = "choice-group"; group.setAttribute("role", "group");
    const title = document.createElement("span"); title.className = "choice-head"; title.textContent = head;
    group.setAttribute("aria-label", head);
    group.append(title, ...choices.flatMap((c, i) => (kept[i][0] === head ? [button(c, kept[i].slice(1).join(", "))] : [])));
    return group;
  });
}
