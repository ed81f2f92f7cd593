/**
 * What a sandboxed preload gets from `require('electron')`, typed without Node. Electron's own electron.d.ts
 * starts with `/// <reference types="node" />`, which would let `process.env`, `Buffer` or `node:fs` type-check in
 * the preload although a sandboxed preload has none of them (electronjs.org/docs/latest/tutorial/sandbox).
 * main/preload/tsconfig.json maps `electron` to this file; main/test/preload.test.ts checks at compile time that
 * Electron's real objects fit these shapes. Add only members the sandboxed renderer has, as Electron declares them.
 */

/** Electron's `IpcRendererEvent` (no Node in it). */
export interface IpcRendererEvent {
  preventDefault(): void;
  readonly defaultPrevented: boolean;
  ports: MessagePort[];
  sender: IpcRenderer;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- Electron's own signatures, so that the real objects fit */
/** The part of Electron's `IpcRenderer` the preload uses. */
export interface IpcRenderer {
  invoke(channel: string, ...args: any[]): Promise<any>;
  on(channel: string, listener: (event: IpcRendererEvent, ...args: any[]) => void): this;
  removeListener(channel: string, listener: (event: IpcRendererEvent, ...args: any[]) => void): this;
}

/** Electron's `ContextBridge`, main-world half. */
export interface ContextBridge {
  exposeInMainWorld(apiKey: string, api: any): void;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Electron's `WebUtils`. */
export interface WebUtils {
  getPathForFile(file: File): string;
}

export declare const contextBridge: ContextBridge;
export declare const ipcRenderer: IpcRenderer;
export declare const webUtils: WebUtils;
