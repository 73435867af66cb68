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

async function refresh() {
  if (typing()) { pending = true; return; }
  pending = false;
  const response = await fetch(host.dataset.panelUrl, { credentials: "same-origin" });
  if (!response.ok) return;
  host.innerHTML = await response.text();
  host.dataset.refreshed = String(Date.now());
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
