// One table as a card, and the live map of tables every public page follows (dashboard,
// one table, big screen, overlay). Trigono draws itself (trigono_view.js); the other games
// are drawn by their play page's renderer (web/GAMES.md), as a spectator sees them.
import { page, t, el, gameName, getJSON, addMessages, lang } from "./common.js";
import { layoutSvg, playerRows, statusLine, counts } from "./trigono_view.js";
import { connect } from "./live.js";
import { showAssist } from "./assist.js";

export const settings = page.settings || {};

const renderers = new Map(); // renderer (the game type's) -> module (null while loading or when missing)
let redraw = () => {};

function loadRenderer(renderer) {
  const url = (settings.renderers || {})[renderer];
  if (!url || renderers.has(renderer)) return;
  renderers.set(renderer, null);
  import(url).then((module) => { addMessages(module.messages); renderers.set(renderer, module); redraw(); })
    .catch(() => { /* the card keeps its score table */ });
}

export function gameBoard(view) {
  const renderer = (view.capabilities || {}).renderer;
  const module = renderers.get(renderer);
  if (!module) { loadRenderer(renderer); return null; }
  const root = el("div", { class: `game-root game-${view.game} spectator` });
  const refuse = () => Promise.reject(new Error("spectator"));
  try {
    module.render({
      table: view.id, game: view.game, options: view.options || {}, state: view.state || {},
      players: view.seats || [], you: null, your_turn: false, legal_actions: [], hint: null,
      bot_thinking: view.bot_thinking, last_event_id: view.change_id, lang, view,
    }, root, { lang, el, t, play: refuse, hint: refuse });
  } catch (err) {
    console.error(err);
    return null;
  }
  return root;
}

// After a round's last throw the hub has already started the next round; until the
// referee says the palets are collected (the next round's start) the hub keeps the
// board as that throw left it (view.round_end): every screen shows that board, the
// round just played and who won it, so the spectators see the winning board.
export function asShown(view) {
  const end = view.round_end;
  if (!end) return view;
  const state = { ...(view.state || {}), round: end.round, hands: end.hands, boards: end.boards, holes: end.holes,
    floor: end.floor, eliminated: end.eliminated, to_move: null, phase: "normal", target: null };
  return { ...view, state, starter: null, collecting: end };
}

// Table, game, round and phase: the card's header, and the big screen's.
export function head(shown, tag = "h2") {
  const view = asShown(shown);
  const state = view.state || {};
  const caps = view.capabilities || {}; // what the game is, never its name
  const where = whereShown(view);
  return el("header", { class: where ? "card-head at-station" : "card-head" },
    el(tag, { class: "table-name" }, where ? tournamentOf(view).name : tableName(view)), // the players are on the card
    where ? null : el("span", { class: "table-id" }, view.id),
    where,
    el("span", { class: "game" }, gameName(view.game)),
    caps.rounds && state.round ? el("span", { class: "round" }, t("table.round", { n: state.round })) : null,
    state.phase && state.phase !== "normal" && !isFinished(view) ? el("span", { class: `phase ${state.phase}` }, t(`table.phase.${state.phase}`)) : null);
}

export function isFinished(view) {
  const state = view.state || {};
  return Boolean(state.winner) || Boolean(view.abandoned) || (state.status || "playing") !== "playing";
}

// The boards' states (web/readiness.py: never_seen, offline, faulty, online), pushed by the
// stream when one changes: board id -> {table, state}.
const boardStates = new Map();

// The boards of a table in play that are not online (board id -> state): everyone watching
// sees that the sensors are not hearing a board (the referee's console says more).
function troubleOf(view) {
  const down = new Map();
  if (!(view.capabilities || {}).sensor_boards || isFinished(view)) return down;
  for (const [board, s] of boardStates) if (s.table === view.id && s.state !== "online") down.set(board, s.state);
  return down;
}

// Said in words where a card has room for a line of it (the table page, the big screen's
// one table); the dashboard's and the grid's cards mark the board's count instead.
function boardTrouble(down) {
  if (!down.size) return null;
  return el("p", { class: "board-trouble", role: "status" }, [...down].map(([board, state]) =>
    el("span", { class: `board-state ${state}`, "data-board": board, "data-state": state },
      t("table.board_state", { board, state: t(`console.board.${state}`) }))));
}

// A signature of each table's board states, to redraw only the tables whose boards changed.
function statesByTable() {
  const out = new Map();
  for (const [board, s] of boardStates) {
    if (!s.table) continue;
    out.set(s.table, `${out.get(s.table) || ""}${board}=${s.state};`);
  }
  return out;
}

// `mode`: "index" (links, referee counts), "table" (the other games' board too), "big"
// (no header: the page has one; the board; nothing for the referee only).
export function card(live, mode) {
  const view = asShown(live);
  const state = view.state || {};
  const boards = Boolean((view.capabilities || {}).sensor_boards); // played on sensor boards: watched, drawn as its layout
  const audience = mode === "big"; // questions and alerts are the referee's business
  const flags = [];
  if (!audience && (view.prompts || []).length) flags.push(el("span", { class: "badge prompt" }, t("table.prompts", { n: view.prompts.length })));
  if (!audience && (view.alerts || []).length) flags.push(el("span", { class: "badge alert" }, t("table.alerts", { n: view.alerts.length })));
  const links = mode === "index" ? el("nav", { class: "card-links" },
    el("a", { href: `/tables/${encodeURIComponent(view.id)}` }, t("dash.open_table"), el("span", { class: "sr-only" }, ` ${view.id}`)),
    el("a", { href: `/play/${encodeURIComponent(view.id)}` }, t(boards ? "dash.watch" : "dash.play"), el("span", { class: "sr-only" }, ` ${view.id}`))) : null;
  const board = !boards && (mode === "big" || mode === "table") ? gameBoard(view) : null;
  const down = troubleOf(view);
  return el("article", { class: `table-card game-${view.game}${boards ? " on-boards" : ""}${state.winner ? " won" : ""}${isFinished(view) ? " finished" : ""}`, "data-table": view.id },
    mode === "big" ? null : head(view),
    statusLine(view),
    mode === "index" ? null : boardTrouble(down),
    el("div", { class: "card-body" },
      el("table", { class: "players" }, el("caption", { class: "sr-only" }, t("table.players")), el("tbody", {}, playerRows(view))),
      boards ? el("div", { class: "layout-box" }, layoutSvg(view), counts(view, down)) : board),
    flags.length ? el("div", { class: "flags" }, flags) : null,
    links);
}

// The live map of tables (id -> view), kept from the stream: `onTable(view, before)` for
// every new view of a table (before: the previous one, if any), then `draw(id)` (only that
// table changed); `draw()` after a snapshot, a new or removed table, or a renderer that
// finished loading.
export function followTables({ table = null, onTable = () => {}, draw }) {
  const tables = new Map();
  redraw = () => draw();
  const update = (view) => {
    const before = tables.get(view.id);
    tables.set(view.id, view);
    onTable(view, before);
    draw(view.id);
  };
  const setStates = (states) => {
    boardStates.clear();
    for (const s of states || []) boardStates.set(s.board, { table: s.table, state: s.state });
  };
  connect({
    table,
    onSnapshot(data) {
      tables.clear();
      for (const view of data.tables || []) tables.set(view.id, view);
      setStates(data.board_states);
      showAssist(data.assist, settings.table);
      draw();
    },
    onAssist(list) { showAssist(list, settings.table); },
    onBoardStates(states) {
      const before = statesByTable();
      setStates(states);
      const after = statesByTable();
      for (const id of new Set([...before.keys(), ...after.keys()])) {
        const view = tables.get(id);
        if (!view || before.get(id) === after.get(id)) continue;
        // A new object: the pages redraw a card only when its view is a new one.
        tables.set(id, { ...view });
        draw(id);
      }
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
  return tables;
}

// Oldest first, so a table keeps its place (the dashboard, the rotation).
export function byCreation(views) {
  return [...views].sort((a, b) => (a.created_at ?? 0) - (b.created_at ?? 0));
}

// -- many tables (issue 26): groups, human names, a stable order --------------------------
// A table played by the computer alone (every seat a bot).
export function isBotTable(view) {
  const seats = view.seats || [];
  return seats.length > 0 && seats.every((s) => s && s.bot);
}

// The tournaments (GET /api/tournaments: id and name); a tournament's tables are named
// "<tournament id>-<match id>" (hub/tournament/tables.py).
let tournaments = [];
export async function loadTournaments() {
  try { tournaments = await getJSON("/api/tournaments"); } catch (e) { /* none shown as such */ }
  return tournaments;
}

// Where a tournament's match is played, for the screens that say it (big.js calls
// followMatches): table id -> {number, station, round_name, pool}, from each tournament's
// public view; a table not known yet (a new call) has its tournament asked again.
const matches = new Map();
const asking = new Set();
let matchesShown = false;
export function followMatches() { matchesShown = true; }

async function askMatches(tour) {
  if (asking.has(tour.id)) return;
  asking.add(tour.id);
  try {
    const view = await getJSON(`/api/tournaments/${encodeURIComponent(tour.id)}`);
    for (const m of view.matches || []) if (m.table) matches.set(m.table, m);
    redraw();
  } catch (e) { /* the card keeps its name */ } finally { asking.delete(tour.id); }
}

export function matchOf(view) {
  if (!matchesShown) return null;
  const tour = tournamentOf(view);
  if (!tour) return null;
  const m = matches.get(view.id);
  if (!m && !asked.has(view.id)) { asked.add(view.id); askMatches(tour); }
  return m || null;
}
const asked = new Set(); // tables whose tournament was asked once for them

// "station 3", but a station named "Station 3" is not "station Station 3"
// (the tournament pages' station_label).
export function stationLabel(station) {
  const word = t("tour.at_station", { station: "" }).trim().toLowerCase();
  return String(station).toLowerCase().startsWith(word) ? String(station) : t("tour.at_station", { station });
}

// The tournament pages' round_label: "Tournament round 2", "Quarter-finals", "Losers round 1"…
export function roundLabel(name) {
  if (!name) return "";
  if (name.kind === "round") return t("tour.where_round", { n: name.n }); // not the game's own rounds

  if (name.kind === "losers_round") return t("tour.round_name.losers_round", { n: name.n });
  if (name.kind === "round_of") return t("tour.round_name.round_of", { matches: name.matches, players: name.players });
  return t(`tour.round_name.${name.kind}`);
}

// A tournament table's station, match number and round (pool): where to go, and which
// match it is; nothing for other tables.
function whereShown(view) {
  const m = matchOf(view);
  if (!m) return null;
  const round = [m.pool ? t("tour.pool", { name: m.pool }) : null, roundLabel(m.round_name)].filter(Boolean).join(" · ");
  return el("span", { class: "where", "data-match": m.id },
    m.station ? el("strong", { class: "station" }, stationLabel(m.station)) : null,
    el("span", { class: "match-number" }, t("tour.match", { n: m.number })),
    round ? el("span", { class: "tour-round" }, round) : null);
}

export function tournamentOf(view) {
  return tournaments.find((tour) => String(view.id).startsWith(`${tour.id}-`)) || null;
}

// Where a table goes on a page of many tables, in this order: live tables on sensor boards, live
// tournament tables, other live games with people, the computer's own tables (hidden
// unless asked), then finished ones; put-away ones apart.
export const GROUPS = ["boards", "tournament", "games", "bots", "finished", "archived"];
export function groupOf(view) {
  if (view.archived || view.abandoned) return "archived";
  if (isBotTable(view)) return "bots";
  if (isFinished(view)) return "finished";
  if (tournamentOf(view)) return "tournament";
  return (view.capabilities || {}).sensor_boards ? "boards" : "games";
}

// A name people say: the players ("Ana, Ben, Chloé"), or the tournament's match.
export function tableName(view) {
  const tour = tournamentOf(view);
  const players = (view.seats || []).map((s) => s.name).filter(Boolean);
  const names = players.length > 3 ? `${players.slice(0, 3).join(", ")} +${players.length - 3}` : players.join(", ");
  if (tour) return `${tour.name} · ${names}`;
  return names || String(view.id);
}

// Natural order of table ids ("m2" before "m12"): a table keeps its place while you watch.
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
export function byName(views) {
  return [...views].sort((a, b) => collator.compare(String(a.id), String(b.id)));
}

export function matchesFilter(view, text) {
  if (!text) return true;
  const hay = [view.id, tableName(view), gameName(view.game), ...(view.seats || []).map((s) => s.name)].join(" ");
  const fold = (s) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  return fold(hay).includes(fold(text.trim()));
}
