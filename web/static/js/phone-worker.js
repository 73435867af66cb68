// The service worker of the players' phones (web/static/js/phone.js): only there so that
// phones whose browser shows notifications through a worker (Android's Chrome) can show
// "Table 7, now". It caches nothing and handles no request.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
});
