// The dashboard and the one-table page, drawn from the live stream's views (hub/facade.py
// "Table view", made public by Hub.public_view). The big screen is big.js, the video overlay
// overlay.js. Built for an event of 60 tables: groups (live Trigono first, tournaments,
// other games, the computer's own tables apart and hidden unless asked, finished ones),
// a stable order within each, tables named by their players, a filter.
import { t } from "./common.js";
import { settings, card, followTables, byName, groupOf, isBotTable, matchesFilter, loadTournaments } from "./cards.js";
import { announcementsBetween, announce, setupSpeech } from "./live.js";
import { noteEffects, applyEffects } from "./moments.js";

const mode = settings.mode || "index";
const container = document.getElementById("tables");
const empty = document.getElementById("empty");
const noMatch = document.getElementById("no-match");
const archive = document.getElementById("archive");
const archiveList = document.getElementById("archive-tables");
const archiveCount = document.getElementById("archive-count");
const filter = document.getElementById("table-filter");
const showBots = document.getElementById("show-bots");
const botsCount = document.getElementById("bots-count");
const BOTS_KEY = "trigono.dash.bots";

// A card with its running animations (a palet dropping into its hole, a round winner's row).
function cardOf(view) {
  const node = card(view, mode);
  applyEffects(node, view.id);
  return node;
}

// Redraw a group's cards only when its tables or their views changed (a whole page of 60
// cards is not rebuilt for one palet).
const drawnViews = new WeakMap(); // grid -> [views drawn]
function fill(grid, views) {
  const before = drawnViews.get(grid) || [];
  if (before.length === views.length && before.every((v, k) => v === views[k])) return;
  const old = new Map([...grid.children].map((node) => [node.dataset.table, node]));
  const keep = new Map(before.map((v) => [v.id, v]));
  grid.replaceChildren(...views.map((v) => (keep.get(v.id) === v && old.get(v.id)) || cardOf(v)));
  drawnViews.set(grid, views);
}

function drawIndex(views) {
  const text = filter ? filter.value : "";
  const bots = Boolean(showBots && showBots.checked);
  const groups = new Map();
  for (const view of byName(views)) {
    const group = groupOf(view);
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(view);
  }
  let shown = 0;
  for (const section of document.querySelectorAll(".table-group")) {
    const group = section.dataset.group;
    const views = (groups.get(group) || []).filter((v) => matchesFilter(v, text));
    const visible = views.length > 0 && (group !== "bots" || bots);
    section.hidden = !visible;
    section.querySelector(".group-count").textContent = views.length ? `(${views.length})` : "";
    fill(section.querySelector(".tables-grid"), visible ? views : []);
    if (visible) shown += views.length;
  }
  const botViews = groups.get("bots") || [];
  if (botsCount) botsCount.textContent = `(${t("dash.count", { n: botViews.length })})`;
  const away = (groups.get("archived") || []).filter((v) => matchesFilter(v, text)).reverse();
  fill(archiveList, away);
  archive.hidden = away.length === 0;
  archiveCount.textContent = t("dash.archive", { n: away.length });
  if (empty) empty.hidden = views.length > 0;
  if (noMatch) noMatch.hidden = !views.length || shown > 0 || away.length > 0;
}

function draw() {
  const views = [...tables.values()];
  if (mode === "index" && archive) { drawIndex(views); return; }
  const one = settings.table ? views.filter((v) => v.id === settings.table) : byName(views);
  if (empty) empty.hidden = one.length > 0;
  container.replaceChildren(...one.map(cardOf));
}

// What the band says: the moments of tables with people at them; a computer's own table, or
// a computer's move, says nothing (the match's end still does).
function onTable(view, before) {
  if (settings.table && view.id !== settings.table) return;
  noteEffects(view, before);
  if (mode === "index" && isBotTable(view)) return;
  let found = announcementsBetween(before, view);
  const bots = new Set((view.seats || []).filter((s) => s.bot).map((s) => s.name));
  const fresh = ((view.state || {}).log || []).slice(((before && before.state) || {}).log?.length ?? 0);
  if (fresh.length && fresh.every((entry) => bots.has(entry.player))) {
    found = found.filter((a) => a.key === "announce.match_won" || a.key === "announce.round_won");
  }
  if (found.length) announce(found.map((a) => a.text));
}

setupSpeech(document.getElementById("speak-toggle"));
if (showBots) {
  showBots.checked = localStorage.getItem(BOTS_KEY) === "1";
  showBots.addEventListener("change", () => { localStorage.setItem(BOTS_KEY, showBots.checked ? "1" : "0"); draw(); });
}
if (filter) filter.addEventListener("input", () => draw());
const tables = followTables({ table: settings.table, onTable, draw });
loadTournaments().then(() => draw());
