// A tournament's stations form (issue 32.21): the station's boards are picked from the
// connected ones (board_picker.js) in their order — each click adds the board to the
// list, a second click takes it out; the list stays text, so a board not connected yet
// can be typed. A board another station uses says so: adding it is the referee's choice.
import { t, page } from "./common.js";
import { boardPicker } from "./board_picker.js";

const settings = page.settings || {};
const input = document.getElementById("station-boards");
const host = document.getElementById("station-picker");

const listed = () => input.value.split(",").map((b) => b.trim()).filter(Boolean);

function elsewhere(board) {
  const boards = JSON.parse(host.dataset.stations || "[]");
  const ids = JSON.parse(host.dataset.ids || "[]");
  const k = boards.findIndex((list) => (list || []).includes(board));
  return k < 0 ? null : t("tour.picker_at", { station: ids[k] });
}

function draw() {
  const chosen = listed();
  host.replaceChildren(boardPicker({
    choices: settings.board_choices || [], now: settings.now,
    placedAt: (board) => (chosen.includes(board) ? t("picker.listed", { n: chosen.indexOf(board) + 1 }) : elsewhere(board)),
    moveLabel: (board, where) => where,
    onPick: (board) => {
      const now = listed();
      input.value = (now.includes(board) ? now.filter((b) => b !== board) : [...now, board]).join(", ");
      draw();
    },
  }));
}

if (input && host) {
  input.addEventListener("input", draw);
  draw();
}
