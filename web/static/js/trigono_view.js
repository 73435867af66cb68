// A Trigono table as everyone sees it: the layout of boards with the palets on them,
// the players with their palets in hand and rounds won, and whose throw it is. Shared by
// the dashboard, the big screen and the Trigono play page (web/static/games/trigono.js).
import { page, t, el, placeIn } from "./common.js";

// A shipped SVG, not the emoji: it shows without an emoji font (the festival laptop).
export function trophy(label) {
  return el("img", { class: "crown", src: `${page.urls.static}img/trophy.svg`, alt: label, title: label, width: 28, height: 28 });
}

// -- one table -------------------------------------------------------------------------
// The hub says where everything is (view.drawing, hub/tables/drawing.py: lattice units,
// y down); the page scales it and puts the palets on it.
const SCALE = 100;
const px = (n) => (n * SCALE).toFixed(1);

export function layoutSvg(view) {
  const state = view.state || {};
  const drawing = view.drawing || { boards: [], jackpots: [], box: [0, 0, 0, 0] };
  const pad = 12;
  const [x0, y0, w, h] = drawing.box;
  const box = [x0 * SCALE - pad, y0 * SCALE - pad, w * SCALE + 2 * pad, h * SCALE + 2 * pad];
  const pending = (hole) => (state.holes || {})[hole] ?? 0;
  const at = ([x, y], dy = 0) => ({ x: px(x), y: (y * SCALE + dy).toFixed(1) });
  const parts = [];
  for (const board of drawing.boards) {
    const onBoard = (state.boards || {})[board.id] ?? 0;
    const holes = Object.entries(board.holes).flatMap(([hole, { kind, at: where }]) => [
      el("circle", { class: `hole ${kind}`, "data-hole": hole, cx: px(where[0]), cy: px(where[1]), r: kind === "big" ? 10 : 7 }),
      pending(hole) ? el("text", { class: "pending", ...at(where, kind === "big" ? 5 : 4) }, pending(hole)) : null,
    ]);
    parts.push(el("g", { class: "board", "data-board": board.id },
      el("polygon", { points: board.corners.map(([x, y]) => `${px(x)},${px(y)}`).join(" ") }),
      ...holes,
      el("text", { class: "board-id", ...at(board.label, 5) }, board.id),
      el("text", { class: "board-count", ...at(board.centre, 9) }, onBoard),
    ));
  }
  for (const jackpot of drawing.jackpots) {
    const [x, y] = jackpot.at;
    parts.push(el("g", { class: "jackpot", "data-hole": jackpot.hole },
      el("circle", { cx: px(x), cy: px(y), r: 13 }),
      el("text", { class: "pending", ...at(jackpot.at, 5) }, pending(jackpot.hole) || "★")));
  }
  const label = `${t("table.boards")}: ${drawing.boards.map((b) => `${b.id} ${(state.boards || {})[b.id] ?? 0}`).join(", ")}`;
  return el("svg", { class: "layout", viewBox: box.map((n) => n.toFixed(1)).join(" "), role: "img", "aria-label": label }, parts);
}

export function playerRows(view) {
  const state = view.state || {};
  const seats = view.seats || (view.players || []).map((name) => ({ name }));
  const caps = view.capabilities || {}; // what the game is (the hub's game type), never its name
  const tally = state[caps.tally] || {};
  const toMove = state.to_move;
  const wins = state.rounds_won || {};
  const need = (view.options && view.options.rounds_to_win) || 2;
  // In the order they throw this round, from its first thrower (the hub's play_order);
  // each keeps its seat's colour.
  const order = (view.starter && view.starter.play_order) || [];
  const rank = (name) => (order.includes(name) ? order.indexOf(name) : order.length);
  const ordered = seats.map((seat, k) => [seat, k]).sort(([a], [b]) => rank(a.name) - rank(b.name));
  return ordered.map(([seat, k]) => {
    const name = seat.name;
    const out = (state.eliminated || []).includes(name);
    const cells = [
      el("td", { class: "turn" }, name === toMove ? "▶" : ""),
      el("td", { class: "name" }, el("span", { class: `dot p${k % 8}` }), name, seat.bot ? el("small", { class: "bot" }, t("table.bot")) : null,
        state.winner === name ? trophy(t("table.winner", { name })) : null),
    ];
    // A seat's number: palets in hand or points (the game type's tally).
    cells.push(caps.tally === "hands"
      ? el("td", { class: "hand", "data-player": name, title: t("table.hand") }, tally[name] ?? 0)
      : el("td", { class: "hand score", "data-player": name, title: t("table.score") }, tally[name] ?? 0));
    if (caps.rounds) {
      cells.push(el("td", { class: "wins", title: t("table.rounds_won") },
        Array.from({ length: need }, (_, w) => el("span", { class: w < (wins[name] || 0) ? "win on" : "win" }, "●"))));
      cells.push(el("td", { class: "status" }, out ? t("table.eliminated") : ""));
    }
    return el("tr", { class: [name === toMove ? "to-move" : "", out ? "out" : ""].join(" ").trim(), "data-player": name }, cells);
  });
}

export function statusLine(view) {
  const state = view.state || {};
  const caps = view.capabilities || {};
  const bits = [];
  const end = view.collecting; // the round's last board, shown until the palets are collected (cards.js asShown)
  if (state.winner) bits.push(el("strong", { class: "winner" }, t("table.winner", { name: state.winner })));
  else if (end) bits.push(el("strong", { class: "round-end" }, end.winner ? t("table.round_won_by", { n: end.round, name: end.winner })
    : t("announce.round_draw", { n: end.round })), " ", el("span", { class: "collecting" }, t("table.collecting")));
  else if (state.status && state.status !== "playing") bits.push(el("strong", {}, t(caps.ends === "match" ? "table.match_over" : "table.game_over")));
  else if (state.to_move) bits.push(el("span", { class: "whose" }, el("strong", {}, state.to_move), " ", t(caps.turn === "throw" ? "table.to_throw" : "table.to_move")));
  // Who starts the round and why (T4: drawn by lot, chosen, the last round's winner),
  // until the first palet is thrown.
  const starter = view.starter;
  if (!state.winner && starter && starter.before_first_throw) {
    bits.push(el("span", { class: "starter", "data-why": starter.why },
      t(`starter.${starter.why}`, { name: starter.player, round: starter.round, prev: starter.round - 1 })));
  }
  if (state.throw_distance_m !== undefined) {
    bits.push(el("span", { class: "distance" }, t("table.throw_line", { m: Number(state.throw_distance_m).toFixed(2) })));
  }
  if (state.phase && state.phase !== "normal") bits.push(el("span", { class: `phase ${state.phase}` }, t(`table.phase.${state.phase}`)));
  if (state.target) bits.push(el("span", { class: "target" }, t("table.target", { hole: placeIn(view, state.target) })));
  return el("div", { class: "status-line" }, bits);
}

// `down`: the table's boards that are not online (board id -> state, web/readiness.py); their
// count is marked, the state said in words to a screen reader and on hover.
export function counts(view, down = new Map()) {
  const state = view.state || {};
  if (!(view.capabilities || {}).sensor_boards) return null; // palets on the boards, the floor, the holes
  const items = [];
  for (const [board, n] of Object.entries(state.boards || {})) {
    const trouble = down.get(board);
    const said = trouble ? t("table.board_state", { board, state: t(`console.board.${trouble}`) }) : null;
    items.push(el("li", { "data-count": `board:${board}`, class: trouble ? `board-down ${trouble}` : null, "data-state": trouble || null,
      title: said || t("table.on_board", { board }) }, trouble ? el("span", { "aria-hidden": "true" }, "⚠ ") : null,
      el("b", {}, n), " ", board, said ? el("span", { class: "sr-only" }, ` (${said})`) : null));
  }
  items.push(el("li", { "data-count": "floor" }, el("b", {}, state.floor ?? 0), " ", t("table.floor")));
  for (const [hole, n] of Object.entries(state.holes || {})) {
    if (n) items.push(el("li", { "data-count": hole, class: "pending" }, el("b", {}, n), " ", t("table.pending", { hole: placeIn(view, hole) })));
  }
  return el("ul", { class: "counts" }, items);
}
