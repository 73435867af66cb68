// Referee console: the panel is server-rendered (forms work without JavaScript); here we
// refresh it when the table changes, without ever losing what the referee typed, chose
// or opened, and ask before an undo. Keyboard: 1-9 answer the first question, focus comes
// back to the next question after an answer.
import { page } from "./common.js";
import { connect } from "./live.js";

const host = document.getElementById("panel-host");

// A control's place in the panel that survives a refresh: its form's key and its name.
function formKey(form) {
  if (!form) return "";
  return form.dataset.form || (form.elements.input ? form.elements.input.value : "");
}

function controlKey(node) {
  if (!node || !host.contains(node)) return null;
  // A section focused on purpose (the skip link's target, #questions) keeps focus too.
  if (node.id && node.tabIndex === -1 && !node.closest("form")) return `id|${node.id}`;
  const form = node.closest("form");
  if (node.tagName === "BUTTON") {
    const field = (name) => (form && form.elements[name] ? form.elements[name].value : "");
    return `button|${node.dataset.input || field("input")}|${node.dataset.choice || ""}|${field("entry")}|${field("where")}`;
  }
  if (node.tagName === "SUMMARY") return `summary|${node.parentElement.dataset.key || ""}`;
  if (node.name) return `field|${formKey(form)}|${node.name}`;
  return null;
}

function findControl(key) {
  if (key.startsWith("id|")) return document.getElementById(key.slice(3));
  for (const node of host.querySelectorAll("button, input, select, textarea, summary")) {
    if (controlKey(node) === key) return node;
  }
  return null;
}

// What the referee touched: changed fields (by key), folded or opened sections.
const touched = new Map(); // field key -> value
const opened = new Map(); // details key -> open

host.addEventListener("input", (event) => {
  const key = controlKey(event.target);
  if (key && key.startsWith("field|")) touched.set(key, event.target.value);
});
host.addEventListener("change", (event) => {
  const key = controlKey(event.target);
  if (key && key.startsWith("field|")) touched.set(key, event.target.value);
});
host.addEventListener("toggle", (event) => {
  const details = event.target;
  if (details.tagName === "DETAILS" && details.dataset.key) opened.set(details.dataset.key, details.open);
}, true);

function restore() {
  for (const [key, value] of touched) {
    const node = findControl(key);
    if (!node) continue;
    if (node.tagName === "SELECT" && ![...node.options].some((o) => o.value === value)) continue;
    node.value = value;
  }
  for (const [key, open] of opened) {
    const details = host.querySelector(`details[data-key="${CSS.escape(key)}"]`);
    if (details) details.open = open;
  }
}

let inFlight = null;
let again = false;

async function refresh() {
  if (inFlight) { again = true; return inFlight; }
  inFlight = (async () => {
    do {
      again = false;
      const response = await fetch(host.dataset.panelUrl, { credentials: "same-origin" });
      if (!response.ok) continue;
      const html = await response.text();
      const active = document.activeElement;
      const focused = controlKey(active);
      const caret = active && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
      host.innerHTML = html;
      restore();
      if (focused) {
        const node = findControl(focused) || firstAnswer();
        if (node) {
          node.focus({ preventScroll: true });
          if (caret && typeof node.setSelectionRange === "function") {
            try { node.setSelectionRange(caret[0], caret[1]); } catch (e) { /* number inputs have no caret */ }
          }
        }
      }
      host.dataset.refreshed = String(Date.now());
    } while (again);
  })().finally(() => { inFlight = null; });
  return inFlight;
}

function firstAnswer() {
  return host.querySelector(".prompt button.default") || host.querySelector(".prompt button");
}

host.addEventListener("submit", (event) => {
  const form = event.target;
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
});

// Number keys answer the first question (its choices are numbered on screen); not while
// typing in a field.
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  if (!/^[1-9]$/.test(event.key)) return;
  const prompt = host.querySelector(".prompt");
  const buttons = prompt ? prompt.querySelectorAll(".choices button") : [];
  const button = buttons[Number(event.key) - 1];
  if (!button) return;
  event.preventDefault();
  button.focus();
  button.click();
});

// A refused stale answer comes back as the page itself (409, at the form's address): show
// the table's own address, so a reload does not post the old answer again.
if (location.pathname.endsWith("/input") && host.dataset.pageUrl) history.replaceState(null, "", host.dataset.pageUrl);

// After an answer (the page comes back with a message), focus is on the next question.
if (document.querySelector(".flashes") && !document.activeElement?.closest("#panel-host")) {
  const next = firstAnswer();
  if (next) next.focus();
}

connect({
  table: page.settings.table,
  onTable(view) {
    const panel = document.getElementById("panel");
    if (view.id === page.settings.table && (!panel || String(view.change_id) !== panel.dataset.change)) refresh();
  },
  onSnapshot() { refresh(); },
  // A board of this table changed state (the hub decided it is offline, back, faulty):
  // the panel says so, and whether the sensors are armed, within a second.
  onBoardStates(states) {
    const shown = new Map([...host.querySelectorAll(".board-states [data-board]")].map((li) => [li.dataset.board, li.dataset.state]));
    if (states.some((s) => shown.has(s.board) && shown.get(s.board) !== s.state)) refresh();
  },
});
