// Picking sensor boards from the connected ones (issue 32.21): the admin's layout editor
// and a tournament's stations. The page lists the boards the hub hears
// (settings.board_choices, web/readiness.py board_choices: online first, then those heard
// with a fault, then those a table in play holds), each a button saying its state; a click
// hands the board to the page (`onPick`), which puts it where the referee chose. A board
// the page already placed says where (`placedAt`): picking it again moves it, and the
// button says so. A board a table in play holds is shown as taken, and cannot be picked.
import { t, el } from "./common.js";

// `choices`: [{board, state, last_seen, table}]; `now`: the hub's clock (last_seen's);
// `placedAt(board)`: where the page has it (a word to show) or null; `moveLabel(board,
// where)`: the button's words when picking it moves it; `onPick(board)`.
export function boardPicker({ choices, now, placedAt, moveLabel, onPick }) {
  if (!choices.length) return el("p", { class: "muted small picker-none" }, t("picker.none"));
  return el("ul", { class: "board-picker", role: "list" }, choices.map((c) => {
    const ago = c.last_seen ? Math.max(0, Math.round((now || 0) - c.last_seen)) : null;
    const where = c.table ? null : placedAt(c.board);
    const said = [t(`console.board.${c.state}`), ago === null ? null : t("console.board.last_contact", { s: ago })].filter(Boolean).join(" · ");
    // Everything said is shown: the button's visible words are its name (what a picked
    // board does: moved from where it is, or nothing, taken by a table in play).
    const then = c.table ? t("picker.taken", { table: c.table }) : where ? moveLabel(c.board, where) : null;
    return el("li", { "data-board": c.board, "data-state": c.state, class: c.table ? "taken" : where ? "placed" : null },
      el("button", { type: "button", class: "pick", "data-board": c.board, disabled: Boolean(c.table), onclick: () => onPick(c.board) },
        el("b", { class: "mono" }, c.board), " ",
        el("span", { class: `state ${c.state}` }, said),
        then ? el("span", { class: "where" }, ` · ${then}`) : null));
  }));
}
