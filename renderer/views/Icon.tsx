/** Small inline SVG icons (no icon font or emoji font needed), decorative: hidden from assistive tech. */
export type IconName =
  | 'folder'
  | 'file'
  | 'link'
  | 'server'
  | 'up'
  | 'down'
  | 'toRemote'
  | 'toLocal'
  | 'newFolder'
  | 'rename'
  | 'trash'
  | 'more';

const PATHS: Record<IconName, string> = {
  folder: 'M1.5 3.5h4l1.5 1.5h7.5v8h-13z',
  file: 'M3.5 1.5h6l3 3v10h-9z M9.5 1.5v3h3',
  link: 'M6 10l4-4 M7 4.5l1.5-1.5a2.5 2.5 0 0 1 3.5 3.5L10.5 8 M9 11.5L7.5 13a2.5 2.5 0 0 1-3.5-3.5L5.5 8',
  server: 'M2 2.5h12v4.5h-12z M2 9h12v4.5h-12z M4 4.75h1 M4 11.25h1',
  up: 'M8 13V3 M4 7l4-4 4 4',
  down: 'M8 3v10 M4 9l4 4 4-4',
  toRemote: 'M2 8h11 M9 4l4 4-4 4',
  toLocal: 'M14 8H3 M7 4L3 8l4 4',
  newFolder: 'M1.5 3.5h4l1.5 1.5h7.5v8h-13z M8 7v4 M6 9h4',
  rename: 'M2.5 13.5l1-3.5 7.5-7.5 2.5 2.5-7.5 7.5z M9.5 4l2.5 2.5',
  trash: 'M2.5 4h11 M6 4V2.5h4V4 M4 4l.8 9.5h6.4L12 4 M6.5 6.5v5 M9.5 6.5v5',
  more: 'M3 8h.5 M8 8h.5 M13 8h.5',
};

/** One 16×16 stroked icon in the current text colour. */
export function Icon({ name, className }: { name: IconName; className?: string }) {
  return (
    <svg
      className={`icon icon-${name} ${className ?? ''}`}
      width="14"
      height="14"
      viewBox="0 0 16 16"
      aria-hidden="true"
      focusable="false"
    >
      <path
        d={PATHS[name]}
        fill={name === 'folder' ? 'currentColor' : 'none'}
        fillOpacity={name === 'folder' ? 0.25 : undefined}
        stroke="currentColor"
        strokeWidth="1.2"
        strokeLinejoin="round"
        strokeLinecap="round"
      />
    </svg>
  );
}
