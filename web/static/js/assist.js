// Calls for a referee (hub/tables/assist.py), shown on the big screen and a table's page until a
// referee takes them on the console: the stream's `assist` event (and the snapshot's
// `assist`) carries every open call.
import { el, t } from "./common.js";

export function assistText(request) {
  const who = request.who === "table" ? t("assist.who_table") : request.who;
  // A tournament's station is said as its pages say it ("poste 7"), a hub table by its id.
  const where = request.place && request.place !== request.table
    ? t("tour.at_station", { station: request.place }) : t("assist.at_table", { table: request.table });
  return t("assist.item", { where, who });
}

// `only`: a table's page shows the calls of its own table.
export function showAssist(list, only = null) {
  const band = document.getElementById("assist-band");
  if (!band) return;
  const shown = (list || []).filter((r) => !only || r.table === only);
  band.hidden = shown.length === 0;
  const button = document.getElementById("call-referee");
  if (button && only) button.hidden = shown.length > 0; // called already: one open call per table
  band.replaceChildren(...(shown.length ? [el("span", {}, t("assist.band"))] : []),
    ...shown.map((r) => el("span", { class: "assist-item", "data-table": r.table }, assistText(r))));
}
