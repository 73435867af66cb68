// The big screen (/big), readable from 10 m. One table at a time, in turn every
// settings.rotate_s seconds (?rotate=S), a big moment elsewhere moving the screen there;
// or every table at once (?mode=grid); only some tables with ?tables=a,b (then nothing of
// the others shows, their announcements included). A header that stays says which table
// and round; announcements go in the footer; nothing meant only for the referee.
import { el, t, getJSON } from "./common.js";
import { settings, card, head, isFinished, followTables, isBotTable, groupOf, GROUPS, byName, loadTournaments, followMatches } from "./cards.js";
import { announcementsBetween, setupSpeech } from "./live.js";
import { setupSounds } from "./sounds.js";
import { isMajor, showMoments, noteEffects, applyEffects } from "./moments.js";

const container = document.getElementById("tables");
const empty = document.getElementById("empty");
const bigHead = document.getElementById("big-head");
const dots = document.getElementById("rotation");
const grid = settings.view === "grid";
const rotateMs = (settings.rotate_s || 20) * 1000;
const only = settings.tables || [];
const KEEP_FINISHED_MS = 90_000; // a table just won stays in the rotation this long
const PAGE_SIZE = 12; // a grid page: names stay readable from 5 m (40 px at 1080p)

let currentId = null; // the table on screen (rotation mode)
let lastJump = 0;
const finishedAt = new Map(); // table id -> when this screen saw it end

// ?tables= names the tables; else every table but those the organizer put away (archived)
// or that ended without a result (abandoned), and the computer's own tables unless ?bots=1.
const wanted = (view) => (only.length ? only.includes(view.id)
  : !view.archived && !view.abandoned && (settings.bots || !isBotTable(view)));

// Live Trigono first, then tournaments, the other games; a stable order within each.
function ordered(views) {
  const rank = (v) => GROUPS.indexOf(groupOf(v));
  return byName(views).sort((a, b) => rank(a) - rank(b));
}

// The tables in turn: the live ones, and those that just ended; finished ones only when
// nothing is live any more.
function shownViews() {
  const views = ordered([...tables.values()].filter(wanted));
  if (settings.finished || only.length) return views;
  const now = Date.now();
  const live = views.filter((v) => !isFinished(v) || now - (finishedAt.get(v.id) ?? -Infinity) < KEEP_FINISHED_MS);
  return live.length ? live : views;
}

function drawHead(view, index, count, pages = 1, pageIndex = 0) {
  if (!view) {
    const title = grid && count ? [el("h1", {}, t("big.all_tables", { n: count }))] : [];
    if (pages > 1) title.push(el("span", { class: "position" }, t("big.page", { k: pageIndex + 1, n: pages })));
    bigHead.replaceChildren(...title);
    return;
  }
  const position = el("span", { class: "position", title: t("big.position", { k: index + 1, n: count }) }, `${index + 1} / ${count}`);
  bigHead.replaceChildren(...(count > 1 ? [head(view, "h1"), position] : [head(view, "h1")]));
}

// Columns for n cells in a w × h box, each cell as close to 16:10 as the box allows.
export function gridShape(n, w, h) {
  let best = { cols: 1, rows: n, score: -1 };
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const cw = w / cols, ch = h / rows;
    const score = Math.min(cw, ch * 1.6) * Math.min(ch, cw / 1.6); // the usable 16:10 area
    if (score > best.score) best = { cols, rows, score };
  }
  return best;
}

function bigCard(view) {
  const node = card(view, "big");
  node.style.setProperty("--rows", String(Math.max(2, (view.seats || []).length)));
  applyEffects(node, view.id);
  return node;
}

let drawnIds = ""; // the tables the stage shows, in order, as last drawn
let onScreen = null; // the table the stage showed last (rotation mode)

// A grid cell's drawing is too small for its board labels (9 px at 1080p): the counts say
// them in words under the players, out of the space the players' rows are sized from.
function gridCell(view) {
  const node = bigCard(view);
  const counts = node.querySelector(".layout-box .counts");
  if (counts) node.append(counts);
  node.querySelector(".board-trouble")?.remove(); // no room for it: the board's count is marked

  return el("section", { class: "grid-cell", "data-table": view.id }, head(view, "h2"), node);
}

// The stream's snapshot holds the live tables and only the newest finished ones: a
// screen asked for an older finished table fetches it (again after a new snapshot).
const fetching = new Set();
function fetchMissing() {
  for (const id of only) {
    if (tables.has(id) || fetching.has(id)) continue;
    fetching.add(id);
    getJSON(`/api/tables/${encodeURIComponent(id)}`)
      .then((view) => { if (!tables.has(id)) { tables.set(id, view); draw(); } })
      .catch(() => { /* no such table: the screen says there is none */ })
      .finally(() => fetching.delete(id));
  }
}

// `changed`: the one table whose view changed, if that is all; only what shows it is redrawn.
function draw(changed) {
  if (!changed) fetchMissing();
  const shown = shownViews();
  const ids = shown.map((v) => v.id).join("\n");
  const same = ids === drawnIds;
  drawnIds = ids;
  empty.hidden = shown.length > 0;
  container.dataset.count = String(shown.length);
  if (!shown.length) { container.replaceChildren(); drawHead(null); dots.replaceChildren(); return; }
  if (grid) {
    if (changed && same) {
      const cell = [...container.children].find((c) => c.dataset.table === changed);
      if (cell) { cell.replaceWith(gridCell(tables.get(changed))); return; }
      if (pages(shown.length) > 1) return; // a table on another page
    }
    const count = pages(shown.length);
    gridPage %= count;
    const onPage = shown.slice(gridPage * PAGE_SIZE, (gridPage + 1) * PAGE_SIZE);
    const { cols, rows } = gridShape(onPage.length, container.clientWidth || innerWidth, container.clientHeight || innerHeight);
    container.style.setProperty("--cols", String(cols));
    container.style.setProperty("--grid-rows", String(rows));
    container.dataset.page = String(gridPage + 1);
    container.replaceChildren(...onPage.map(gridCell));
    drawHead(null, 0, shown.length, count, gridPage);
    return;
  }
  if (changed && same && changed !== currentId) return; // another table: nothing on screen changes
  let index = shown.findIndex((v) => v.id === currentId);
  if (index < 0) index = 0;
  const view = shown[index];
  currentId = view.id;
  drawHead(view, index, shown.length);
  const node = bigCard(view);
  if (view.id !== onScreen) { // the next table fades in (not the first, nor a redraw); its time starts
    if (onScreen !== null) node.classList.add("enter");
    startProgress(shown.length > 1);
  }
  onScreen = view.id;
  container.replaceChildren(node);
  dots.replaceChildren(...(shown.length > 1 ? shown.map((v) => el("span", { class: v.id === currentId ? "on" : "" }, "●")) : []));
}

function onTable(view, before) {
  if (!wanted(view)) return; // a filtered screen shows nothing of the other tables
  if (before && !isFinished(before) && isFinished(view)) finishedAt.set(view.id, Date.now());
  const found = announcementsBetween(before, view);
  if (!found.length) return;
  noteEffects(view, before);
  if (!grid && view.id !== currentId && isMajor(found) && Date.now() - lastJump > rotateMs) {
    currentId = view.id; // show the table where it happened, for a full period
    lastJump = Date.now();
    restartRotation();
  }
  const elsewhere = grid || view.id !== currentId;
  // The banner in the footer says it (the gold one for a match won): nothing over the board.
  showMoments(found, { table: elsewhere ? view.id : null });
}

let gridPage = 0;
const pages = (n) => Math.max(1, Math.ceil(n / PAGE_SIZE));

// A thin line under the header fills up until the next table.
const progress = document.getElementById("rotation-progress");
function startProgress(rotating) {
  progress.classList.remove("running");
  progress.hidden = !rotating;
  if (!rotating) return;
  progress.style.animationDuration = `${rotateMs}ms`;
  void progress.offsetWidth; // restart the CSS animation
  progress.classList.add("running");
}

let timer = null;
function restartRotation() {
  clearInterval(timer);
  if (grid) { // more tables than a page: the pages in turn
    timer = setInterval(() => { if (pages(shownViews().length) > 1) { gridPage += 1; drawnIds = ""; draw(); } }, rotateMs);
    return;
  }
  timer = setInterval(() => {
    const shown = shownViews();
    const index = shown.findIndex((v) => v.id === currentId);
    currentId = shown.length ? shown[(index + 1) % shown.length].id : null;
    draw();
  }, rotateMs);
}

followMatches(); // a tournament's table says its station, match and round
setupSpeech(document.getElementById("speak-toggle"));
setupSounds(document.getElementById("sound-toggle"));
restartRotation();
addEventListener("resize", () => { drawnIds = ""; draw(); });
const tables = followTables({ onTable, draw });
loadTournaments().then(() => { drawnIds = ""; draw(); });
