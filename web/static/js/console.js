// Referee console: the panel is server-rendered (forms work without JavaScript); here we
// refresh it when the table changes, and ask before an undo.
import { page } from "./common.js";
import { connect } from "./live.js";

const host = document.getElementById("panel-host");
let pending = false;

function typing() {
  const active = document.activeElement;
  return active && host.contains(active) && (active.tagName === "INPUT" || active.tagName === "SELECT" || active.tagName === "TEXTAREA");
}

// A refresh replaces the panel: a keyboard user's focus goes back to the same control
// (same input kind and choice), or to the panel's first question.
function focusKey(node) {
  if (!node || !host.contains(node) || node.tagName !== "BUTTON") return null;
  const form = node.closest("form");
  const field = (name) => (form && form.elements[name] ? form.elements[name].value : "");
  return [node.dataset.input || field("input"), node.dataset.choice || "", field("entry"), field("where")].join("|");
}

function findFocus(key) {
  for (const button of host.querySelectorAll("button")) if (focusKey(button) === key) return button;
  return null;
}

async function refresh() {
  if (typing()) { pending = true; return; }
  pending = false;
  const response = await fetch(host.dataset.panelUrl, { credentials: "same-origin" });
  if (!response.ok) return;
  const focused = focusKey(document.activeElement);
  host.innerHTML = await response.text();
  host.dataset.refreshed = String(Date.now());
  if (focused) {
    const again = findFocus(focused) || host.querySelector(".prompt button");
    if (again) again.focus();
  }
}

host.addEventListener("focusout", () => { if (pending) setTimeout(refresh, 50); });
host.addEventListener("submit", (event) => {
  const form = event.target;
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
});

connect({
  table: page.settings.table,
  onTable(view) {
    const panel = document.getElementById("panel");
    if (view.id === page.settings.table && (!panel || String(view.change_id) !== panel.dataset.change)) refresh();
  },
  onSnapshot() { refresh(); },
});
