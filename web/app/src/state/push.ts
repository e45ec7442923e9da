// This device's Web Push subscription to the server (EXTENSIONS.md 7): notifications that reach
// the person with no tab open. Turned on by the person (Commands.enablePush, from the banner
// that asks, a channel's menu or the notification settings); kept as the browser has it at each
// start of a session (sync: a subscription the browser changed is added again, one the person
// removed from another device stays off here); removed at sign-out (forget).
//
// Device state, not the community's: it lives here, like the outbox, and emits "push".

import { Code } from "@connectrpc/connect";
import { codeOf, errorText, type Api } from "../lib/api";
import type { Emitter } from "../lib/emitter";
import { deviceName, fromBase64url, keyOf, pushSupported, sameKey, serviceWorker } from "../lib/push";
import { getPushRecord, setPushRecord } from "../lib/storage";
import type { Topic } from "./topics";

/**
 * unsupported: this browser (or a page that is not a secure context) has no Web Push;
 * blocked: the person refused the permission; ask: they were never asked;
 * off: allowed, but this device is not subscribed (turned off here or removed elsewhere);
 * on: the server has this device's subscription.
 */
export type PushStatus = "unsupported" | "blocked" | "ask" | "off" | "on";

export type PushState = {
  readonly status: PushStatus;
  /** A change is on its way. */
  readonly busy: boolean;
  /** Why the last change failed, or "". */
  readonly error: string;
  /** The server's id of this device's subscription (status on), else "". */
  readonly id: string;
};

/** What the device needs of the session. */
export type PushHost = {
  base: string;
  api: Api;
  em: Emitter<Topic>;
  /** The signed-in member's id (the subscription is theirs). */
  me(): string | undefined;
};

export class PushDevice {
  state: PushState = { status: pushSupported() ? "ask" : "unsupported", busy: false, error: "", id: "" };

  constructor(private readonly host: PushHost) {}

  private set(change: Partial<PushState>): void {
    this.state = { ...this.state, ...change };
    this.host.em.emit("push");
  }

  private get key(): [string, string] | undefined {
    const me = this.host.me();
    return me ? [this.host.base, me] : undefined;
  }

  /**
   * At the start of a session: registers the service worker (which also makes the client
   * installable), and with the permission given, makes sure the server has this device's
   * subscription as the browser has it now.
   */
  async sync(): Promise<void> {
    if (!pushSupported()) return this.set({ status: "unsupported" });
    const reg = await serviceWorker();
    if (!reg) return this.set({ status: "unsupported" });
    const permission = Notification.permission;
    if (permission !== "granted") return this.set({ status: permission === "denied" ? "blocked" : "ask", id: "" });
    const key = this.key;
    if (!key) return;
    const rec = getPushRecord(...key);
    if (rec && "off" in rec) return this.set({ status: "off", id: "" });
    try {
      const sub = await reg.pushManager.getSubscription();
      if (rec && sub && sub.endpoint === rec.endpoint) {
        // The same subscription as last time: the server still has it, unless the person
        // removed this device from another one (or the push service told the server it is
        // gone): then notifications stay off here until they turn them on again.
        const list = await this.host.api.notify.listPushSubscriptions({});
        if (list.subscriptions.some((s) => s.id === rec.id)) return this.set({ status: "on", id: rec.id, error: "" });
        setPushRecord(...key, { off: true });
        return this.set({ status: "off", id: "" });
      }
      // Never subscribed here, or the browser changed the subscription: (again) to the server.
      await this.subscribe(reg, rec?.id ?? "");
    } catch (e) {
      this.set({ status: "off", id: "", error: errorText(e) });
    }
  }

  /** Asks for the permission if it was never given, subscribes and tells the server. */
  async enable(): Promise<void> {
    if (!pushSupported() || this.state.busy) return;
    this.set({ busy: true, error: "" });
    try {
      // Asked at once, in the click that asked for it (a browser shows the question only then).
      const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
      if (permission !== "granted") return this.set({ status: permission === "denied" ? "blocked" : "ask" });
      const reg = await serviceWorker();
      if (!reg) return this.set({ status: "unsupported" });
      const key = this.key;
      const rec = key && getPushRecord(...key);
      await this.subscribe(reg, rec && "id" in rec ? rec.id : "");
    } catch (e) {
      this.set({ status: Notification.permission === "granted" ? "off" : this.state.status, error: errorText(e) });
    } finally {
      this.set({ busy: false });
    }
  }

  /** Turns notifications off on this device: the server forgets it, the browser unsubscribes. */
  async disable(): Promise<void> {
    if (this.state.busy) return;
    this.set({ busy: true, error: "" });
    try {
      await this.remove();
      const key = this.key;
      if (key) setPushRecord(...key, { off: true });
      this.set({ status: Notification.permission === "granted" ? "off" : "ask", id: "" });
    } catch (e) {
      this.set({ error: errorText(e) });
    } finally {
      this.set({ busy: false });
    }
  }

  /**
   * At sign-out, while the token still works: the server forgets this device and the browser
   * unsubscribes, so that nothing of the person reaches whoever uses the browser next. Bounded
   * in time: a server that does not answer does not hold up the sign-out.
   */
  async forget(): Promise<void> {
    const key = this.key;
    await Promise.race([this.remove().catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
    if (key) setPushRecord(...key, undefined);
  }

  /** Removes this device's subscription from the server (when it has one) and the browser. */
  private async remove(): Promise<void> {
    const key = this.key;
    const rec = key && getPushRecord(...key);
    if (rec && "id" in rec) {
      try {
        await this.host.api.notify.removePushSubscription({ id: rec.id });
      } catch (e) {
        // Gone already (removed elsewhere, or by the server): what was asked is so.
        if (codeOf(e) !== Code.NotFound) throw e;
      }
    }
    const reg = pushSupported() ? await navigator.serviceWorker.getRegistration() : undefined;
    const sub = await reg?.pushManager.getSubscription();
    await sub?.unsubscribe();
  }

  /** Subscribes with the server's key and adds the subscription; oldId is the one it replaces. */
  private async subscribe(reg: ServiceWorkerRegistration, oldId: string): Promise<void> {
    const { vapidPublicKey } = await this.host.api.notify.getPushConfig({});
    const serverKey = fromBase64url(vapidPublicKey);
    let sub = await reg.pushManager.getSubscription();
    if (sub && !sameKey(sub, serverKey)) {
      // Made for another server's key (a subscription holds one): this server's replaces it.
      await sub.unsubscribe();
      sub = null;
    }
    if (!sub) {
      try {
        sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: serverKey });
      } catch (e) {
        throw new Error(`the browser's push service refused (${errorText(e)})`);
      }
    }
    const res = await this.host.api.notify.addPushSubscription({
      endpoint: sub.endpoint,
      p256dh: keyOf(sub, "p256dh"),
      auth: keyOf(sub, "auth"),
      deviceName: deviceName(navigator.userAgent),
    });
    if (oldId && oldId !== res.id) await this.host.api.notify.removePushSubscription({ id: oldId }).catch(() => undefined);
    const key = this.key;
    if (key) setPushRecord(...key, { id: res.id, endpoint: sub.endpoint });
    this.set({ status: "on", id: res.id, error: "" });
  }
}
