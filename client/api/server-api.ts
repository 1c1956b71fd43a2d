// The app-facing server calls, typed and zod-checked: one method per route a device calls, each through the route's
// contract in the wire (client/wire/routes/), so no path is spelled here. The methods live by route module in calls/
// (calls/<module>.ts beside client/wire/routes/<module>.ts), each group a class over RouteCaller; ServerApi is their
// sum, one class with every group's methods (the mixin pattern of the TypeScript handbook: its interface is the
// groups' intersection, and mixIn copies their methods onto its prototype). Every method goes through the one
// abstract `request`, which ChatClient implements: routing every call through the bridge relay, or reacting to a
// revoked token, happens in that one place.
import { RouteCaller } from "./route-caller.ts";
import { mixIn } from "./mix-in.ts";
import { ActionCalls } from "./calls/actions.ts";
import { AttachmentCalls } from "./calls/assets.ts";
import { SelfDeviceCalls } from "./calls/devices-self.ts";
import { DocumentCalls } from "./calls/documents.ts";
import { E2eCalls } from "./calls/e2e.ts";
import { EventCalls } from "./calls/events.ts";
import { ExportCalls } from "./calls/export.ts";
import { InteractionCalls } from "./calls/interactions.ts";
import { McpCalls } from "./calls/mcp.ts";
import { PairingCalls } from "./calls/pairing.ts";
import { PeopleCalls } from "./calls/people.ts";
import { PersonalCalls } from "./calls/personal.ts";
import { ProviderCalls } from "./calls/providers.ts";
import { PushCalls } from "./calls/push.ts";
import { RequestCalls } from "./calls/requests.ts";
import { SearchCalls } from "./calls/search.ts";
import { SessionCalls } from "./calls/sessions.ts";
import { SettingsCalls } from "./calls/settings.ts";
import { ShareLinkCalls } from "./calls/share-links.ts";
import { ShareCalls } from "./calls/shares.ts";
import { SpeechCalls } from "./calls/speech.ts";
import { TurnCalls } from "./calls/turns.ts";

const GROUPS = [
  ActionCalls,
  AttachmentCalls,
  SelfDeviceCalls,
  DocumentCalls,
  E2eCalls,
  EventCalls,
  ExportCalls,
  InteractionCalls,
  McpCalls,
  PairingCalls,
  PeopleCalls,
  PersonalCalls,
  ProviderCalls,
  PushCalls,
  RequestCalls,
  SearchCalls,
  SessionCalls,
  SettingsCalls,
  ShareLinkCalls,
  ShareCalls,
  SpeechCalls,
  TurnCalls,
];

export abstract class ServerApi extends RouteCaller {}

/** One type of all the groups' methods (a union of the groups turned into their intersection). */
type AllOf<U> = (U extends unknown ? (group: U) => void : never) extends (group: infer I) => void ? I : never;

// What mixIn puts on the prototype, said to the type checker: every method of every group in GROUPS.
export interface ServerApi extends AllOf<InstanceType<(typeof GROUPS)[number]>> {}

mixIn(ServerApi, GROUPS);
