/**
 * The app window's layout (issue #23 item 21): how tall the queue/graph/log area under the file panes is, how wide the
 * graph and log column is, how the column is shared between the graph and the log, and which of them are folded.
 * Kept as the `layout` setting (sluice.db, `settings.set`), so it survives a restart. Pure; unit-tested.
 */

/** Sizes in CSS pixels. */
export interface UiLayout {
  /** Height of the area under the file panes (queue, graph, log). */
  bottomHeight: number;
  /** Width of the graph and log column beside the queue. */
  sideWidth: number;
  /** The graph's share of that column's height when both are open, 0.1–0.9. */
  graphShare: number;
  graphCollapsed: boolean;
  logCollapsed: boolean;
}

/** The file panes first: about two thirds of a 900-pixel window's height go to them. */
export const DEFAULT_LAYOUT: UiLayout = {
  bottomHeight: 260,
  sideWidth: 380,
  graphShare: 0.6,
  graphCollapsed: false,
  logCollapsed: false,
};

/** What the file panes and the queue keep at least, whatever the saved sizes (px). */
export const LAYOUT_LIMITS = { panesMin: 200, bottomMin: 110, queueMin: 320, sideMin: 220, splitter: 6 } as const;

/**
 * The saved layout fitted into the workspace as it is now (a smaller window than the one it was saved in): the panes
 * keep at least `panesMin`, the bottom area at least `bottomMin`, the queue at least `queueMin` beside a column of at
 * least `sideMin`. The saved value itself is not changed (a bigger window gets it back).
 * @param workspace the workspace's size in px (0 while unknown: the layout unchanged)
 */
export function fitLayout(layout: UiLayout, workspace: { width: number; height: number }): UiLayout {
  const L = LAYOUT_LIMITS;
  const clamp = (v: number, lo: number, hi: number) => Math.round(Math.max(lo, Math.min(hi, v)));
  const bottomHeight =
    workspace.height > 0
      ? clamp(layout.bottomHeight, L.bottomMin, Math.max(L.bottomMin, workspace.height - L.panesMin - L.splitter))
      : layout.bottomHeight;
  const sideWidth =
    workspace.width > 0
      ? clamp(layout.sideWidth, L.sideMin, Math.max(L.sideMin, workspace.width - L.queueMin - L.splitter))
      : layout.sideWidth;
  return { ...layout, bottomHeight, sideWidth, graphShare: Math.max(0.1, Math.min(0.9, layout.graphShare)) };
}
