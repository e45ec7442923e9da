// Hearth's service worker, served at /app/sw.js for the client at /app/: it shows the Web Push
// notifications the server sends (payload: EXTENSIONS.md 7) and, on a click, focuses a tab of
// the client and takes it to the message, or opens one. Where the platform has app badges,
// the badge counts the notifications showing.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  if (event.data) {
    try {
      data = event.data.json();
    } catch {
      data = { body: event.data.text() };
    }
  }
  const scope = self.registration.scope;
  const options = {
    body: data.body || "",
    tag: data.tag || undefined,
    renotify: Boolean(data.tag),
    icon: scope + "icons/192.png",
    badge: scope + "icons/192.png",
    timestamp: Date.now(),
    data: {
      url: data.url || scope,
      type: data.type || "message",
      channel_id: data.channel_id || "",
      message_id: data.message_id || "",
      thread_root_id: data.thread_root_id || "",
      report_id: data.report_id || "",
    },
  };
  event.waitUntil(self.registration.showNotification(data.title || "Hearth", options).then(updateBadge));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || self.registration.scope;
  event.waitUntil(openClient(url).then(updateBadge));
});

self.addEventListener("notificationclose", (event) => event.waitUntil(updateBadge()));

// openClient focuses a tab of the client (the same page, whatever its #route) and takes it to url,
// or opens a new window when none is open.
async function openClient(url) {
  const target = new URL(url, self.registration.scope);
  const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const tab = tabs.find((c) => {
    const u = new URL(c.url);
    return u.origin === target.origin && u.pathname === target.pathname;
  });
  if (!tab) return self.clients.openWindow(target.href);
  const focused = await tab.focus();
  if (tab.url === target.href) return focused;
  try {
    return await focused.navigate(target.href);
  } catch {
    // A tab this worker does not control yet cannot be navigated: the client follows the
    // message instead.
    focused.postMessage({ type: "hearth-open", url: target.href });
    return focused;
  }
}

// updateBadge sets the app badge to the number of notifications showing.
async function updateBadge() {
  if (!("setAppBadge" in self.navigator)) return;
  const shown = await self.registration.getNotifications();
  try {
    if (shown.length > 0) await self.navigator.setAppBadge(shown.length);
    else await self.navigator.clearAppBadge();
  } catch {
    // No badge where the platform refuses it.
  }
}
