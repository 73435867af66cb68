// Tournament pages: stay current on the live stream every page shares (GET /api/stream,
// live.js `connect`), and speak the calls on the big screen. The page is server-rendered;
// a `tournament` event names a tournament and its count of log entries, and the page
// reloads when its own tournament has entries it does not show. After a (re)connection
// the stream starts with a snapshot, which says nothing about tournaments: the page then
// asks the tournament's entry count once. Calls ("Match 12: Ana, Ben → station row2") are
// spoken once each, in the page's language, when the visitor switched the voice on
// (browsers need that click).
import { getJSON, t } from "./common.js";
import { connect, setupSpeech, speak } from "./live.js";
import { showAssist } from "./assist.js";

const root = document.getElementById("tour-live");
const printButton = document.getElementById("print-sheets");
if (printButton) printButton.addEventListener("click", () => window.print());

function callText(call) {
  return t("tour.call", { n: call.number, players: call.players.join(", "), station: call.station });
}

if (root) {
  const tid = root.dataset.tournament;
  const entries = Number(root.dataset.entries);
  const calls = JSON.parse(root.dataset.calls || "[]");
  const key = `trigono.tour.spoken.${tid}`;
  const button = document.getElementById("speak-toggle");
  if (button) {
    setupSpeech(button);
    const last = Number(sessionStorage.getItem(key) ?? "NaN");
    // A first visit does not read out the history: only calls made from now on.
    if (!Number.isNaN(last)) for (const call of calls) if (call.at > last) speak(callText(call));
    sessionStorage.setItem(key, String(calls.length ? calls[calls.length - 1].at : 0));
  }
  let reloading = false;
  const follow = (count) => {
    if (!reloading && count !== entries) {
      reloading = true;
      window.location.reload();
    }
  };
  connect({
    onSnapshot: async (data) => {
      showAssist(data.assist); // the big screen's band of calls for a referee (absent elsewhere)
      try {
        follow((await getJSON(root.dataset.api)).entries);
      } catch (err) {
        // Offline for a moment: the stream reconnects and sends a snapshot again.
      }
    },
    onTournament: (change) => { if (change.id === tid) follow(change.entries); },
    onAssist: (list) => showAssist(list),
  });
}
