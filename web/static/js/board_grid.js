// One focusable game board (the WAI-ARIA grid pattern, with a roving tabindex): the board
// is a single Tab stop, the arrow keys move between its cells, Home/End go to the ends of
// a row (with Ctrl, of the board), Enter or Space act on the cell (its click). The cells'
// rows come from where the renderer drew them (the hub's drawing, scaled): cells whose
// centres are within `rowTolerance` of each other vertically share a row, so hexagons
// (Trike) and triangles (Triominos) get rows as naturally as Triolet's squares.
// Which cell holds the Tab stop is UI state kept across redraws (the last one focused).

let current = null; // data-cell of the cell holding the Tab stop

function rowsOf(cells, tolerance) {
  const sorted = [...cells].sort((a, b) => a.y - b.y || a.x - b.x);
  const rows = [];
  for (const cell of sorted) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(cell.y - row.y) <= tolerance) row.cells.push(cell);
    else rows.push({ y: cell.y, cells: [cell] });
  }
  for (const row of rows) row.cells.sort((a, b) => a.x - b.x);
  return rows;
}

function nearestInRow(row, x) {
  let best = row.cells[0];
  for (const cell of row.cells) if (Math.abs(cell.x - x) < Math.abs(best.x - x)) best = cell;
  return best;
}

// cells: [{node, x, y}] — node a <g> with data-cell, aria-label and its own click; x, y the
// drawn centre. prefer: the data-cell to give the Tab stop when none was focused yet.
// Returns the grid element (a <g role="grid">) to put in the board's <svg>.
export function boardGrid(el, { label, cells, rowTolerance, prefer }) {
  const rows = rowsOf(cells, rowTolerance);
  const where = new Map();
  rows.forEach((row, r) => row.cells.forEach((cell, c) => where.set(cell.node, [r, c])));
  const names = new Set(cells.map((cell) => cell.node.dataset.cell));
  const stop = names.has(current) ? current : names.has(prefer) ? prefer : rows.length ? rows[0].cells[0].node.dataset.cell : null;
  for (const cell of cells) {
    cell.node.setAttribute("role", "gridcell");
    cell.node.setAttribute("tabindex", cell.node.dataset.cell === stop ? "0" : "-1");
  }
  const move = (node) => {
    for (const cell of cells) cell.node.setAttribute("tabindex", cell.node === node ? "0" : "-1");
    current = node.dataset.cell;
    node.focus();
  };
  const onkeydown = (ev) => {
    const from = ev.target.closest && ev.target.closest("[role=gridcell]");
    if (!from || !where.has(from)) return;
    const [r, c] = where.get(from);
    const row = rows[r];
    const x = row.cells[c].x;
    let to = null;
    if (ev.key === "ArrowLeft") to = row.cells[c - 1];
    else if (ev.key === "ArrowRight") to = row.cells[c + 1];
    else if (ev.key === "ArrowUp" && r > 0) to = nearestInRow(rows[r - 1], x);
    else if (ev.key === "ArrowDown" && r < rows.length - 1) to = nearestInRow(rows[r + 1], x);
    else if (ev.key === "Home") to = ev.ctrlKey ? rows[0].cells[0] : row.cells[0];
    else if (ev.key === "End") to = ev.ctrlKey ? rows[rows.length - 1].cells.at(-1) : row.cells.at(-1);
    else if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      from.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      return;
    } else return;
    ev.preventDefault(); // the page does not scroll under the arrow keys
    if (to) move(to.node);
  };
  const onfocusin = (ev) => {
    const cell = ev.target.closest && ev.target.closest("[role=gridcell]");
    if (cell && where.has(cell) && cell.getAttribute("tabindex") !== "0") {
      for (const other of cells) other.node.setAttribute("tabindex", other.node === cell ? "0" : "-1");
    }
    if (cell) current = cell.dataset.cell;
  };
  return el("g", { role: "grid", "aria-label": label, class: "board-grid", onkeydown, onfocusin },
    rows.map((row) => el("g", { role: "row" }, row.cells.map((cell) => cell.node))));
}
