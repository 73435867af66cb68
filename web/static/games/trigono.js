// Trigono's play page (web/GAMES.md): the thrower's own view — whose throw it is, the
// palets in hand, the boards, what just happened — and, on their throw, one tap to say
// where their palet came to rest ("on board B1" / "on the floor"). A palet in a hole is
// the sensors' to report; the referee keeps the last word (undo, void, correct).
import { layoutSvg, playerRows, statusLine, counts } from "../js/trigono_view.js";
import { worded } from "../js/live.js";
import { placeIn } from "../js/common.js";

// Its words are in the site's catalogue (web/messages/<lang>.json, keys "trigono.*").

let busy = false;

export function render(view, root, api) {
  const { el, t } = api;
  const table = view.view || {};
  const state = view.state || {};
  const prompts = table.prompts || [];
  const mine = prompts.find((p) => p.kind === "landed" && p.player === view.you);
  const panel = [statusLine(table)];
  if (view.you && state.to_move === view.you && !state.winner) {
    if (table.throw) {
      panel.push(el("p", { class: "trigono-settling", role: "status" }, t("trigono.settling")));
    } else if (mine) {
      const answer = (where) => {
        if (busy) return;
        busy = true;
        api.landed(where).catch(() => {}).finally(() => { busy = false; });
      };
      panel.push(el("section", { class: "trigono-answer", "aria-labelledby": "trigono-where" },
        el("h2", { id: "trigono-where" }, t("trigono.where")),
        el("div", { class: "trigono-choices" }, (mine.choices || []).map((where) => el("button", {
          type: "button", class: `landed ${where === "floor" ? "floor" : "board"}`, "data-choice": where,
          onclick: () => answer(where),
        }, placeIn(table, where)))),
        el("p", { class: "muted small" }, t("trigono.sensors"))));
    } else {
      panel.push(el("p", { class: "trigono-turn" }, t("trigono.your_throw")));
    }
  }
  // Newest first: what the hub said happened (its moments, an undo included).
  const recent = (table.moments || []).slice(-5).reverse().map((moment) => worded(moment).text);
  root.replaceChildren(el("div", { class: "trigono-play" },
    el("div", { class: "trigono-side" },
      ...panel,
      el("table", { class: "players" }, el("caption", { class: "sr-only" }, t("table.players")),
        el("tbody", {}, playerRows({ ...table, state }))),
      recent.length ? el("h2", {}, t("trigono.recent")) : null,
      recent.length ? el("ul", { class: "trigono-recent" }, recent.map((text) => el("li", {}, text))) : null,
      el("p", { class: "muted small" }, t("trigono.referee"))),
    el("div", { class: "trigono-board" }, layoutSvg({ ...table, state }), counts({ ...table, state }))));
}
