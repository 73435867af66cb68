// The dashboard (live tables first, then finished ones, archived ones folded) and the one-table
// page, drawn from the live stream's views (hub/facade.py "Table view", made public by
// web/views.py). The big screen is big.js, the video overlay overlay.js.
import { t } from "./common.js";
import { settings, card, isFinished, followTables, byCreation } from "./cards.js";
import { announcementsBetween, announce, setupSpeech } from "./live.js";
import { noteEffects, applyEffects } from "./moments.js";

const mode = settings.mode || "index";
const container = document.getElementById("tables");
const empty = document.getElementById("empty");
const archive = document.getElementById("archive");
const archiveList = document.getElementById("archive-tables");
const archiveCount = document.getElementById("archive-count");
const finished = document.getElementById("finished");
const finishedList = document.getElementById("finished-tables");

function visibleViews() {
  const views = [...tables.values()];
  return byCreation(settings.table ? views.filter((v) => v.id === settings.table) : views);
}

// A card with its running animations (a palet dropping into its hole, a round winner's row).
function cardOf(view) {
  const node = card(view, mode);
  applyEffects(node, view.id);
  return node;
}

function draw() {
  const views = visibleViews();
  if (empty) empty.hidden = views.length > 0;
  if (mode === "index" && archive) {
    // Live tables first; finished ones below them (the results stay readable); tables the
    // organizer archived (admin) or abandoned go into the collapsed archive.
    const put = (v) => (v.archived || v.abandoned ? "archived" : isFinished(v) ? "finished" : "live");
    const live = views.filter((v) => put(v) === "live");
    const done = views.filter((v) => put(v) === "finished").reverse(); // newest first
    const away = views.filter((v) => put(v) === "archived").reverse();
    container.replaceChildren(...live.map(cardOf));
    finishedList.replaceChildren(...done.map(cardOf));
    finished.hidden = done.length === 0;
    archiveList.replaceChildren(...away.map((v) => card(v, mode)));
    archive.hidden = away.length === 0;
    archiveCount.textContent = t("dash.archive", { n: away.length });
    if (empty) empty.hidden = live.length > 0;
    return;
  }
  container.replaceChildren(...views.map(cardOf));
}

function onTable(view, before) {
  if (settings.table && view.id !== settings.table) return;
  noteEffects(view, before);
  const found = announcementsBetween(before, view);
  if (found.length) announce(found.map((a) => a.text));
}

setupSpeech(document.getElementById("speak-toggle"));
const tables = followTables({ table: settings.table, onTable, draw });
