// Admin: the layout editor (click triangles of the lattice to place boards; jackpots
// appear where six boards make a hexagon) and live board health. The hub draws the
// editor's grid (settings.editor, hub/tables/drawing.py layout_editor: cells with their
// corners and centres, the vertices where six cells meet): the page scales and compares keys.
import { t, el, page } from "./common.js";
import { connect } from "./live.js";
import { apply as filterTables } from "./table_filter.js";
import { boardPicker } from "./board_picker.js";

const svg = document.getElementById("layout-grid");
const hidden = document.getElementById("layout");
const bindings = document.querySelector("#bindings tbody");
const gameSelect = document.getElementById("game");
const fieldset = document.getElementById("layout-fieldset");
const settings = page.settings || {};
const editor = settings.editor || { cells: [], jackpots: [], box: [0, 0, 0, 0] };
const SCALE = 46;
const keyOf = (cell) => cell.join(",");
const points = (corners) => corners.map(([x, y]) => `${(x * SCALE).toFixed(2)},${(y * SCALE).toFixed(2)}`).join(" ");

let placed = []; // [{id, cell, device}] in click order
try { placed = JSON.parse(hidden.value || "[]"); } catch (e) { placed = []; }

function nextId() {
  const used = new Set(placed.map((b) => b.id));
  let n = 1;
  while (used.has(`B${n}`)) n += 1;
  return `B${n}`;
}

function toggle(cell) {
  const key = keyOf(cell);
  const index = placed.findIndex((b) => keyOf(b.cell) === key);
  if (index >= 0) placed.splice(index, 1);
  else placed.push({ id: nextId(), cell });
  save();
}

function layoutJSON() {
  return JSON.stringify(placed.map((b) => ({ id: b.id, cell: b.cell, device: b.device || b.id })));
}

function save() {
  hidden.value = layoutJSON();
  drawGrid();
  drawBindings();
}

function drawGrid() {
  if (!svg) return;
  const byKey = new Map(placed.map((b) => [keyOf(b.cell), b]));
  const parts = editor.cells.map(({ key, cell, corners, centre }) => {
    const board = byKey.get(key);
    return el("g", { class: board ? "cell placed" : "cell", "data-cell": key, onclick: () => toggle(cell),
      role: "button", tabindex: "0", "aria-pressed": board ? "true" : "false", "aria-label": board ? board.id : key,
      onkeydown: (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(cell); } } },
      el("polygon", { points: points(corners) }),
      board ? el("text", { x: centre[0] * SCALE, y: centre[1] * SCALE + 5 }, board.id) : null);
  });
  // A jackpot where the six cells around a vertex all hold a board (the hub lists them).
  const jackpots = editor.jackpots.filter((j) => j.cells.every((key) => byKey.has(key))).map((j) =>
    el("g", { class: "jackpot", "data-jackpot": j.vertex.join(",") },
      el("circle", { cx: j.at[0] * SCALE, cy: j.at[1] * SCALE, r: 9 }),
      el("title", {}, t("admin.jackpot"))));
  const [x, y, w, h] = editor.box.map((v) => v * SCALE);
  svg.setAttribute("viewBox", `${x} ${y} ${w} ${h}`);
  svg.replaceChildren(...parts, ...jackpots);
}

// Each placed board (a position: B1, B2, …) is bound to a physical board (issue 32.21):
// click a position, then one of the connected boards (the picker, board_picker.js), in
// any order; a board picked with no position chosen goes to the first position without a
// connected board. A board already at another position moves (its button says so) and
// leaves that one to be typed. A board not connected yet is typed in, and said to be so.
const choices = settings.board_choices || [];
const connected = new Set(choices.filter((c) => !c.table).map((c) => c.board));
let chosenSlot = null; // the position the next picked board goes to

function pick(board) {
  const target = placed.find((b) => b.id === chosenSlot) || placed.find((b) => !connected.has(b.device));
  if (!target) return;
  const before = placed.find((b) => b !== target && b.device === board);
  if (before) before.device = before.id; // moved away: that position waits for a board (named after it)
  target.device = board;
  chosenSlot = null;
  save();
}

function drawBindings() {
  if (!bindings) return;
  for (const b of placed) if (b.device === undefined || b.device === "") b.device = b.id; // typed later
  if (!placed.some((b) => b.id === chosenSlot)) chosenSlot = null;
  bindings.replaceChildren(...placed.map((b) => {
    const pending = !connected.has(b.device);
    const typed = pending ? el("input", {
      type: "text", value: b.device || "", "data-board": b.id, maxlength: 40, required: true,
      placeholder: t("admin.bind_later_placeholder"), "aria-label": t("admin.bind_later_id", { id: b.id }),
      oninput: (event) => { b.device = event.target.value.trim(); hidden.value = layoutJSON(); },
    }) : el("b", { class: "mono bound", "data-board": b.id }, b.device);
    const slot = el("button", { type: "button", class: "slot", "data-slot": b.id, "aria-pressed": chosenSlot === b.id ? "true" : "false",
      title: t("admin.bind_choose", { id: b.id }),
      onclick: () => { chosenSlot = chosenSlot === b.id ? null : b.id; drawBindings(); } }, b.id);
    return el("tr", { "data-slot": b.id, "data-pending": pending ? "true" : "false", class: chosenSlot === b.id ? "chosen" : null },
      el("td", {}, slot),
      el("td", {}, typed, pending ? el("span", { class: "badge warn" }, t("admin.bind_not_connected")) : null));
  }));
  const host = document.getElementById("board-picker");
  if (host) {
    const at = new Map(placed.filter((b) => connected.has(b.device)).map((b) => [b.device, b.id]));
    host.replaceChildren(boardPicker({
      choices, now: settings.now,
      placedAt: (board) => at.get(board) || null,
      moveLabel: (board, where) => t("picker.move", { from: where, to: chosenSlot || t("picker.first_free") }),
      onPick: pick,
    }));
  }
}

function showEditor() {
  // The layout editor is for games on sensor boards (the option says so: the hub's game types).
  if (fieldset && gameSelect) fieldset.hidden = !(gameSelect.selectedOptions[0] && "sensorBoards" in gameSelect.selectedOptions[0].dataset);
}

if (svg) {
  document.getElementById("layout-clear").addEventListener("click", () => { placed = []; save(); });
  gameSelect.addEventListener("change", showEditor);
  showEditor();
  save();
}

// -- live board health -------------------------------------------------------------------
const boardsHost = document.getElementById("boards-host");
async function refreshBoards() {
  const response = await fetch(boardsHost.dataset.panelUrl, { credentials: "same-origin" });
  if (response.ok) boardsHost.innerHTML = await response.text();
}
if (boardsHost) {
  connect({ onBoards: refreshBoards, onSnapshot: refreshBoards });
  setInterval(refreshBoards, 10000); // "last seen" keeps counting
}

// -- many tables: tick the ones shown, archive them at once ---------------------------------
const pickAll = document.getElementById("pick-all");
if (pickAll) {
  pickAll.addEventListener("change", () => {
    for (const box of document.querySelectorAll("#admin-tables li:not([hidden]) input.pick:not(:disabled)")) box.checked = pickAll.checked;
  });
  document.getElementById("table-status").addEventListener("change", () => { pickAll.checked = false; filterTables(); });
}
