// Light or dark: the device's choice (prefers-color-scheme) unless this browser picked one
// with the top bar's button (kept in localStorage). A classic script in <head>, run before
// the page paints, so a dark page never flashes light. Pages that set their own theme
// (the big screen, the overlay) are left alone.
(function () {
  const KEY = "trigono.theme";
  const root = document.documentElement;
  if (root.dataset.theme !== "auto") return;
  const dark = window.matchMedia("(prefers-color-scheme: dark)");
  const stored = () => {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  };
  const apply = () => {
    const choice = stored();
    root.dataset.theme = choice === "dark" || choice === "light" ? choice : "auto";
  };
  const isDark = () => root.dataset.theme === "dark" || (root.dataset.theme === "auto" && dark.matches);
  apply();
  document.addEventListener("DOMContentLoaded", () => {
    const button = document.getElementById("theme-toggle");
    if (!button) return;
    const refresh = () => button.setAttribute("aria-pressed", isDark() ? "true" : "false");
    button.hidden = false;
    button.addEventListener("click", () => {
      try { localStorage.setItem(KEY, isDark() ? "light" : "dark"); } catch (e) { /* private mode: this page only */ }
      apply();
      if (!stored()) root.dataset.theme = isDark() ? "light" : "dark";
      refresh();
    });
    dark.addEventListener("change", refresh);
    refresh();
  });
})();
