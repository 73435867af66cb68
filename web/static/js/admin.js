// Admin: the layout editor (click triangles of the lattice to place boards; jackpots
// appear where six boards make a hexagon) and live board health.
import { t, el, lattice } from "./common.js";
import { connect } from "./live.js";

const svg = document.getElementById("layout-grid");
const hidden = document.getElementById("layout");
const bindings = document.querySelector("#bindings tbody");
const gameSelect = document.getElementById("game");
const fieldset = document.getElementById("layout-fieldset");
const SCALE = 46;
const RANGE = 4;

let placed = []; // [{id, cell, device}] in click order
try { placed = JSON.parse(hidden.value || "[]"); } catch (e) { placed = []; }

function nextId() {
  const used = new Set(placed.map((b) => b.id));
  let n = 1;
  while (used.has(`B${n}`)) n += 1;
  return `B${n}`;
}

function toggle(cell) {
  const key = lattice.key(cell);
  const index = placed.findIndex((b) => lattice.key(b.cell) === key);
  if (index >= 0) placed.splice(index, 1);
  else placed.push({ id: nextId(), cell, device: "" });
  save();
}

function save() {
  hidden.value = JSON.stringify(placed.map((b) => ({ id: b.id, cell: b.cell, device: b.device || b.id })));
  drawGrid();
  drawBindings();
}

function drawGrid() {
  if (!svg) return;
  const cells = [];
  for (let i = -RANGE; i <= RANGE; i++) for (let j = -RANGE; j <= RANGE; j++) {
    for (const o of ["up", "down"]) {
      const [x, y] = lattice.centroid([i, j, o]);
      if (Math.abs(x) <= RANGE * 0.75 && Math.abs(y) <= RANGE * 0.62) cells.push([i, j, o]);
    }
  }
  const byKey = new Map(placed.map((b) => [lattice.key(b.cell), b]));
  const parts = cells.map((cell) => {
    const board = byKey.get(lattice.key(cell));
    const [cx, cy] = lattice.centroid(cell);
    return el("g", { class: board ? "cell placed" : "cell", "data-cell": lattice.key(cell), onclick: () => toggle(cell),
      role: "button", tabindex: "0", "aria-pressed": board ? "true" : "false", "aria-label": board ? board.id : lattice.key(cell),
      onkeydown: (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(cell); } } },
      el("polygon", { points: lattice.polygon(cell, SCALE) }),
      board ? el("text", { x: cx * SCALE, y: -cy * SCALE + 5 }, board.id) : null);
  });
  const jackpots = lattice.hexagons(placed.map((b) => b.cell)).map((v) => {
    const [x, y] = lattice.vertexXY(v[0], v[1]);
    return el("g", { class: "jackpot", "data-jackpot": v.join(",") },
      el("circle", { cx: x * SCALE, cy: -y * SCALE, r: 9 }),
      el("title", {}, t("admin.jackpot")));
  });
  const w = RANGE * 0.8 * SCALE, h = RANGE * 0.68 * SCALE;
  svg.setAttribute("viewBox", `${-w} ${-h} ${2 * w} ${2 * h}`);
  svg.replaceChildren(...parts, ...jackpots);
}

function drawBindings() {
  if (!bindings) return;
  bindings.replaceChildren(...placed.map((b) => el("tr", {},
    el("td", {}, b.id),
    el("td", {}, el("input", {
      type: "text", value: b.device || b.id, "data-board": b.id, maxlength: 40,
      oninput: (event) => { b.device = event.target.value; hidden.value = JSON.stringify(placed); },
    })))));
}

function showEditor() {
  if (fieldset && gameSelect) fieldset.hidden = gameSelect.value !== "trigono";
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
