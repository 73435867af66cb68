// A Trigono table as everyone sees it: the layout of boards with the palets on them,
// the players with their palets in hand and rounds won, and whose throw it is. Shared by
// the dashboard, the big screen and the Trigono play page (web/static/games/trigono.js).
import { page, t, el, lattice, placeIn } from "./common.js";

// A shipped SVG, not the emoji: it shows without an emoji font (the festival laptop).
export function trophy(label) {
  return el("img", { class: "crown", src: `${page.urls.static}img/trophy.svg`, alt: label, title: label, width: 28, height: 28 });
}

// -- one table -------------------------------------------------------------------------
export function defaultBoards(view) {
  const boards = (view.options && view.options.boards) || null;
  return boards && boards.length ? boards : [{ id: "B1", cell: [0, 0, "up"] }];
}

export function layoutSvg(view) {
  const state = view.state || {};
  const boards = defaultBoards(view);
  const scale = 100;
  const cells = boards.map((b) => b.cell);
  const xs = [], ys = [];
  for (const cell of cells) for (const [i, j] of lattice.corners(cell)) {
    const [x, y] = lattice.vertexXY(i, j);
    xs.push(x * scale); ys.push(-y * scale);
  }
  const pad = 12;
  const box = [Math.min(...xs) - pad, Math.min(...ys) - pad, Math.max(...xs) - Math.min(...xs) + 2 * pad, Math.max(...ys) - Math.min(...ys) + 2 * pad];
  const parts = [];
  for (const board of boards) {
    const [cx, cy] = lattice.centroid(board.cell);
    const onBoard = (state.boards || {})[board.id] ?? 0;
    const corners = lattice.corners(board.cell).map(([i, j]) => lattice.vertexXY(i, j));
    // Holes sit toward two edges' middles (away from the corners, where jackpots are);
    // the count of palets on the board in the middle; the board's id toward the third edge.
    const toward = (a, b, f) => [cx + ((corners[a][0] + corners[b][0]) / 2 - cx) * f, cy + ((corners[a][1] + corners[b][1]) / 2 - cy) * f];
    const big = toward(0, 1, 0.62);
    const small = toward(1, 2, 0.62);
    const label = toward(2, 0, 0.78);
    const pendingBig = (state.holes || {})[`${board.id}.big`] ?? 0;
    const pendingSmall = (state.holes || {})[`${board.id}.small`] ?? 0;
    const at = ([x, y], dy = 0) => ({ x: (x * scale).toFixed(1), y: (-y * scale + dy).toFixed(1) });
    parts.push(el("g", { class: "board", "data-board": board.id },
      el("polygon", { points: lattice.polygon(board.cell, scale) }),
      el("circle", { class: "hole big", "data-hole": `${board.id}.big`, cx: big[0] * scale, cy: -big[1] * scale, r: 10 }),
      pendingBig ? el("text", { class: "pending", ...at(big, 5) }, pendingBig) : null,
      el("circle", { class: "hole small", "data-hole": `${board.id}.small`, cx: small[0] * scale, cy: -small[1] * scale, r: 7 }),
      pendingSmall ? el("text", { class: "pending", ...at(small, 4) }, pendingSmall) : null,
      el("text", { class: "board-id", ...at(label, 5) }, board.id),
      el("text", { class: "board-count", ...at([cx, cy], 9) }, onBoard),
    ));
  }
  lattice.hexagons(cells).forEach((v, k, all) => {
    const [x, y] = lattice.vertexXY(v[0], v[1]);
    const hole = all.length === 1 ? "jackpot" : `jackpot.${k + 1}`;
    const pending = (state.holes || {})[hole] ?? 0;
    parts.push(el("g", { class: "jackpot", "data-hole": hole },
      el("circle", { cx: x * scale, cy: -y * scale, r: 13 }),
      el("text", { class: "pending", x: x * scale, y: -y * scale + 5 }, pending || "★")));
  });
  const label = `${t("table.boards")}: ${boards.map((b) => `${b.id} ${(state.boards || {})[b.id] ?? 0}`).join(", ")}`;
  return el("svg", { class: "layout", viewBox: box.map((n) => n.toFixed(1)).join(" "), role: "img", "aria-label": label }, parts);
}

export function playerRows(view) {
  const state = view.state || {};
  const seats = view.seats || (view.players || []).map((name) => ({ name }));
  const trigono = view.game === "trigono";
  const toMove = state.to_move;
  const wins = state.rounds_won || {};
  const need = (view.options && view.options.rounds_to_win) || 2;
  return seats.map((seat, k) => {
    const name = seat.name;
    const out = (state.eliminated || []).includes(name);
    const cells = [
      el("td", { class: "turn" }, name === toMove ? "▶" : ""),
      el("td", { class: "name" }, el("span", { class: `dot p${k % 8}` }), name, seat.bot ? el("small", { class: "bot" }, t("table.bot")) : null,
        state.winner === name ? trophy(t("table.winner", { name })) : null),
    ];
    if (trigono) {
      cells.push(el("td", { class: "hand", "data-player": name, title: t("table.hand") }, (state.hands || {})[name] ?? 0));
      cells.push(el("td", { class: "wins", title: t("table.rounds_won") },
        Array.from({ length: need }, (_, w) => el("span", { class: w < (wins[name] || 0) ? "win on" : "win" }, "●"))));
      cells.push(el("td", { class: "status" }, out ? t("table.eliminated") : ""));
    } else {
      cells.push(el("td", { class: "hand score", "data-player": name, title: t("table.score") }, (state.scores || {})[name] ?? 0));
    }
    return el("tr", { class: [name === toMove ? "to-move" : "", out ? "out" : ""].join(" ").trim(), "data-player": name }, cells);
  });
}

export function statusLine(view) {
  const state = view.state || {};
  const bits = [];
  if (state.winner) bits.push(el("strong", { class: "winner" }, t("table.winner", { name: state.winner })));
  else if (state.status && state.status !== "playing") bits.push(el("strong", {}, t(view.game === "trigono" ? "table.match_over" : "table.game_over")));
  else if (state.to_move) bits.push(el("span", { class: "whose" }, el("strong", {}, state.to_move), " ", t(view.game === "trigono" ? "table.to_throw" : "table.to_move")));
  if (view.game === "trigono" && state.throw_distance_m !== undefined) {
    bits.push(el("span", { class: "distance" }, t("table.throw_line", { m: Number(state.throw_distance_m).toFixed(2) })));
  }
  if (state.phase && state.phase !== "normal") bits.push(el("span", { class: `phase ${state.phase}` }, t(`table.phase.${state.phase}`)));
  if (state.target) bits.push(el("span", { class: "target" }, t("table.target", { hole: placeIn(view, state.target) })));
  return el("div", { class: "status-line" }, bits);
}

export function counts(view) {
  const state = view.state || {};
  if (view.game !== "trigono") return null;
  const items = [];
  for (const [board, n] of Object.entries(state.boards || {})) items.push(el("li", { "data-count": `board:${board}`, title: t("table.on_board", { board }) }, el("b", {}, n), " ", board));
  items.push(el("li", { "data-count": "floor" }, el("b", {}, state.floor ?? 0), " ", t("table.floor")));
  for (const [hole, n] of Object.entries(state.holes || {})) {
    if (n) items.push(el("li", { "data-count": hole, class: "pending" }, el("b", {}, n), " ", t("table.pending", { hole: placeIn(view, hole) })));
  }
  return el("ul", { class: "counts" }, items);
}
