// A list of many tables (console index, admin): find one by name, player or game, show one
// status (in play, needs the referee, finished, archived). Rows carry data-status and
// data-search; the tools (#table-tools) stay put when the list is redrawn: call apply().
const tools = document.getElementById("table-tools");
const search = document.getElementById("table-search");
const status = document.getElementById("table-status");
const count = document.getElementById("table-shown");

const fold = (text) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();

// "active": in play, whether or not the referee is needed.
function statusMatches(row, wanted) {
  const have = row.dataset.status;
  if (wanted === "all") return true;
  if (wanted === "active") return have === "live" || have === "attention";
  return have === wanted;
}

export function apply() {
  if (!tools) return;
  const text = fold(search.value.trim());
  const wanted = status.value;
  let shown = 0, total = 0;
  for (const row of document.querySelectorAll("[data-status][data-search]")) {
    total += 1;
    const visible = statusMatches(row, wanted) && (!text || fold(row.dataset.search).includes(text));
    row.hidden = !visible;
    if (visible) shown += 1;
    const box = row.querySelector("input.pick");
    if (box && !visible) box.checked = false; // a hidden table is never archived unseen
  }
  if (count) count.textContent = count.dataset.template.replace("{k}", shown).replace("{n}", total);
}

if (tools) {
  search.addEventListener("input", apply);
  status.addEventListener("change", apply);
  apply();
}
