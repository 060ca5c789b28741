// The board's hardware as it is now, for the settings page and Now playing: /api/status asked every two
// seconds while the page is in view (an unplugged Pico shows within that, not at the next reload), the
// self-test's progress in words, and its Cancel.
import { get, post, isPaired, openPairing } from "./api.js";

export const EVERY = 2000;

// onStatus(status) at once and every EVERY ms while the page is visible; a page in the background asks
// nothing, and asks at once when it comes back. A round overtaken by a newer one (the page hidden and shown
// again while it waited for its answer) stops, so there is only ever one.
export function watchStatus(onStatus) {
  let round = 0, timer = null;
  const ask = async (mine) => {
    let status = null;
    try { status = await get("/api/status"); } catch (e) { /* the board is away: the next round tells */ }
    if (mine !== round || document.hidden) return;
    if (status) onStatus(status);
    timer = setTimeout(() => ask(mine), EVERY);
  };
  const restart = () => { clearTimeout(timer); round++; if (!document.hidden) ask(round); };
  document.addEventListener("visibilitychange", restart);
  window.addEventListener("pageshow", (e) => { if (e.persisted) restart(); });
  restart();
}

const clock = (seconds) => {
  const s = Math.max(0, Math.ceil(seconds || 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

// The self-test in words: the step it is at while it runs, then its report. How far the step has got is
// apart (selftestHowFar), since it changes at every look: a screen reader hears the words once each.
export function selftestSays(s) {
  if (!s) return "";
  if (s.running) {
    if (s.step === "sweep") return "Self-test: the LEDs light block by block.";
    if (s.step === "link") return "Self-test: waiting for the node buttons' Pico to answer.";
    return "Self-test: press every lit node; the board's presses are the self-test's until it ends.";
  }
  if (s.cancelled) return `Self-test cancelled (${s.pressed || 0} nodes pressed by then).`;
  if (s.ok) return `Self-test: all good (${s.pressed} nodes, ${s.pixels} LEDs).`;
  return `Self-test: faults. Dead: ${(s.dead || []).join(" ") || "none"}. Stuck: ${(s.stuck || []).join(" ") || "none"}.`
    + ((s.chattering || []).length ? ` Chattering: ${s.chattering.join(" ")}.` : "")
    + (s.untested ? ` Nodes not tested: ${s.untested}` : "") + (s.error ? ` ${s.error}` : "");
}

// How far the running self-test has got: "frame 12 of 64", "12 of 341 pressed, 4:10 left" ("" once it ended).
export function selftestHowFar(s) {
  if (!s || !s.running) return "";
  if (s.step === "sweep") return s.of ? `frame ${s.done || 0} of ${s.of}` : "";
  if (s.step === "nodes") return `${s.pressed} of ${s.of} pressed, ${clock(s.left)} left`;
  return "";
}

// Text written only when it changes: a live region would say it again at each look.
export function say(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// Cancel the self-test under way (paired, as every change): the answer's words, or the refusal's.
export async function cancelSelftest() {
  if (!isPaired()) { openPairing(); return "Pair this phone to cancel the self-test."; }
  try { return (await post("/api/selftest/cancel")).message; } catch (e) { return e.message; }
}
