// Triominos renderer (web/GAMES.md contract): the table drawn as triangles on the lattice
// of docs/records.md with their three numbers, the legal spots highlighted on your turn, your
// rack, scores, and every bonus (bridge, hexagons) and round end announced.
// Playing: tap a rack tile to see where it fits (or tap a highlighted spot straight away),
// then pick one of the turned tiles offered for that spot. Draw and pass are buttons.

// Its words are in the site's catalogue (web/messages/<lang>.json, keys "triominos.*").

import { boardGrid } from "../js/board_grid.js";

const S = 60; // SVG units per lattice edge

// UI state only (GAMES.md): the selected rack tile and spot, a pending request.
let selectedTile = null;
let selectedSpot = null;
let busy = false;
let lastLogLength = -1;

const key = (cell) => cell.join(",");

// Where each cell is and which rack tile a placement's corners read as: the hub's
// (view.drawing, hub/tables/drawing.py); the renderer only scales and draws.
let drawing = { cells: {}, tiles: {} };
const tileOf = (corners) => drawing.tiles[corners.join("-")] || corners.join("-");

function points(cell) {
  return (drawing.cells[key(cell)] || []).map(([x, y]) => [x * S, y * S]);
}

function triangle(api, cell, cls, corners, extra = {}) {
  const { el } = api;
  const pts = points(cell);
  const parts = [el("polygon", { points: pts.map((p) => p.map((n) => n.toFixed(1)).join(",")).join(" "), class: "tri" })];
  if (corners && pts.length === 3) {
    const cx = (pts[0][0] + pts[1][0] + pts[2][0]) / 3;
    const cy = (pts[0][1] + pts[1][1] + pts[2][1]) / 3;
    corners.forEach((n, k) => {
      const x = pts[k][0] + (cx - pts[k][0]) * 0.55;
      const y = pts[k][1] + (cy - pts[k][1]) * 0.55;
      parts.push(el("text", { x: x.toFixed(1), y: (y + 6).toFixed(1), class: "num" }, String(n)));
    });
  }
  return el("g", { class: cls, "data-cell": key(cell), ...extra }, ...parts);
}

function miniTile(api, cell, corners) {
  // a small stand-alone triangle in the same orientation as the spot, with its numbers
  const { el } = api;
  const origin = cell[2] === "up" ? [0, 0, "up"] : [0, 0, "down"];
  const g = triangle(api, origin, "mini", corners);
  const pts = points(origin);
  const xs = pts.map((p) => p[0]); const ys = pts.map((p) => p[1]);
  const box = `${Math.min(...xs) - 4} ${Math.min(...ys) - 4} ${Math.max(...xs) - Math.min(...xs) + 8} ${Math.max(...ys) - Math.min(...ys) + 8}`;
  return el("svg", { viewBox: box, class: "mini-svg", width: 64, height: 56, "aria-hidden": "true" }, g);
}

function entryText(t, e, board) {
  const a = e.action || {};
  if (a.place) {
    const placed = board.find((b) => key(b.cell) === key(a.place.cell));
    return t("triominos.place_log", { name: e.player, tile: placed ? placed.tile : tileOf(a.place.corners), points: e.points })
      + (e.bonus ? ` — ${t(`triominos.bonus.${e.bonus}`)}` : "");
  }
  if (a.draw) return t("triominos.draw_log", { name: e.player, points: e.points });
  return t("triominos.pass_log", { name: e.player, points: e.points });
}

export function render(view, root, api) {
  const { el, t } = api;
  const state = view.state || {};
  const log = state.log || [];
  const over = state.status === "over";
  const legal = view.your_turn ? (view.legal_actions || []) : [];
  const placements = legal.filter((a) => a && a.place).map((a) => a.place);
  const canDraw = legal.some((a) => a && a.draw);
  const canPass = legal.some((a) => a && a.pass);
  const myRack = view.you && state.racks && Array.isArray(state.racks[view.you]) ? state.racks[view.you] : [];
  drawing = (view.view && view.view.drawing) || drawing;

  if (log.length !== lastLogLength) { // a new move: forget the half-made choice
    selectedTile = null; selectedSpot = null; lastLogLength = log.length;
  }
  if (selectedTile && !myRack.includes(selectedTile)) selectedTile = null;

  const send = (action) => {
    if (busy) return;
    busy = true;
    api.play(action).catch(() => {}).finally(() => { busy = false; });
  };
  const rerender = () => render(view, root, api);

  // placements that match the current tile selection, grouped by spot
  const usable = placements.filter((p) => !selectedTile || tileOf(p.corners) === selectedTile);
  const spots = new Map();
  for (const p of usable) {
    const k = key(p.cell);
    if (!spots.has(k)) spots.set(k, { cell: p.cell, options: [] });
    spots.get(k).options.push(p.corners);
  }

  // ---- the board
  const board = state.board || [];
  const lastPlace = [...log].reverse().find((e) => e.action && e.action.place);
  const lastKey = lastPlace ? key(lastPlace.action.place.cell) : null;
  const interactive = Boolean(view.you); // a seated player's board is one focusable grid
  const centreOf = (cell) => {
    const pts = points(cell);
    return pts.length ? [pts.reduce((a, p) => a + p[0], 0) / pts.length, pts.reduce((a, p) => a + p[1], 0) / pts.length] : [0, 0];
  };
  const items = [];
  for (const tile of board) {
    const cls = `tile${key(tile.cell) === lastKey ? " last" : ""}`;
    const extra = { "data-tile": tile.tile };
    if (interactive) Object.assign(extra, { "aria-label": tile.tile, "aria-disabled": "true" });
    items.push({ node: triangle(api, tile.cell, cls, tile.corners, extra), cell: tile.cell });
  }
  for (const spot of spots.values()) {
    const k = key(spot.cell);
    const choose = () => {
      if (spot.options.length === 1) { send({ place: { cell: spot.cell, corners: spot.options[0] } }); return; }
      selectedSpot = k; rerender();
    };
    items.push({ node: triangle(api, spot.cell, `spot${selectedSpot === k ? " chosen" : ""}`, null, {
      onclick: choose, "aria-label": t("play.place_here", { cell: spot.cell.join(" ") }),
    }), cell: spot.cell });
  }
  const shapes = items.map((item) => item.node);
  const all = [...board.map((b) => b.cell), ...[...spots.values()].map((s) => s.cell)];
  if (!all.length) all.push([0, 0, "up"]);
  const pts = all.flatMap((c) => points(c));
  const xs = pts.map((p) => p[0]); const ys = pts.map((p) => p[1]);
  // the drawn area: every tile and spot, padded, and never less than a few tiles wide
  // (so a young table is not blown up to the page width)
  const pad = S * 0.6;
  const span = S * 5;
  let minX = Math.min(...xs) - pad; let maxX = Math.max(...xs) + pad;
  let minY = Math.min(...ys) - pad; let maxY = Math.max(...ys) + pad;
  if (maxX - minX < span) { const grow = (span - (maxX - minX)) / 2; minX -= grow; maxX += grow; }
  if (maxY - minY < span * 0.7) { const grow = (span * 0.7 - (maxY - minY)) / 2; minY -= grow; maxY += grow; }
  const viewBox = `${minX.toFixed(1)} ${minY.toFixed(1)} ${(maxX - minX).toFixed(1)} ${(maxY - minY).toFixed(1)}`;
  const cells = items.map((item) => { const [x, y] = centreOf(item.cell); return { node: item.node, x, y }; });
  const firstSpot = spots.size ? key([...spots.values()][0].cell) : null;
  const svg = interactive && cells.length
    ? el("svg", { class: "triominos-board", viewBox },
      boardGrid(el, { label: t("play.board"), cells, rowTolerance: S * 0.45, prefer: selectedSpot || firstSpot }))
    : el("svg", { class: "triominos-board", role: "group", "aria-label": t("play.board"), viewBox }, ...shapes);

  // ---- the side panel
  const panel = [];
  const last = log[log.length - 1];
  const results = state.round_results || [];
  const lastResult = results[results.length - 1];
  if (over && lastResult) {
    panel.push(el("p", { class: "announce triominos-announce" }, lastResult.end === "out"
      ? t("triominos.out", { name: lastResult.player, points: (lastResult.points || {})[lastResult.player] })
      : t("triominos.blocked")));
  } else if (last && last.bonus) {
    panel.push(el("p", { class: "announce triominos-announce", "data-bonus": last.bonus },
      `${last.player}: ${t(`triominos.bonus.${last.bonus}`)}`));
  }
  const scores = state.scores || {};
  const racks = state.racks || {};
  panel.push(el("table", { class: "players triominos-players" }, el("tbody", {}, (view.players || []).map((p, n) => {
    const rack = racks[p.name];
    const count = Array.isArray(rack) ? rack.length : rack;
    return el("tr", { class: p.name === state.to_move ? "to-move" : "", "data-player": p.name },
      el("td", { class: "turn" }, p.name === state.to_move ? "▶" : ""),
      el("td", {}, el("span", { class: `dot p${n % 6}` }), " ", p.name,
        p.bot ? ` (${t("table.bot")})` : "", p.name === view.you ? ` (${t("table.you")})` : ""),
      el("td", { class: "muted" }, count === undefined ? "" : t("triominos.tiles", { n: count })),
      el("td", { class: "score" }, String(scores[p.name] ?? 0)));
  }))));
  panel.push(el("p", { class: "muted" }, t("triominos.round", { n: state.round ?? 1 }), " · ",
    t("triominos.pool", { n: state.pool_count ?? 0 })));
  if (over) {
    panel.push(el("p", { class: "triominos-result" }, t("table.game_over"),
      state.winner ? ` — ${t("table.winner", { name: state.winner })}` : ""));
  }

  if (myRack.length) {
    panel.push(el("h3", {}, t("triominos.rack")));
    const fits = new Set(placements.map((p) => tileOf(p.corners)));
    panel.push(el("div", { class: "triominos-rack" }, myRack.map((name) => {
      const nums = name.split("-").map(Number);
      return el("button", {
        type: "button",
        class: `rack-tile${selectedTile === name ? " selected" : ""}${fits.has(name) ? " fits" : ""}`,
        "data-tile": name,
        disabled: !view.your_turn || !fits.has(name),
        onclick: () => { selectedTile = selectedTile === name ? null : name; selectedSpot = null; rerender(); },
      }, miniTile(api, [0, 0, "up"], nums), el("span", { class: "sr-only" }, name));
    })));
  }

  if (view.your_turn) {
    if (state.draws_this_turn) panel.push(el("p", { class: "muted" }, t("triominos.drawn", { n: state.draws_this_turn })));
    if (selectedSpot && spots.has(selectedSpot)) {
      const spot = spots.get(selectedSpot);
      panel.push(el("p", {}, t("triominos.pick_turn")));
      panel.push(el("div", { class: "triominos-turns" }, spot.options.map((corners) => el("button", {
        type: "button", class: "turn-choice", "data-corners": corners.join(","),
        onclick: () => send({ place: { cell: spot.cell, corners } }),
      }, miniTile(api, spot.cell, corners))),
      el("button", { type: "button", class: "cancel", onclick: () => { selectedSpot = null; rerender(); } }, t("triominos.cancel"))));
    } else {
      const opening = !board.length;
      panel.push(el("p", { class: "triominos-status" }, t("play.your_turn"), " — ",
        placements.length ? t(opening ? "triominos.opening" : "triominos.pick_spot") : t("triominos.no_fit")));
    }
    const buttons = [];
    if (canDraw) buttons.push(el("button", { type: "button", class: "action draw", "data-action": "draw", onclick: () => send({ draw: true }) }, t("triominos.draw")));
    if (canPass) buttons.push(el("button", { type: "button", class: "action pass", "data-action": "pass", onclick: () => send({ pass: true }) }, t("triominos.pass")));
    if (buttons.length) panel.push(el("div", { class: "triominos-buttons" }, buttons));
    // The hint lives in the view (the hub keeps it until the next move), so every
    // redraw shows it again; the click only asks for it.
    const hintLine = el("p", { class: "hint", "aria-live": "polite" }, view.hint ? hintText(view.hint) : "");
    panel.push(el("button", { type: "button", class: "hint-button", onclick: async () => {
      try {
        const hint = await api.hint();
        hintLine.textContent = hintText(hint);
        markHint(hint);
      } catch (err) { hintLine.textContent = String(err.message || err); }
    } }, t("play.hint")), hintLine);
  } else if (!over && state.to_move) {
    panel.push(el("p", { class: "muted" }, t("play.waiting", { name: state.to_move })));
  }

  panel.push(el("ol", { class: "triominos-log", reversed: true, start: log.length },
    log.slice(-8).reverse().map((e) => el("li", { class: e.bonus ? "bonus" : "" }, entryText(t, e, board)))));

  // styles: web/static/games/triominos.css (linked by the page; inline styles are blocked by the CSP)
  root.replaceChildren(
    el("div", { class: "triominos-layout" }, svg, el("div", { class: "triominos-panel" }, ...panel)),
  );
  if (view.your_turn && view.hint) markHint(view.hint);

  function hintText(hint) {
    const a = (hint && hint.action) || {};
    if (hint.action === undefined) return "";
    return a.place
      ? `${tileOf(a.place.corners)} → [${a.place.cell.join(", ")}] — ${hint.why || ""}`
      : `${a.draw ? t("triominos.draw") : t("triominos.pass")} — ${hint.why || ""}`;
  }

  function markHint(hint) {
    const a = (hint && hint.action) || {};
    if (!a.place) return;
    const g = root.querySelector(`[data-cell="${key(a.place.cell)}"]`);
    if (g) g.classList.add("hinted");
  }
}
