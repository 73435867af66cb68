// The video overlay (/overlay/<table>): a transparent lower third for OBS or any video
// mixer — table, round, players with palets in hand (or points), whose turn, the winner —
// and the table's announcements above it; with ?sound=1 their short sounds too (OBS: tick
// "control audio via OBS" on the browser source).
import { el, t } from "./common.js";
import { settings, followTables } from "./cards.js";
import { trophy } from "./trigono_view.js";
import { announcementsBetween } from "./live.js";
import { showMoments } from "./moments.js";
import { forceSounds } from "./sounds.js";

const container = document.getElementById("tables");

function bar(view) {
  const state = view.state || {};
  const caps = view.capabilities || {}; // what the game is, never its name
  const seats = view.seats || [];
  return el("div", { class: `overlay-inner${state.winner ? " won" : ""}`, "data-table": view.id },
    el("span", { class: "overlay-table" }, view.id),
    caps.rounds && state.round ? el("span", { class: "overlay-round" }, t("table.round", { n: state.round })) : null,
    state.phase && state.phase !== "normal" ? el("span", { class: "overlay-phase" }, t(`table.phase.${state.phase}`)) : null,
    el("span", { class: "overlay-players" }, seats.map((seat, k) => el("span", {
      class: `overlay-player${seat.name === state.to_move ? " to-move" : ""}${(state.eliminated || []).includes(seat.name) ? " out" : ""}`,
      "data-player": seat.name,
    }, seat.name === state.to_move ? el("span", { class: "turn", "aria-label": t("table.to_throw") }, "▶") : null,
      el("span", { class: `dot p${k % 8}` }), seat.name, " ",
      el("b", { class: "hand" }, (state[caps.tally] || {})[seat.name] ?? 0)))),
    state.winner ? el("span", { class: "winner" }, trophy(""), t("table.winner", { name: state.winner })) : null);
}

function draw() {
  const view = tables.get(settings.table);
  container.replaceChildren(...(view ? [bar(view)] : []));
}

function onTable(view, before) {
  if (view.id !== settings.table) return;
  showMoments(announcementsBetween(before, view), { holdMs: 6000 });
}

if (settings.sound) forceSounds();
const tables = followTables({ table: settings.table, onTable, draw });
