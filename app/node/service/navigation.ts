/**
 * The panes' navigation channels beyond listing (#26 items 3 and 5): a saved site's directory bookmarks
 * (stores/siteBookmarks.ts) and the remote find (service/remoteFind.ts).
 */
import type { Handlers, ServiceHub } from './hub';
import { RemoteFinds } from './remoteFind';
import type { SiteSessions } from './sessions';

/** `bookmarks.*`, `remote.find` and `remote.findCancel`. */
export function navigationHandlers(hub: ServiceHub, sessions: SiteSessions) {
  const finds = new RemoteFinds(sessions, (batch) => hub.emit('find.hits', batch));
  const bookmarks = hub.store.bookmarks;
  return {
    'bookmarks.list': async ({ siteId }) => bookmarks.list(siteId),
    'bookmarks.add': async ({ siteId, side, path }) => {
      bookmarks.add(siteId, side, path);
      return bookmarks.list(siteId);
    },
    'bookmarks.remove': async ({ siteId, side, path }) => {
      bookmarks.remove(siteId, side, path);
      return bookmarks.list(siteId);
    },
    'remote.find': async (req) => finds.find(req),
    'remote.findCancel': async ({ findId }) => finds.cancel(findId),
  } satisfies Partial<Handlers>;
}
