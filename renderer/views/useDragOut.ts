/**
 * The remote pane's rows dragged out of the window (#26 item 7): while a drag of its rows is on, the drag leaving the
 * window (a `dragleave` with no element it goes to, at or past the window's edge) asks for the OS drag once
 * (`dragOut`: the service fetches the files, then Electron's startDrag gives them to the desktop or file manager). A
 * drop inside the window or the drag's end forgets it.
 */
import { useEffect, useRef } from 'react';

/** Whether a `dragleave` left the window (Chromium gives 0, 0 or the point past the edge, and no related target). */
export function leftWindow(e: Pick<DragEvent, 'clientX' | 'clientY' | 'relatedTarget'>, w: number, h: number): boolean {
  return e.relatedTarget === null && (e.clientX <= 0 || e.clientY <= 0 || e.clientX >= w || e.clientY >= h);
}

/** `started(paths)` at a drag's start; `dragOut(paths)` once when that drag leaves the window. */
export function useDragOut(dragOut?: (paths: string[]) => void) {
  const active = useRef<string[] | null>(null);
  useEffect(() => {
    if (!dragOut) return;
    const leave = (e: DragEvent) => {
      const paths = active.current;
      if (!paths || !leftWindow(e, window.innerWidth, window.innerHeight)) return;
      active.current = null;
      dragOut(paths);
    };
    const end = () => {
      active.current = null;
    };
    document.addEventListener('dragleave', leave);
    document.addEventListener('dragend', end);
    document.addEventListener('drop', end);
    return () => {
      document.removeEventListener('dragleave', leave);
      document.removeEventListener('dragend', end);
      document.removeEventListener('drop', end);
    };
  }, [dragOut]);
  return {
    started: (paths: string[]) => {
      if (dragOut) active.current = paths;
    },
  };
}
