// Dashboard, big screen, single table and video overlay: every table drawn from the
// live stream's views (hub/service.py "Table view", made public by web/views.py).
import { page, t, el, lattice, gameName, getJSON, addMessages, lang } from "./common.js";
import { trophy, layoutSvg, playerRows, statusLine, counts } from "./trigono_view.js";
import { connect, announcementsBetween, announce, setupSpeech } from "./live.js";

const settings = page.settings || {};
const mode = settings.mode || "index";
const tables = new Map(); // id -> view
const container = document.getElementById("tables");
const empty = document.getElementById("empty");

// The other games on the big screen and the table page: their own board, drawn by the
// play page's renderer (web/GAMES.md) as a spectator sees it.
const renderers = new Map(); // game -> module (or null while loading / when missing)

function loadRenderer(game) {
  const url = (settings.renderers || {})[game];
  if (!url || renderers.has(game)) return;
  renderers.set(game, null);
  import(url).then((module) => { addMessages(module.messages); renderers.set(game, module); draw(); })
    .catch(() => { /* the card keeps its score table */ });
}

function gameBoard(view) {
  const module = renderers.get(view.game);
  if (!module) { loadRenderer(view.game); return null; }
  const root = el("div", { class: `game-root game-${view.game} spectator` });
  const refuse = () => Promise.reject(new Error("spectator"));
  try {
    module.render({
      table: view.id, game: view.game, options: view.options || {}, state: view.state || {},
      players: view.seats || [], you: null, your_turn: false, legal_actions: [], hint: null,
      bot_thinking: view.bot_thinking, last_event_id: view.change_id, lang, view,
    }, root, { lang, lattice, el, t, play: refuse, hint: refuse });
  } catch (err) {
    console.error(err);
    return null;
  }
  return root;
}

function head(view, tag = "h2") {
  const state = view.state || {};
  const trigono = view.game === "trigono";
  return el("header", { class: "card-head" },
    el(tag, {}, view.id),
    el("span", { class: "game" }, gameName(view.game)),
    trigono && state.round ? el("span", { class: "round" }, t("table.round", { n: state.round })) : null,
    state.phase && state.phase !== "normal" ? el("span", { class: `phase ${state.phase}` }, t(`table.phase.${state.phase}`)) : null);
}

function card(view) {
  const state = view.state || {};
  const trigono = view.game === "trigono";
  const audience = mode === "big" || mode === "overlay"; // no referee-only counts there
  const flags = [];
  if (!audience && (view.prompts || []).length) flags.push(el("span", { class: "badge prompt" }, t("table.prompts", { n: view.prompts.length })));
  if (!audience && (view.alerts || []).length) flags.push(el("span", { class: "badge alert" }, t("table.alerts", { n: view.alerts.length })));
  const links = mode === "index" ? el("nav", { class: "card-links" },
    el("a", { href: `/tables/${encodeURIComponent(view.id)}` }, t("dash.open_table"), el("span", { class: "sr-only" }, ` ${view.id}`)),
    el("a", { href: `/play/${encodeURIComponent(view.id)}` }, t(trigono ? "dash.watch" : "dash.play"), el("span", { class: "sr-only" }, ` ${view.id}`))) : null;
  const board = !trigono && (mode === "big" || mode === "table") ? gameBoard(view) : null;
  const finished = isFinished(view);
  return el("article", { class: `table-card game-${view.game}${state.winner ? " won" : ""}${finished ? " finished" : ""}`, "data-table": view.id },
    mode === "big" ? null : head(view),
    statusLine(view),
    el("div", { class: "card-body" },
      el("table", { class: "players" }, el("caption", { class: "sr-only" }, t("table.players")), el("tbody", {}, playerRows(view))),
      trigono ? el("div", { class: "layout-box" }, layoutSvg(view), counts(view)) : board),
    flags.length ? el("div", { class: "flags" }, flags) : null,
    links);
}

function isFinished(view) {
  const state = view.state || {};
  return Boolean(state.winner) || (state.status || "playing") !== "playing";
}

function overlayBar(view) {
  const state = view.state || {};
  const seats = view.seats || [];
  return el("div", { class: "overlay-inner", "data-table": view.id },
    el("span", { class: "overlay-table" }, view.id),
    view.game === "trigono" && state.round ? el("span", { class: "overlay-round" }, t("table.round", { n: state.round })) : null,
    seats.map((seat, k) => el("span", {
      class: `overlay-player${seat.name === state.to_move ? " to-move" : ""}${(state.eliminated || []).includes(seat.name) ? " out" : ""}`,
      "data-player": seat.name,
    }, el("span", { class: `dot p${k % 6}` }), seat.name, " ",
      el("b", { class: "hand" }, view.game === "trigono" ? (state.hands || {})[seat.name] ?? 0 : (state.scores || {})[seat.name] ?? 0))),
    state.winner ? el("span", { class: "winner" }, trophy(t("table.winner", { name: state.winner })), t("table.winner", { name: state.winner })) : null);
}

// -- drawing all of them -------------------------------------------------------------------
let rotation = 0;
let lastJump = 0;
const archive = document.getElementById("archive");
const archiveList = document.getElementById("archive-tables");
const archiveCount = document.getElementById("archive-count");
const bigHead = document.getElementById("big-head");
const position = document.getElementById("rotation");
const grid = mode === "big" && settings.view === "grid";

function visibleViews() {
  let views = [...tables.values()];
  if (settings.table) views = views.filter((v) => v.id === settings.table);
  if (settings.tables && settings.tables.length) views = views.filter((v) => settings.tables.includes(v.id));
  return views.sort((a, b) => (a.created_at ?? 0) - (b.created_at ?? 0));
}

// The big screen's header stays on screen whatever is announced: which table, which round.
function drawBigHead(view, index, count) {
  if (!bigHead) return;
  if (!view) { bigHead.replaceChildren(); return; }
  const parts = [head(view, "h1")];
  if (count > 1) {
    parts.push(el("span", { class: "position", title: t("big.position", { k: index + 1, n: count }) }, `${index + 1} / ${count}`));
  }
  bigHead.replaceChildren(...parts);
}

function draw() {
  const views = visibleViews();
  if (empty) empty.hidden = views.length > 0 || mode === "overlay";
  if (mode === "overlay") {
    container.replaceChildren(...views.map(overlayBar));
    return;
  }
  if (mode === "big") {
    const live = views.filter((v) => !isFinished(v));
    const shown = live.length ? live : views; // finished tables only when nothing is live
    if (!shown.length) { container.replaceChildren(); drawBigHead(null); return; }
    if (grid) {
      container.dataset.count = String(shown.length);
      container.replaceChildren(...shown.map((v) => el("div", { class: "grid-cell" }, head(v, "h2"), card(v))));
      drawBigHead(null);
      return;
    }
    rotation = ((rotation % shown.length) + shown.length) % shown.length;
    const view = shown[rotation];
    drawBigHead(view, rotation, shown.length);
    container.dataset.boards = String(((view.options || {}).boards || []).length || 1);
    container.dataset.players = String((view.seats || []).length);
    container.replaceChildren(card(view));
    if (position) position.replaceChildren(...shown.map((v, k) => el("span", { class: k === rotation ? "on" : "" }, "●")));
    return;
  }
  if (mode === "index" && archive) {
    const live = views.filter((v) => !isFinished(v));
    const done = views.filter(isFinished).reverse(); // newest finished first
    container.replaceChildren(...live.map(card));
    archiveList.replaceChildren(...done.map(card));
    archive.hidden = done.length === 0;
    archiveCount.textContent = t("dash.archive", { n: done.length });
    if (empty) empty.hidden = live.length > 0;
    return;
  }
  container.replaceChildren(...views.map(card));
}

// Big moments move the big screen to their table; ordinary throws do not (the audience
// would see it jump between tables every few seconds).
const MAJOR = ["announce.jackpot", "announce.round_won", "announce.match_won", "announce.final"];

function update(view) {
  const before = tables.get(view.id);
  tables.set(view.id, view);
  if (settings.table && view.id !== settings.table) return;
  const shown = visibleViews().some((v) => v.id === view.id);
  const found = shown ? announcementsBetween(before, view) : [];
  if (found.length) {
    announce(found.map((a) => a.text));
    if (mode === "big" && !grid && found.some((a) => MAJOR.includes(a.key))
        && Date.now() - lastJump > settings.rotate_s * 1000) {
      const live = visibleViews().filter((v) => !isFinished(v));
      const index = live.findIndex((v) => v.id === view.id);
      if (index >= 0) { rotation = index; lastJump = Date.now(); restartRotation(); }
    }
  }
  draw();
}

let rotationTimer = null;
function restartRotation() {
  if (mode !== "big" || grid) return;
  clearInterval(rotationTimer);
  rotationTimer = setInterval(() => { rotation += 1; draw(); }, (settings.rotate_s || 20) * 1000);
}
restartRotation();

setupSpeech(document.getElementById("speak-toggle"));
connect({
  table: settings.table,
  onSnapshot(data) {
    tables.clear();
    for (const view of data.tables || []) tables.set(view.id, view);
    draw();
  },
  onTable: update,
  async onTables(list) {
    // A table was created (or removed): fetch the views we do not have yet.
    const ids = new Set(list.map((s) => s.id));
    for (const id of [...tables.keys()]) if (!ids.has(id)) tables.delete(id);
    for (const id of ids) {
      if (tables.has(id)) continue;
      try { update(await getJSON(`/api/tables/${encodeURIComponent(id)}`)); } catch (e) { /* gone again */ }
    }
    draw();
  },
  onRemoved(data) { tables.delete(data.id); draw(); },
});
