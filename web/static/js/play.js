// The generic play page: loads the game's renderer (web/GAMES.md) and feeds it views.
import { page, t, el, getJSON, postJSON, addMessages, lang } from "./common.js";
import { connect } from "./live.js";

const settings = page.settings;
const tableId = settings.table;
const root = document.getElementById("game-root");
const statusLine = document.getElementById("play-status");
const errorBox = document.getElementById("play-error");
const base = `/api/tables/${encodeURIComponent(tableId)}`;

let renderer = null;
let fallback = null;
// Views are ordered by the hub's change id (last_event_id): an answer that arrives after
// a newer view (a slow reply to our move, overtaken by the bot's reply) is dropped, so the
// page never goes back to "Waiting for Robot" when it is our turn.
let shownChange = -1;

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

const api = {
  lang,
  el,
  t,
  async play(action) {
    showError("");
    try {
      const answer = await postJSON(`${base}/play`, { action });
      show(answer.view);
      root.dataset.answered = String(Number(root.dataset.answered || 0) + 1); // tests wait on it
      return { ok: true };
    } catch (err) {
      showError(err.message);
      throw err;
    }
  },
  async landed(where) { // Trigono: the thrower answers their own "where did it land?"
    showError("");
    try {
      const answer = await postJSON(`${base}/landed`, { where });
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

// A redraw replaces the renderer's elements; keyboard players keep their place: the
// focused element is found again by its data attributes (or its tag and class).
const FOCUS_KEYS = ["data-cell", "data-token", "data-tile", "data-action", "data-value", "data-corners", "data-choice"];

function focusSelector(node) {
  if (!node || node === document.body || !root.contains(node)) return null;
  for (const name of FOCUS_KEYS) {
    if (node.hasAttribute(name)) return `${node.tagName.toLowerCase()}[${name}="${CSS.escape(node.getAttribute(name))}"]`;
  }
  const cls = [...node.classList].map((c) => `.${CSS.escape(c)}`).join("");
  return cls ? `${node.tagName.toLowerCase()}${cls}` : null;
}

let lastFocus = null;
root.addEventListener("focusin", (event) => { lastFocus = focusSelector(event.target); });
// A click on nothing focusable means "let go": the next redraw must not pull focus back.
document.addEventListener("pointerdown", (event) => {
  if (!event.target.closest || !event.target.closest("button, a, input, select, textarea, [tabindex]")) lastFocus = null;
});
root.addEventListener("focusout", () => setTimeout(() => {
  const active = document.activeElement;
  if (active && active !== document.body && !root.contains(active)) lastFocus = null; // moved away on purpose
}, 0));
new MutationObserver(() => {
  const active = document.activeElement;
  if (!lastFocus || (active && active !== document.body)) return;
  // What had focus may be gone (the Play button once played): the board's own Tab stop
  // takes it, so a keyboard player stays on the board after a move.
  const again = root.querySelector(lastFocus) || root.querySelector('[role="grid"] [tabindex="0"]');
  if (again) again.focus();
}).observe(root, { childList: true, subtree: true });

function show(view) {
  const change = Number(view.last_event_id ?? -1);
  if (change < shownChange) return;
  shownChange = change;
  statusLine.textContent = describe(view);
  root.dataset.change = String(change);
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
  show(await getJSON(`${base}/play`));
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
