// The moderation screen's tabs, for moderators and higher (ui/tools/Tools.tsx shows them under
// the lockdown switch): the reports queue with the count of open reports as they come, the
// bans, the audit log and the filters.

import type { ComponentChildren } from "preact";
import type { Message } from "../../gen/svc/v1/types_pb";
import type { Api } from "../../lib/api";
import type { Commands } from "../../state/commands";
import type { Store } from "../../state/store";
import { lazyView } from "../lazy";
import type { ReportsCommands } from "./Reports";

// Each tab is a chunk of its own, loaded when it is first opened.
const Reports = lazyView("the reports", () => import("./Reports"), (m) => m.Reports);
const Bans = lazyView("the bans", () => import("./Bans"), (m) => m.Bans);
const AuditLog = lazyView("the audit log", () => import("./AuditLog"), (m) => m.AuditLog);
const Filters = lazyView("the filters", () => import("./Filters"), (m) => m.Filters);

export type ModerationCommands = ReportsCommands & Pick<Commands, "saveSettings">;

export function moderationTabs(store: Store, act: ModerationCommands, api: Api, onOpenMessage: (m: Message) => void): { name: string; badge?: number; body: () => ComponentChildren }[] {
  return [
    { name: "Reports", badge: store.state.openReports, body: () => <Reports store={store} act={act} api={api} onOpenMessage={onOpenMessage} /> },
    { name: "Bans", body: () => <Bans store={store} api={api} /> },
    { name: "Audit log", body: () => <AuditLog store={store} api={api} /> },
    { name: "Filters", body: () => <Filters store={store} api={api} /> },
  ];
}
