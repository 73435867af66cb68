// Trike renderer (web/GAMES.md contract): the triangular board of hexagonal cells, the
// stones and the neutral pawn, the cells the pawn can reach highlighted and clickable on
// your turn, the pie-rule swap offered when it is legal, and the score at the end.
// Cells are named as in RECORDS.md § Trike: row letter from the apex, number in the row.
// Styles live in trike.css (the page links it; inline styles are refused by the CSP).

// Its words are in the site's catalogue (web/messages/<lang>.json, keys "trike.*").

const ROWS = "abcdefghijklmnopqrs";
const SQRT3 = Math.sqrt(3);
const R = 20; // hexagon radius in SVG units; the SVG scales to the page width

function cellName(r, c) { return `${ROWS[r]}${c + 1}`; }

function centre(r, c) {
  // pointy-top hexagons: neighbours (r, c±1) side by side, row r+1 half a cell lower-left
  return [(c - r / 2) * SQRT3 * R, r * 1.5 * R];
}

function hexPoints(x, y, radius) {
  const pts = [];
  for (let k = 0; k < 6; k += 1) {
    const a = Math.PI / 6 + (k * Math.PI) / 3;
    pts.push(`${(x + radius * Math.cos(a)).toFixed(2)},${(y + radius * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

let busy = false; // UI state only: an action is on its way to the hub

export function render(view, root, api) {
  const { el, t } = api;
  const state = view.state || {};
  const size = state.size || (view.options && view.options.size) || 13;
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
  const cells = [];
  const scoring = new Set();
  if (over && state.pawn) {
    scoring.add(state.pawn);
  }
  for (let r = 0; r < size; r += 1) {
    for (let c = 0; c <= r; c += 1) {
      const name = cellName(r, c);
      const [x, y] = centre(r, c);
      const stone = stones[name];
      const isTarget = targets.has(name);
      const attrs = {
        class: `trike-cell${isTarget ? " target" : ""}${name === lastCell ? " last" : ""}`,
        "data-cell": name,
      };
      if (isTarget) {
        attrs.onclick = () => send(name);
        attrs.role = "button";
        attrs.tabindex = "0";
        attrs["aria-label"] = t("play.cell", { cell: name });
        attrs.onkeydown = (ev) => { if (ev.key === "Enter" || ev.key === " ") send(name); };
      }
      const parts = [
        el("polygon", { points: hexPoints(x, y, R * 0.97), class: "hex" }),
        el("title", {}, name),
      ];
      if (stone) {
        parts.push(el("circle", { cx: x, cy: y, r: R * 0.62, class: `stone ${stone}` }));
      } else if (isTarget) {
        parts.push(el("circle", { cx: x, cy: y, r: R * 0.22, class: "dot" }));
      }
      if (name === state.pawn) {
        parts.push(el("circle", { cx: x, cy: y, r: R * 0.3, class: "pawn" }, el("title", {}, t("trike.pawn"))));
      }
      cells.push(el("g", attrs, ...parts));
    }
  }
  // Highlight the scoring area when the game is over (the pawn and its neighbours).
  if (over && state.pawn) {
    const r = ROWS.indexOf(state.pawn[0]);
    const c = Number(state.pawn.slice(1)) - 1;
    for (const [dr, dc] of [[0, 0], [-1, -1], [-1, 0], [0, -1], [0, 1], [1, 0], [1, 1]]) {
      const rr = r + dr; const cc = c + dc;
      if (cc < 0 || cc > rr || rr >= size) continue;
      const [x, y] = centre(rr, cc);
      cells.push(el("polygon", { points: hexPoints(x, y, R * 0.97), class: "scoring" }));
    }
  }
  const [left] = centre(size - 1, 0);
  const [right, bottom] = centre(size - 1, size - 1);
  const pad = R * 1.2;
  const board = el("svg", {
    class: "trike-board",
    viewBox: `${left - pad} ${-pad} ${right - left + 2 * pad} ${bottom + 2 * pad}`,
    role: "group", "aria-label": t("play.board"),
  }, ...cells);

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
