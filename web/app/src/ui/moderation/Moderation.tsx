// The moderation screen's tabs, for moderators and higher (ui/tools/Tools.tsx shows them under
// the lockdown switch): the reports queue with the count of open reports as they come, the
// bans, the audit log and the filters.

import type { ComponentChildren } from "preact";
import type { Message } from "../../gen/svc/v1/types_pb";
import type { Api } from "../../lib/api";
import type { Commands } from "../../state/commands";
import type { Store } from "../../state/store";
import { AuditLog } from "./AuditLog";
import { Bans } from "./Bans";
import { Filters } from "./Filters";
import { Reports, type ReportsCommands } from "./Reports";

export type ModerationCommands = ReportsCommands & Pick<Commands, "saveSettings">;

export function moderationTabs(store: Store, act: ModerationCommands, api: Api, onOpenMessage: (m: Message) => void): { name: string; badge?: number; body: () => ComponentChildren }[] {
  return [
    { name: "Reports", badge: store.state.openReports, body: () => <Reports store={store} act={act} api={api} onOpenMessage={onOpenMessage} /> },
    { name: "Bans", body: () => <Bans store={store} api={api} /> },
    { name: "Audit log", body: () => <AuditLog store={store} api={api} /> },
    { name: "Filters", body: () => <Filters store={store} api={api} /> },
  ];
}
