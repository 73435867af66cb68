// A season's pages: stay current on the live stream every page shares (GET /api/stream,
// live.js `connect`). The page is server-rendered and the season re-ranked by the hub;
// any tournament's new entries (or a person's, a merge: announced the same way) may move
// it, so the page reloads — at most once every RELOAD_MS, since a busy day writes an
// entry every few seconds. After a reconnection the stream starts with a snapshot, which
// says nothing about tournaments: the page reloads then too (it may have missed some).
import { connect } from "./live.js";

const RELOAD_MS = 10000;
const root = document.getElementById("season-live");

if (root) {
  let snapshots = 0;
  let due = null;
  const reloadSoon = () => {
    if (due === null) due = setTimeout(() => window.location.reload(), RELOAD_MS);
  };
  connect({
    onSnapshot: () => { snapshots += 1; if (snapshots > 1) reloadSoon(); },
    onTournament: reloadSoon,
  });
}
