// What the big screen and the overlay do when something happens at a table: a banner
// (in the footer, never over the header), a short sound, the words spoken if asked, and an
// animation on the drawing — a palet dropping into its hole, the jackpot bursting, the
// round winner's row cheering, a trophy for the match. Animations are CSS (big.css) and
// stop under prefers-reduced-motion; the words and the banner stay.
import { el, t } from "./common.js";
import { speak, announcementsBetween } from "./live.js";
import { play } from "./sounds.js";
import { trophy } from "./trigono_view.js";

// Big moments: the big screen moves to their table, the banner is gold.
const MAJOR = new Set(["announce.jackpot", "announce.round_won", "announce.match_won", "announce.final"]);
const WON = new Set(["announce.round_won", "announce.match_won"]);
// The one sound for a batch of announcements: the biggest moment wins.
const SOUNDS = [["announce.match_won", "match"], ["announce.jackpot", "jackpot"], ["announce.round_won", "round"],
  ["announce.eliminated", "out"], ["announce.big", "drop"], ["announce.small", "drop"]];

export const isMajor = (found) => found.some((a) => MAJOR.has(a.key));

export function soundFor(found) {
  const hit = SOUNDS.find(([key]) => found.some((a) => a.key === key));
  return hit ? hit[1] : null;
}

let hideTimer = null;
let majorUntil = 0; // a big moment's banner is not replaced by a small one before this

// `table`: the table's id when the screen shows another one (or several), else null.
export function showMoments(found, { table = null, holdMs = 7000 } = {}) {
  const box = document.getElementById("announce");
  if (!found.length) return;
  const major = isMajor(found);
  // A correction replaces whatever the band shows: the throw it names was taken back.
  const correction = found.some((a) => a.kind === "undone" || a.kind === "amended");
  if (correction) majorUntil = 0;
  if (box && (major || correction || performance.now() >= majorUntil)) {
    if (major) majorUntil = performance.now() + holdMs;
    const won = found.some((a) => WON.has(a.key));
    // The biggest moment first: the banner has room for two lines.
    const ordered = [...found.filter((a) => MAJOR.has(a.key)).reverse(), ...found.filter((a) => !MAJOR.has(a.key))];
    const lines = ordered.map((a) => el("p", { class: MAJOR.has(a.key) ? "major" : null }, a.text));
    box.replaceChildren(...[
      won ? trophy("") : null,
      table ? el("span", { class: "moment-table" }, table) : null,
      el("div", { class: "moment-lines" }, lines)].filter(Boolean));
    box.dataset.base = box.dataset.base || box.className; // the page's own classes
    box.className = `${box.dataset.base}${major ? " major" : ""}${found.some((a) => a.key === "announce.jackpot") ? " jackpot" : ""}`;
    box.hidden = false;
    void box.offsetWidth; // restart the CSS animation
    box.classList.add("pop");
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => { box.hidden = true; }, holdMs);
  }
  const sound = soundFor(found);
  if (sound) play(sound);
  for (const a of found) speak(a.text);
}

// -- animations on the drawing ------------------------------------------------------------
// The page redraws a card on every change; an effect is kept with its start time and put
// back on the new elements with a negative delay, so it runs once, smoothly, to its end.
const effects = []; // {table, hole | player, kind, start, ms, seat}

// From the hub's moments (announcementsBetween gives the new ones): a palet in a hole, the
// jackpot, a round or the match won. An undo stops the effects of the table at once.
export function noteEffects(view, before) {
  const now = performance.now();
  const seats = (view.seats || []).map((s) => s.name);
  for (const moment of announcementsBetween(before, view)) {
    const m = (view.moments || []).find((x) => x.seq === moment.seq) || {};
    const p = m.params || {};
    if (m.kind === "undone" || m.kind === "amended") {
      for (let k = effects.length - 1; k >= 0; k--) if (effects[k].table === view.id) effects.splice(k, 1);
    } else if (m.kind === "big" || m.kind === "small" || m.kind === "jackpot") {
      const jackpot = m.kind === "jackpot";
      effects.push({ table: view.id, hole: p.hole, kind: jackpot ? "jackpot" : "drop",
        seat: Math.max(0, seats.indexOf(p.player)) % 8, start: now, ms: jackpot ? 2400 : 1400 });
    } else if (m.kind === "round_won" || m.kind === "match_won") {
      effects.push({ table: view.id, player: p.player, kind: "cheer", start: now, ms: m.kind === "match_won" ? 6000 : 3000 });
    }
  }
}

function withDelay(node, effect, now) {
  node.style.animationDelay = `${-(now - effect.start)}ms`;
  return node;
}

// Put the running effects of `table` on its freshly drawn card `root`.
export function applyEffects(root, table) {
  const now = performance.now();
  for (let k = effects.length - 1; k >= 0; k--) if (now - effects[k].start > effects[k].ms) effects.splice(k, 1);
  for (const effect of effects) {
    if (effect.table !== table) continue;
    if (effect.kind === "cheer") {
      const row = root.querySelector(`tr[data-player="${CSS.escape(effect.player)}"]`);
      if (row) withDelay(row, effect, now).classList.add("cheer");
      continue;
    }
    const hole = root.querySelector(`svg.layout [data-hole="${CSS.escape(effect.hole)}"]`);
    if (!hole) continue;
    const circle = hole.tagName === "circle" ? hole : hole.querySelector("circle");
    const cx = circle.getAttribute("cx"), cy = circle.getAttribute("cy");
    const r = Number(circle.getAttribute("r"));
    // The thrower's palet, in their colour, falling into the hole.
    const palet = withDelay(el("circle", { class: `palet-fall p${effect.seat}`, cx, cy, r: (r * 1.15).toFixed(1) }), effect, now);
    const ring = withDelay(el("circle", { class: `hole-ring ${effect.kind}`, cx, cy, r }), effect, now);
    hole.parentNode.append(ring, palet);
  }
}

// The match's end, on the big screen: a trophy over the stage for a few seconds.
export function celebrate(stage, name, ms = 8000) {
  if (!stage) return;
  const card = el("div", { class: "celebrate", role: "status" },
    trophy(""), el("p", {}, t("announce.match_won", { name })));
  stage.querySelectorAll(".celebrate").forEach((old) => old.remove());
  stage.append(card);
  setTimeout(() => card.remove(), ms);
}
