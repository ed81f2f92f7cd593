/**
 * The only module that touches `ipcMain`. Every invocation handler registered here:
 * 1. checks the sender frame is our top-level `app://sluice` page (not a subframe, not another origin);
 * 2. validates the payload with the contract's zod schema;
 * 3. returns a Result envelope; nothing is thrown across IPC.
 * (Pattern of microsoft/vscode `validatedIpcMain` and Signal-Desktop `wrapResult`.)
 */
import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import { INVOKE_CHANNELS, invokeIpcChannel, invokeSchemas, type InvokeChannel } from '../../app/common/ipc/contract';
import { err, type Result } from '../../app/common/ipc/result';
import { APP_ORIGIN } from '../protocol';

/** The invocation sink: the service's `invoke`. */
export type Invoke = (channel: InvokeChannel, payload: unknown) => Promise<Result<unknown>>;

/** True when `url` is a page of our app (`app://sluice/...`). */
export function isAppUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return new URL(url).origin === APP_ORIGIN || url.startsWith(`${APP_ORIGIN}/`);
  } catch {
    return false;
  }
}

/**
 * Whether an IPC event comes from our app's top-level frame: an `app://sluice` page that is its WebContents' main
 * frame. A sender without a main frame is refused, and a frame is compared by its whole identity, the renderer
 * process and the routing id (a routing id alone repeats across processes: Electron's WebFrameMain.fromId takes both).
 */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>): boolean {
  const frame = event.senderFrame;
  if (!frame || !isAppUrl(frame.url)) return false;
  // Only the main frame may call: a subframe (even same-origin) would be injected content.
  const main = event.sender?.mainFrame;
  if (!main) return false;
  return frame === main || (frame.processId === main.processId && frame.routingId === main.routingId);
}

/** Validates and forwards one invocation; exported for tests. */
export async function handleInvoke(
  channel: InvokeChannel,
  event: Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>,
  payload: unknown,
  invoke: Invoke,
): Promise<Result<unknown>> {
  if (!isTrustedSender(event)) return err('FORBIDDEN_SENDER', 'IPC from an untrusted frame was refused');
  const parsed = invokeSchemas[channel].safeParse(payload);
  if (!parsed.success) {
    return err(
      'INVALID_REQUEST',
      `Invalid ${channel} request: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`,
    );
  }
  try {
    return await invoke(channel, parsed.data);
  } catch (e) {
    return err('INTERNAL', e instanceof Error ? e.message : String(e));
  }
}

/**
 * Registers a handler for every contract channel (and nothing else); returns a function removing them.
 */
export function registerInvokeHandlers(invoke: Invoke): () => void {
  for (const channel of INVOKE_CHANNELS) {
    ipcMain.handle(invokeIpcChannel(channel), (event, payload: unknown) =>
      handleInvoke(channel, event, payload, invoke),
    );
  }
  return () => {
    for (const channel of INVOKE_CHANNELS) ipcMain.removeHandler(invokeIpcChannel(channel));
  };
}
