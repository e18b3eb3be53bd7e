import {
  getDraft,
  getEvents,
  getStatus,
  healthz,
  listDrafts,
  postDraft,
  postOwnerSwitch,
  type HandlerDeps,
  type RequestContext,
} from "./handlers.js";
import type { JsonReply } from "./respond.js";

/** One method on one route: whether it needs the bearer token, and what answers it. */
export interface MethodHandler {
  readonly auth: boolean;
  readonly handle: (ctx: RequestContext) => JsonReply | null | Promise<JsonReply | null>;
}

/** A path and the methods it answers; the table below is the whole API surface. */
export interface Route {
  /** Matches the path; the first capture group, if any, is the draft id. */
  readonly path: RegExp;
  readonly methods: Readonly<Record<string, MethodHandler>>;
}

/** The contract's routes, bound to their dependencies. Anything not listed is a 404. */
export function apiRoutes(deps: HandlerDeps): readonly Route[] {
  return [
    { path: /^\/healthz$/, methods: { GET: { auth: false, handle: () => healthz(deps) } } },
    {
      path: /^\/drafts$/,
      methods: {
        POST: { auth: true, handle: (ctx) => postDraft(deps, ctx) },
        GET: { auth: true, handle: (ctx) => listDrafts(deps, ctx) },
      },
    },
    { path: /^\/drafts\/([^/]+)$/, methods: { GET: { auth: true, handle: (ctx) => getDraft(deps, ctx) } } },
    { path: /^\/events$/, methods: { GET: { auth: true, handle: (ctx) => getEvents(deps, ctx) } } },
    { path: /^\/status$/, methods: { GET: { auth: true, handle: () => getStatus(deps) } } },
    { path: /^\/owner-switch$/, methods: { POST: { auth: true, handle: (ctx) => postOwnerSwitch(deps, ctx) } } },
  ];
}

/** The route for a path and the draft id captured from it, or undefined (404). */
export function matchRoute(routes: readonly Route[], pathname: string): { route: Route; draftId?: string } | undefined {
  for (const route of routes) {
    const m = route.path.exec(pathname);
    if (!m) continue;
    if (m[1] === undefined) return { route };
    try {
      return { route, draftId: decodeURIComponent(m[1]) };
    } catch {
      return undefined; // a malformed %-escape names no draft
    }
  }
  return undefined;
}
