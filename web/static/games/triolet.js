// Triolet renderer (web/GAMES.md contract): the 15 x 15 board with its double, triple and
// play-again cells, the cells where your selected token may go highlighted on your turn,
// your rack, scores, and the sets each play made with their points.
// Playing: tap a rack token, then a highlighted cell (a joker asks for its value); add up
// to three tokens, then "Play". Exchange: switch to exchange mode, tap the tokens, confirm.

// Its words are in the site's catalogue (web/messages/<lang>.json, keys "triolet.*").

import { boardGrid } from "../js/board_grid.js";

const C = 40; // SVG units per cell
const M = 22; // margin for the coordinates

// The grid and its bonus cells (L1) are the hub's (view.drawing: the engine's fixed board).
const SPECIAL_MARK = { double: "×2", triple: "×3", again: "↻" };

// UI state only (GAMES.md): the token being placed, the play being built, exchange mode.
let ui = { key: "", selected: null, pending: [], jokerCell: null, swapping: false, swap: [], hint: null };
let busy = false;

function parsePlacement(text) {
  const [cell, what] = text.split(":");
  const joker = what.startsWith("J");
  return { cell, joker, value: Number(joker ? what.slice(1) : what) };
}

const placementText = (p) => `${p.cell}:${p.joker ? "J" : ""}${p.value}`;
const tokenLabel = (v) => (typeof v === "string" && v.startsWith("J") ? v : String(v));

function actionText(action) {
  if (action && action.play) return action.play.join(" ");
  if (action && action.exchange) return `⇄ ${action.exchange.join(" ")}`;
  return "—";
}

function entryLines(t, e) {
  const a = e.action || {};
  if (a.exchange) return [t("triolet.exchange_log", { name: e.player, n: a.exchange.length })];
  if (a.pass) return [t("triolet.pass_log", { name: e.player })];
  const lines = [`${t("triolet.play_log", { name: e.player, points: e.points })} — ${actionText(a)}`];
  for (const s of e.sets || []) {
    lines.push(t("triolet.set", { cells: s.cells.join(" "), sum: s.sum, points: s.points }));
  }
  if (e.triolet) lines.push(t("triolet.triolet"));
  if (e.again) lines.push(t("triolet.again"));
  return lines;
}

export function render(view, root, api) {
  const { el, t } = api;
  const state = view.state || {};
  const log = state.log || [];
  const board = state.board || {};
  const over = state.status === "over";
  const legal = view.your_turn ? (view.legal_actions || []) : [];
  const plays = legal.filter((a) => a && a.play).map((a) => a.play.map(parsePlacement));
  const canPass = legal.some((a) => a && a.pass);
  const canExchange = legal.some((a) => a && a.exchange);
  const rack = view.you && state.racks && Array.isArray(state.racks[view.you]) ? state.racks[view.you] : [];
  const grid = (view.view && view.view.drawing) || { columns: "", rows: 0, bonus: {} };
  const COLS = grid.columns;
  const ROWS = grid.rows;

  const key = `${log.length}|${state.to_move}|${view.you}|${rack.join(",")}`;
  if (key !== ui.key) ui = { key, selected: null, pending: [], jokerCell: null, swapping: false, swap: [], hint: null };
  if (!ui.hint && view.your_turn && view.hint) ui.hint = view.hint; // kept by the hub until the next move
  const rerender = () => render(view, root, api);
  const send = (action) => {
    if (busy) return;
    busy = true;
    api.play(action).catch(() => {}).finally(() => { busy = false; });
  };

  const usedIdx = new Set(ui.pending.map((p) => p.idx));
  const pendingCells = new Set(ui.pending.map((p) => p.cell));
  const sameAs = (a, b) => a.cell === b.cell && a.value === b.value && a.joker === b.joker;
  const holdsPending = (play) => ui.pending.every((p) => play.some((q) => sameAs(p, q)));
  // The hub's legal plays that extend what is already pending: a cell is lit only where
  // the selected token stands in one of them. "plays" (solid): the token there completes
  // a legal play; "step" (dashed): it is legal only with more tokens (a lone token there
  // would not touch the board), so the page says so and Play waits.
  const compatible = plays.filter((play) => play.length > ui.pending.length && holdsPending(play));
  const complete = ui.pending.length
    ? legal.find((a) => a && a.play && a.play.length === ui.pending.length && holdsPending(a.play.map(parsePlacement)))
    : undefined;
  const token = ui.selected === null ? null : rack[ui.selected];
  const fits = (q) => token === null || (token === "J" ? q.joker : !q.joker && q.value === token);
  const lit = new Map(); // cell -> "plays" | "step"
  for (const play of compatible) {
    for (const q of play) {
      if (pendingCells.has(q.cell) || !fits(q)) continue;
      if (play.length === ui.pending.length + 1) lit.set(q.cell, "plays");
      else if (!lit.has(q.cell)) lit.set(q.cell, "step");
    }
  }
  const lastPlay = [...log].reverse().find((e) => e.action && e.action.play);
  const lastCells = new Set(lastPlay ? lastPlay.action.play.map((p) => p.split(":")[0]) : []);
  const hintCells = new Set(ui.hint && ui.hint.action && ui.hint.action.play
    ? ui.hint.action.play.map((p) => p.split(":")[0]) : []);

  const placeOn = (cell) => {
    if (ui.selected === null || ui.pending.length >= 3 || board[cell] !== undefined) return;
    if (token === "J") { ui.jokerCell = cell; rerender(); return; }
    ui.pending.push({ cell, idx: ui.selected, value: Number(token), joker: false });
    ui.selected = null;
    rerender();
  };

  // ---- the board: one focusable grid (board_grid.js) for a seated player
  const size = Math.max(COLS.length, ROWS) * C + M;
  const interactive = Boolean(view.you);
  const playing = view.your_turn && !ui.swapping;
  const cells = [];
  for (let r = 1; r <= ROWS; r++) {
    for (let c = 0; c < COLS.length; c++) {
      const name = `${COLS[c]}${r}`;
      const x = M + c * C;
      const y = M + (r - 1) * C;
      const special = grid.bonus[name];
      const pending = ui.pending.find((p) => p.cell === name);
      const onBoard = board[name];
      const cls = ["cell", special || "plain"];
      const litAs = playing ? lit.get(name) : undefined;
      if (litAs) cls.push(litAs === "plays" ? "legal" : "step");
      if (lastCells.has(name)) cls.push("last");
      if (hintCells.has(name)) cls.push("hinted");
      if (pending) cls.push("pending");
      const parts = [el("rect", { x, y, width: C, height: C, class: "bg" })];
      if (onBoard !== undefined || pending) {
        const label = onBoard !== undefined ? tokenLabel(onBoard) : `${pending.joker ? "J" : ""}${pending.value}`;
        parts.push(el("rect", { x: x + 3, y: y + 3, width: C - 6, height: C - 6, rx: 6, class: "token" }));
        parts.push(el("text", { x: x + C / 2, y: y + C / 2 + 6, class: label.startsWith("J") ? "num joker" : "num" }, label));
      } else if (special) {
        parts.push(el("text", { x: x + C / 2, y: y + C / 2 + 5, class: "mark" }, SPECIAL_MARK[special]));
      }
      // Highlight and focus rings are drawn inside the cell (inset by half their stroke),
      // so they never spill over the neighbours.
      parts.push(el("rect", { x: x + 3, y: y + 3, width: C - 6, height: C - 6, class: "ring" }));
      const attrs = { class: cls.join(" "), "data-cell": name };
      // The accessible name starts with what the cell shows (a token, a bonus mark).
      const shown = onBoard !== undefined ? tokenLabel(onBoard) : pending ? `${pending.joker ? "J" : ""}${pending.value}` : special ? SPECIAL_MARK[special] : "";
      const meaning = onBoard === undefined && !pending && special ? t(`triolet.${special === "again" ? "replay" : special}`) : "";
      const status = litAs ? t(litAs === "plays" ? "triolet.cell_plays" : "triolet.cell_step") : "";
      const name_ = [shown, name, meaning, status].filter(Boolean).join(" ");
      if (!interactive) {
        parts.push(el("title", {}, name_));
        cells.push(el("g", attrs, ...parts));
        continue;
      }
      attrs["aria-label"] = name_;
      if (playing && (litAs || pending)) {
        // A click (or Enter/Space on the focused cell) puts the chosen token there, or
        // takes a pending one back.
        attrs.onclick = () => {
          if (pending) { ui.pending = ui.pending.filter((p) => p !== pending); ui.jokerCell = null; rerender(); return; }
          placeOn(name);
        };
      } else {
        attrs["aria-disabled"] = "true";
      }
      cells.push({ node: el("g", attrs, ...parts), x: x + C / 2, y: y + C / 2 });
    }
  }
  const coords = [];
  for (let c = 0; c < COLS.length; c++) coords.push(el("text", { x: M + c * C + C / 2, y: 15, class: "coord" }, COLS[c]));
  for (let r = 1; r <= ROWS; r++) coords.push(el("text", { x: 10, y: M + (r - 1) * C + C / 2 + 4, class: "coord" }, String(r)));
  const preferred = [...lit.keys()][0] || (ROWS ? `${COLS[Math.floor(COLS.length / 2)]}${Math.ceil(ROWS / 2)}` : null);
  const svg = interactive
    ? el("svg", { viewBox: `0 0 ${size + 2} ${size + 2}`, class: "triolet-board" },
      el("g", { "aria-hidden": "true" }, ...coords),
      boardGrid(el, { label: t("play.board"), cells, rowTolerance: C / 2, prefer: preferred }))
    : el("svg", { viewBox: `0 0 ${size + 2} ${size + 2}`, class: "triolet-board", role: "group", "aria-label": t("play.board") }, ...coords, ...cells);

  // ---- the side panel
  const panel = [];
  const scores = state.scores || {};
  panel.push(el("table", { class: "players" }, el("tbody", {}, (view.players || []).map((p, k) =>
    el("tr", { class: p.name === state.to_move ? "to-move" : "", "data-player": p.name, style: `--pc: var(--p${k})` },
      el("td", { class: "turn" }, p.name === state.to_move ? "▶" : ""),
      el("td", {}, p.name, p.bot ? ` (${t("table.bot")})` : "", p.name === view.you ? ` (${t("table.you")})` : ""),
      el("td", { class: "score" }, String(scores[p.name] ?? 0)))))));
  panel.push(el("p", { class: "muted" }, t("triolet.bag", { n: state.bag_count ?? 0 })));
  if (over) {
    panel.push(el("p", { class: "triolet-result" }, t("triolet.over"), " — ",
      state.winner ? t("triolet.winner", { name: state.winner }) : t("triolet.draw")));
  }

  if (view.you && rack.length) {
    panel.push(el("h3", {}, t("triolet.rack")));
    panel.push(el("div", { class: "triolet-rack" }, rack.map((v, idx) => {
      const cls = ["rack-token"];
      if (ui.swapping ? ui.swap.includes(idx) : ui.selected === idx) cls.push("selected");
      if (usedIdx.has(idx)) cls.push("used");
      return el("button", {
        type: "button", class: cls.join(" "), "data-token": String(v),
        disabled: !view.your_turn || usedIdx.has(idx),
        onclick: () => {
          if (ui.swapping) {
            ui.swap = ui.swap.includes(idx) ? ui.swap.filter((k) => k !== idx) : [...ui.swap, idx];
          } else {
            ui.selected = ui.selected === idx ? null : idx;
            ui.jokerCell = null;
          }
          rerender();
        },
      }, tokenLabel(v));
    })));
  }

  if (view.your_turn) {
    if (ui.jokerCell) {
      const allowed = new Set();
      for (const play of compatible) for (const q of play) if (q.cell === ui.jokerCell && q.joker) allowed.add(q.value);
      const values = allowed.size ? [...allowed].sort((a, b) => a - b) : [...Array(16).keys()];
      panel.push(el("p", {}, t("triolet.joker_value", { cell: ui.jokerCell })));
      panel.push(el("div", { class: "triolet-values" }, values.map((v) => el("button", {
        type: "button", class: "value-choice", "data-value": String(v),
        onclick: () => {
          ui.pending.push({ cell: ui.jokerCell, idx: ui.selected, value: v, joker: true });
          ui.selected = null; ui.jokerCell = null; rerender();
        },
      }, String(v)))));
    } else if (ui.swapping) {
      panel.push(el("p", { class: "muted" }, t("triolet.pick_swap")));
    } else {
      panel.push(el("p", { class: "muted" }, ui.selected === null ? t("triolet.pick_token") : t("triolet.pick_cell")));
    }
    if (ui.pending.length) {
      panel.push(el("p", { class: "mono" }, t("triolet.pending", { cells: ui.pending.map(placementText).join(" ") })));
      if (!complete) panel.push(el("p", { class: "triolet-incomplete", role: "status" }, t("triolet.needs_more")));
    }
    const buttons = [];
    if (ui.swapping) {
      buttons.push(el("button", { type: "button", class: "action", disabled: !ui.swap.length,
        onclick: () => send({ exchange: ui.swap.map((k) => rack[k]) }) }, t("triolet.exchange")));
      buttons.push(el("button", { type: "button", class: "action",
        onclick: () => { ui.swapping = false; ui.swap = []; rerender(); } }, t("triolet.cancel")));
    } else {
      // Play only sends a play the hub listed (its own notation): never a half-built one.
      buttons.push(el("button", { type: "button", class: "action play", disabled: !complete,
        onclick: () => { if (complete) send(complete); } }, t("triolet.play")));
      if (ui.pending.length) {
        buttons.push(el("button", { type: "button", class: "action",
          onclick: () => { ui.pending = []; ui.selected = null; ui.jokerCell = null; rerender(); } }, t("triolet.clear")));
      }
      if (canExchange) {
        buttons.push(el("button", { type: "button", class: "action",
          onclick: () => { ui.swapping = true; ui.pending = []; ui.selected = null; rerender(); } }, t("triolet.exchange_mode")));
      }
      if (canPass) buttons.push(el("button", { type: "button", class: "action", onclick: () => send({ pass: true }) }, t("triolet.pass")));
    }
    buttons.push(el("button", { type: "button", class: "hint-button", onclick: async () => {
      try { ui.hint = await api.hint(); } catch (err) { ui.hint = null; }
      rerender();
    } }, t("play.hint")));
    panel.push(el("div", { class: "triolet-buttons" }, ...buttons));
    if (ui.hint && ui.hint.action !== undefined) {
      panel.push(el("p", { class: "hint" }, t("triolet.hint", { action: actionText(ui.hint.action), why: ui.hint.why || "" })));
    }
  }

  const recent = log.slice(-6).reverse();
  panel.push(el("ol", { class: "triolet-log", reversed: true, start: log.length }, recent.map((e) =>
    el("li", {}, ...entryLines(t, e).map((line, k) => el("div", { class: k ? "set" : "head" }, line))))));

  root.replaceChildren(el("div", { class: "triolet-layout" }, svg, el("div", { class: "triolet-panel" }, ...panel)));
}
