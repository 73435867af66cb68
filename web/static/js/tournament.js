// Tournament pages: stay current without a full-page timer, and speak the calls on the
// big screen. The page is server-rendered; every few seconds the tournament's JSON is
// fetched and the page reloads only when the tournament has new log entries. Calls
// ("Match 12: Ana, Ben → station row2") are spoken once each, in the page's language,
// when the visitor switched the voice on (browsers need that click).
import { getJSON, t } from "./common.js";
import { setupSpeech, speak } from "./live.js";

const POLL_MS = 3000;
const root = document.getElementById("tour-live");
const printButton = document.getElementById("print-sheets");
if (printButton) printButton.addEventListener("click", () => window.print());

function callText(call) {
  return t("tour.call", { n: call.number, players: call.players.join(", "), station: call.station });
}

if (root) {
  const entries = Number(root.dataset.entries);
  const calls = JSON.parse(root.dataset.calls || "[]");
  const key = `trigono.tour.spoken.${root.dataset.tournament}`;
  const button = document.getElementById("speak-toggle");
  if (button) {
    setupSpeech(button);
    const last = Number(sessionStorage.getItem(key) ?? "NaN");
    // A first visit does not read out the history: only calls made from now on.
    if (!Number.isNaN(last)) for (const call of calls) if (call.at > last) speak(callText(call));
    sessionStorage.setItem(key, String(calls.length ? calls[calls.length - 1].at : 0));
  }
  let busy = false;
  setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const view = await getJSON(root.dataset.api);
      if (view.entries !== entries) window.location.reload();
    } catch (err) {
      // Offline for a moment: try again at the next tick.
    } finally {
      busy = false;
    }
  }, POLL_MS);
}
