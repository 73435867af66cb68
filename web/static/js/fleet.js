// The fleet page while a rollout runs: reload every few seconds to show its progress,
// but never while the organizer types in a form or has an action menu open.
const EVERY_MS = 4000;
function busy() {
  const active = document.activeElement;
  return (active && active.closest("form")) || document.querySelector("td.actions details[open]");
}
setInterval(() => { if (!busy()) window.location.reload(); }, EVERY_MS);
