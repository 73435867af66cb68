// The fallback renderer (web/GAMES.md): scores, whose turn, the last moves, and every
// legal action as a button. Every game is playable with it before its own renderer exists.

function label(action) {
  return typeof action === "string" ? action : JSON.stringify(action);
}

export function render(view, root, api) {
  const { el, t } = api;
  const state = view.state || {};
  const players = view.players || [];
  const scores = el("table", { class: "fallback-scores" }, el("tbody", {}, players.map((p) =>
    el("tr", { class: p.name === state.to_move ? "to-move" : "", "data-player": p.name },
      el("td", {}, p.name === state.to_move ? "▶" : ""),
      el("td", {}, p.name, p.bot ? ` (${t("table.bot")})` : "", p.name === view.you ? ` (${t("table.you")})` : ""),
      el("td", { class: "score" }, (state.scores || {})[p.name] ?? "")))));
  const parts = [scores];
  if (view.you && state.racks && Array.isArray(state.racks[view.you])) {
    parts.push(el("p", { class: "rack mono" }, state.racks[view.you].map((tile) => el("span", { class: "tile" }, tile))));
  }
  if (view.your_turn) {
    parts.push(el("h2", {}, t("play.legal_actions")));
    const actions = view.legal_actions || [];
    if (!actions.length) parts.push(el("p", { class: "muted" }, t("play.no_actions")));
    parts.push(el("div", { class: "fallback-actions" }, actions.slice(0, 400).map((action) =>
      el("button", { type: "button", class: "action mono", "data-action": label(action),
        onclick: (event) => { event.target.disabled = true; api.play(action).catch(() => { event.target.disabled = false; }); } },
      label(action)))));
    // The hint stays in the view until the next move: every redraw shows it again.
    const hintText = (hint) => (hint && hint.action !== undefined ? `${label(hint.action)} — ${hint.why || ""}` : "");
    const hintLine = el("p", { class: "hint", "aria-live": "polite" }, hintText(view.hint));
    parts.push(el("button", { type: "button", class: "hint-button",
      onclick: async () => { hintLine.textContent = hintText(await api.hint()); } }, t("play.hint")), hintLine);
  }
  const log = (state.log || []).slice(-8).reverse();
  parts.push(el("ol", { class: "fallback-log mono", reversed: true, start: (state.log || []).length },
    log.map((entry) => el("li", {}, `${entry.player}: ${label(entry.action)}${entry.points ? ` (+${entry.points})` : ""}`))));
  root.replaceChildren(...parts);
}
