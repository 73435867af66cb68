// The live stream (GET /api/stream, server-sent events). After any failure — the
// network, a server restart, a 503 when the server is full — the page reconnects by
// itself with a growing, jittered delay (so a hall full of phones does not come back in
// the same instant) and resumes after the last event it saw: the server sends what was
// missed, or a snapshot when that is too old. EventSource's own retry is not used: it
// gives up for good after a 503 and retries every phone at the same pace otherwise.
import { page, t, lang, placeLabel } from "./common.js";

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30000;

export function retryDelay(attempt, random = Math.random) {
  // "Equal jitter": half the exponential step for sure, the other half at random.
  const step = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
  return step / 2 + random() * (step / 2);
}

export function connect({ table = null, onSnapshot, onTable, onTables, onBoards, onRemoved }) {
  // Board health is sent only to the pages that show it.
  const query = new URLSearchParams();
  if (table) query.set("table", table);
  if (onBoards) query.set("boards", "1");
  const status = document.getElementById("live-status");
  const setStatus = (state) => {
    if (!status) return;
    status.hidden = false;
    status.dataset.state = state;
    status.textContent = t(`live.${state}`);
  };
  const handlers = { snapshot: onSnapshot, table: onTable, tables: onTables, boards: onBoards, table_removed: onRemoved };
  let lastEventId = null;
  let attempt = 0;
  let source = null;
  const live = { reconnects: 0, close: () => { if (source) source.close(); } };

  const open = () => {
    const params = new URLSearchParams(query);
    if (lastEventId !== null) params.set("last_event_id", lastEventId);
    source = new EventSource(page.urls.stream + (params.toString() ? `?${params}` : ""));
    live.source = source;
    source.addEventListener("open", () => { attempt = 0; setStatus("online"); });
    source.addEventListener("error", () => {
      source.close();
      setStatus("offline");
      live.reconnects += 1;
      setTimeout(open, retryDelay(attempt++));
    });
    for (const [name, handler] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => {
        if (event.lastEventId) lastEventId = event.lastEventId;
        if (handler) handler(JSON.parse(event.data), Number(event.lastEventId));
      });
    }
  };
  setStatus("connecting");
  open();
  window.__live = live; // lets tests and the console see the connection
  return live;
}

// -- announcements ----------------------------------------------------------------------
// Derived in the browser from what changed between two views of a table (the log is the
// truth: RECORDS.md), so each viewer gets them in their own language. Each is
// {key, text}: the key tells how big the moment is (the big screen follows big ones).

const say = (key, params) => ({ key, text: t(key, params) });

export function throwAnnouncement(entry) {
  const action = entry.action || {};
  const name = entry.player;
  const n = entry.points ?? 0;
  const thrown = action.throw;
  if (!thrown) {
    if (action.target) return null;
    return n > 0 ? say("announce.points", { name, n }) : null;
  }
  const to = String(thrown.to || "");
  if (thrown.invalid) return say("announce.invalid", { name, hole: placeLabel(to) });
  if (to.endsWith(".big")) return say("announce.big", { name, n });
  if (to.endsWith(".small")) return say("announce.small", { name, n });
  if (to.startsWith("jackpot")) return say("announce.jackpot", { name, n });
  if (n > 0) return say("announce.points", { name, n });
  if (to === "floor") return say("announce.floor", { name });
  if (to.startsWith("board:")) return say("announce.board", { name, board: to.slice(6) });
  return null;
}

export function announcementsBetween(before, after) {
  if (!before || !after) return [];
  const a = before.state || {}, b = after.state || {};
  const logA = a.log || [], logB = b.log || [];
  if (logB.length <= logA.length) return []; // nothing new, or an undo
  const out = [];
  const game = after.game;
  for (const entry of logB.slice(logA.length)) {
    const found = game === "trigono" ? throwAnnouncement(entry)
      : (entry.points > 0 ? say("announce.points", { name: entry.player, n: entry.points }) : say("announce.move", { name: entry.player }));
    if (found) out.push(found);
  }
  for (const name of b.eliminated || []) {
    if (!(a.eliminated || []).includes(name)) out.push(say("announce.eliminated", { name }));
  }
  const resultsA = a.round_results || [], resultsB = b.round_results || [];
  for (let k = resultsA.length; k < resultsB.length; k++) {
    const r = resultsB[k];
    out.push(r.winner ? say("announce.round_won", { name: r.winner, n: k + 1 }) : say("announce.round_draw", { n: k + 1 }));
  }
  if (b.phase === "final" && a.phase !== "final" && b.target) out.push(say("announce.final", { hole: placeLabel(b.target) }));
  if (b.throw_distance_m > (a.throw_distance_m ?? b.throw_distance_m) && b.round === a.round) {
    out.push(say("announce.step_back", { m: Number(b.throw_distance_m).toFixed(2) }));
  }
  if (b.winner && !a.winner) out.push(say("announce.match_won", { name: b.winner }));
  return out;
}

// -- showing and speaking -----------------------------------------------------------------
const SPEAK_KEY = "trigono.speak";

export function setupSpeech(button) {
  if (!button) return;
  const supported = "speechSynthesis" in window;
  const refresh = () => {
    const on = localStorage.getItem(SPEAK_KEY) === "1";
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = t(on ? "dash.speak_on" : "dash.speak_off");
    button.title = t("dash.speak");
  };
  if (!supported) { button.hidden = true; return; }
  button.addEventListener("click", () => {
    localStorage.setItem(SPEAK_KEY, localStorage.getItem(SPEAK_KEY) === "1" ? "0" : "1");
    refresh();
  });
  refresh();
}

export function speak(text) {
  if (!("speechSynthesis" in window) || localStorage.getItem(SPEAK_KEY) !== "1") return;
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.lang = lang === "fr" ? "fr-FR" : "en-GB";
  window.speechSynthesis.speak(utterance);
}

let hideTimer = null;
export function announce(texts, holdMs = 6000) {
  const box = document.getElementById("announce");
  if (!texts.length) return;
  if (box) {
    box.hidden = false;
    box.replaceChildren(...texts.map((text) => {
      const line = document.createElement("p");
      line.textContent = text;
      return line;
    }));
    box.classList.remove("pop");
    void box.offsetWidth; // restart the CSS animation
    box.classList.add("pop");
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => { box.hidden = true; }, holdMs);
  }
  for (const text of texts) speak(text);
}
