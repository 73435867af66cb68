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

export function connect({ table = null, onSnapshot, onTable, onTables, onBoards, onBoardStates, onRemoved, onTournament, onAssist }) {
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
  // `tournament`: {id, entries} after a tournament's new log entries (its pages reload).
  // `assist`: the open calls for a referee [{id, table, who, at}] after any change (the
  // snapshot holds them too, as `assist`).
  // `board_states`: [{board, table, state}] whenever a board's state changed (every page;
  // the snapshot holds them too, as `board_states`).
  const handlers = { snapshot: onSnapshot, table: onTable, tables: onTables, boards: onBoards, table_removed: onRemoved,
    tournament: onTournament, board_states: onBoardStates, assist: onAssist };
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
// The hub says what happened (hub/tables/moments.py): each view carries its table's recent
// moments, a kind with params and an increasing seq. A page words the ones newer than the
// last it showed, in its own language; it never works them out from two views. Each is
// {key, kind, text}: the key tells how big the moment is (the big screen follows big ones).
// An undone or corrected throw is a moment too, so the band never keeps a throw that was
// taken back.

const MOMENT_KEYS = { round_drawn: "announce.round_draw" };
// A hole that took nothing (in a final the holes take nothing, T17; the target never takes:
// the palet in it wins) is not "takes 0": the band says where the palet went.
const HOLES = new Set(["big", "small", "jackpot"]);
const keyOf = (moment) => (moment.kind === "final" && !moment.place ? "announce.final_choose"
  : HOLES.has(moment.kind) && (moment.params || {}).n === 0 ? `announce.${moment.kind}_in`
  : MOMENT_KEYS[moment.kind] || `announce.${moment.kind}`);

export function momentText(moment) {
  const p = moment.params || {};
  const params = { ...p, name: p.player ?? "", n: p.n ?? p.round ?? p.index ?? "" };
  if (moment.place) params.hole = placeLabel(moment.place);
  if (p.finalists) params.finalists = p.finalists.join(" – ");
  return t(keyOf(moment), params);
}

export function worded(moment) {
  return { key: keyOf(moment), kind: moment.kind, seq: moment.seq, text: momentText(moment) };
}

const lastSeq = (view) => Math.max(0, ...((view && view.moments) || []).map((m) => m.seq));

// The moments of `after` that `before` (the same table's previous view) did not have yet;
// none for the first view a page gets (those happened before it was opened).
export function announcementsBetween(before, after) {
  if (!before || !after) return [];
  const seen = lastSeq(before);
  return (after.moments || []).filter((m) => m.seq > seen).map(worded);
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
