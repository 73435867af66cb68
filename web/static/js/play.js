// The generic play page: loads the game's renderer (web/GAMES.md) and feeds it views.
import { page, t, el, lattice, getJSON, postJSON, addMessages, lang } from "./common.js";
import { connect } from "./live.js";

const settings = page.settings;
const tableId = settings.table;
const root = document.getElementById("game-root");
const statusLine = document.getElementById("play-status");
const errorBox = document.getElementById("play-error");
const base = `/api/tables/${encodeURIComponent(tableId)}`;

let renderer = null;
let fallback = null;
let latest = 0; // ignore answers that arrive after a newer one

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

const api = {
  lang,
  lattice,
  el,
  t,
  async play(action) {
    showError("");
    try {
      const answer = await postJSON(`${base}/play`, { action });
      show(answer.view);
      return { ok: true };
    } catch (err) {
      showError(err.message);
      throw err;
    }
  },
  async hint() {
    try {
      return await postJSON(`${base}/hint`, {});
    } catch (err) {
      showError(err.message);
      throw err;
    }
  },
};

async function loadModule(url) {
  const module = await import(url);
  addMessages(module.messages);
  return module;
}

function describe(view) {
  const state = view.state || {};
  if (state.winner) return t("table.winner", { name: state.winner });
  if (state.status && state.status !== "playing") return t("table.game_over");
  if (view.your_turn) return t("play.your_turn");
  if (!view.you) return t("play.spectator");
  return t("play.waiting", { name: state.to_move || "" });
}

function show(view) {
  statusLine.textContent = describe(view);
  root.dataset.yourTurn = view.your_turn ? "1" : "0";
  try {
    renderer.render(view, root, api);
  } catch (err) {
    console.error(err);
    showError(t("play.renderer_error"));
    root.replaceChildren();
    fallback.render(view, root, api);
  }
}

async function refresh() {
  const ticket = ++latest;
  const view = await getJSON(`${base}/play`);
  if (ticket === latest) show(view);
}

async function start() {
  fallback = await loadModule(settings.fallback);
  try {
    renderer = settings.renderer === settings.fallback ? fallback : await loadModule(settings.renderer);
  } catch (err) {
    console.error(err);
    renderer = fallback;
  }
  await refresh();
  connect({
    table: tableId,
    onTable(view) { if (view.id === tableId) refresh(); },
    onSnapshot() { refresh(); },
  });
}

start();
