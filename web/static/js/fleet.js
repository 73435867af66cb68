// The fleet page reloads itself to stay current: every few seconds while a rollout runs,
// less often otherwise (the period is on #fleet-head, set by web/fleet.py). Never while
// the organizer types in a form or has an action menu open, nor while the tab is hidden.
const head = document.getElementById("fleet-head");
const everyMs = Math.max(1, Number(head && head.dataset.refreshS) || 15) * 1000;
function busy() {
  const active = document.activeElement;
  return document.hidden || (active && active.closest("form")) || document.querySelector("td.actions details[open]");
}
let held = 0; // periods that found the page busy (on #fleet-head: the browser tests wait on it)
setInterval(() => {
  if (!busy()) window.location.reload();
  else if (head) head.dataset.held = String(++held);
}, everyMs);
