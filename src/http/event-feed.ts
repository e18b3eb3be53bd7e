/** The events feed's types live with the drafts (src/drafts/feed-event.ts), so the desk and the API share them one way. */
export type { EventFeed, FeedEvent, FeedEventKind, FeedPage } from "../drafts/feed-event.js";
