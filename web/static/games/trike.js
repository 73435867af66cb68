// Trike renderer (web/GAMES.md contract): the triangular board of hexagonal cells, the
// stones and the neutral pawn, the cells the pawn can reach highlighted and clickable on
// your turn, the pie-rule swap offered when it is legal, and the score at the end.
// Cells are named as in docs/records.md § Trike: row letter from the apex, number in the row.
// Styles live in trike.css (the page links it; inline styles are refused by the CSP).

// Its words are in the site's catalogue (web/messages/<lang>.json, keys "trike.*").

import { boardGrid } from "../js/board_grid.js";

const R = 20; // hexagon radius in SVG units; the SVG scales to the page width

// Where each cell is, its neighbours and the hexagon's shape: the hub's (view.drawing,
// hub/tables/drawing.py); the renderer only scales and draws.
function hexPoints(drawing, [x, y], radius) {
  return drawing.hexagon.map(([dx, dy]) => `${(x + radius * dx).toFixed(2)},${(y + radius * dy).toFixed(2)}`).join(" ");
}

let busy = false; // UI state only: an action is on its way to the hub

export function render(view, root, api) {
  const { el, t } = api;
  const state = view.state || {};
  const stones = state.stones || {};
  const colors = state.colors || {};
  const over = state.status === "over";
  const legal = view.your_turn ? (view.legal_actions || []) : [];
  const targets = new Set(legal.filter((a) => a !== "swap"));
  const log = state.log || [];
  const lastCells = log.map((e) => e.action).filter((a) => a !== "swap");
  const lastCell = lastCells[lastCells.length - 1];

  const send = (action) => {
    if (busy) return;
    busy = true;
    api.play(action).catch(() => {}).finally(() => { busy = false; });
  };

  // ---- board
  const drawing = (view.view && view.view.drawing) || { cells: {}, neighbours: {}, hexagon: [], box: [0, 0, 0, 0] };
  const centre = (name) => drawing.cells[name].at.map((n) => n * R);
  const interactive = Boolean(view.you); // a seated player's board is one focusable grid
  const cells = [];
  for (const name of Object.keys(drawing.cells)) {
    const [x, y] = centre(name);
    const stone = stones[name];
    const isTarget = targets.has(name);
    const attrs = {
      class: `trike-cell${isTarget ? " target" : ""}${name === lastCell ? " last" : ""}`,
      "data-cell": name,
    };
    // The accessible name starts with the cell, then what stands on it.
    const shows = [name, stone ? t(`trike.${stone}`) : "", name === state.pawn ? t("trike.pawn") : ""].filter(Boolean).join(", ");
    if (isTarget) {
      attrs.onclick = () => send(name);
      attrs["aria-label"] = t("play.cell", { cell: name });
    } else if (interactive) {
      attrs["aria-label"] = shows;
      attrs["aria-disabled"] = "true";
    }
    const parts = [el("polygon", { points: hexPoints(drawing, [x, y], R * 0.97), class: "hex" })];
    if (!interactive) parts.push(el("title", {}, shows));
    if (stone) {
      parts.push(el("circle", { cx: x, cy: y, r: R * 0.62, class: `stone ${stone}` }));
    } else if (isTarget) {
      parts.push(el("circle", { cx: x, cy: y, r: R * 0.22, class: "dot" }));
    }
    if (name === state.pawn) {
      parts.push(el("circle", { cx: x, cy: y, r: R * 0.3, class: "pawn" }, interactive ? null : el("title", {}, t("trike.pawn"))));
    }
    cells.push({ node: el("g", attrs, ...parts), x, y });
  }
  // The scoring area when the game is over: the pawn and its neighbours.
  const scoring = [];
  if (over && state.pawn && drawing.cells[state.pawn]) {
    for (const name of [state.pawn, ...(drawing.neighbours[state.pawn] || [])]) {
      scoring.push(el("polygon", { points: hexPoints(drawing, centre(name), R * 0.97), class: "scoring" }));
    }
  }
  const pad = R * 1.2;
  const [bx, by, bw, bh] = drawing.box.map((n) => n * R);
  const viewBox = `${bx - pad} ${by - pad} ${bw + 2 * pad} ${bh + 2 * pad}`;
  const board = interactive
    ? el("svg", { class: "trike-board", viewBox },
      boardGrid(el, { label: t("play.board"), cells, rowTolerance: R / 2, prefer: [...targets][0] || state.pawn }),
      el("g", { "aria-hidden": "true" }, ...scoring))
    : el("svg", { class: "trike-board", viewBox, role: "group", "aria-label": t("play.board") },
      ...cells.map((c) => c.node), ...scoring);

  // ---- players and scores
  const scores = state.scores || {};
  const players = (view.players || []).map((p) => {
    const colour = colors[p.name];
    const toMove = p.name === state.to_move;
    return el("tr", { class: toMove ? "to-move" : "", "data-player": p.name },
      el("td", { class: "turn" }, toMove ? "▶" : ""),
      el("td", {}, el("span", { class: `swatch ${colour || ""}` }), " ",
        colour ? t(`trike.${colour}`) : ""),
      el("td", {}, p.name, p.bot ? ` (${t("table.bot")})` : "", p.name === view.you ? ` (${t("table.you")})` : ""),
      el("td", { class: "score" }, over ? t("trike.score", { points: scores[p.name] ?? 0 }) : ""));
  });
  const panel = [el("table", { class: "players trike-players" }, el("tbody", {}, players))];

  // ---- status line, swap offer, hint
  if (over) {
    panel.push(el("p", { class: "trike-result" }, t("table.game_over"), " — ",
      t("table.winner", { name: state.winner || "" })));
    panel.push(el("p", { class: "muted" }, t("trike.final")));
  } else if (view.your_turn) {
    panel.push(el("p", { class: "trike-status" }, t("play.your_turn"), " — ",
      state.pawn ? t("trike.targets") : t("trike.opening")));
    if (legal.includes("swap")) {
      panel.push(el("div", { class: "trike-swap" },
        el("p", {}, t("trike.swap_offer")),
        el("button", { type: "button", class: "action swap", "data-action": "swap", onclick: () => send("swap") },
          t("trike.swap"))));
    }
    // The hint stays in the view until the next move: every redraw shows it again.
    // The engine's reason as a kind (engines/trike/bot.py reason()), worded here.
    const why = (hint) => (hint.reason && hint.reason.kind !== "other" ? t(`hint.trike.${hint.reason.kind}`, hint.reason) : hint.why || "");
    const hintText = (hint) => (hint && hint.action !== undefined ? `${hint.action} — ${why(hint)}` : "");
    const hintLine = el("p", { class: "hint", "aria-live": "polite" }, hintText(view.hint));
    panel.push(el("button", { type: "button", class: "hint-button", onclick: async () => {
      try {
        hintLine.textContent = hintText(await api.hint());
      } catch (err) { hintLine.textContent = String(err.message || err); }
    } }, t("play.hint")), hintLine);
  } else if (state.to_move) {
    panel.push(el("p", { class: "trike-status muted" }, t("play.waiting", { name: state.to_move })));
  }

  const recent = log.slice(-6).reverse();
  panel.push(el("ol", { class: "trike-log mono", reversed: true, start: log.length },
    recent.map((e) => el("li", {}, `${e.player}: ${e.action === "swap" ? t("trike.swap") : e.action}`))));

  root.replaceChildren(
    el("div", { class: "trike-layout" }, board, el("div", { class: "trike-panel" }, ...panel)),
  );
}
