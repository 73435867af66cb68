// The console's table list: redrawn from the server when any table changes (new table,
// new question for the referee, new alert, a call for a referee), the search and status filter kept.
import { connect } from "./live.js";
import { apply } from "./table_filter.js";

const section = document.getElementById("console-index");
let timer = null;

async function refresh() {
  const response = await fetch(window.location.pathname, { credentials: "same-origin" });
  if (!response.ok) return;
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  const fresh = page.getElementById("console-index");
  if (fresh) section.replaceChildren(...fresh.childNodes);
  apply(); // the search and status chosen stay
}

function soon() {
  clearTimeout(timer);
  timer = setTimeout(refresh, 300); // a burst of changes costs one fetch
}

// The snapshot too: a table created between the page's HTML and the stream's first
// connection (or during an outage too long to replay) arrives only in the snapshot.
connect({ onSnapshot: soon, onTable: soon, onTables: soon, onAssist: soon });
