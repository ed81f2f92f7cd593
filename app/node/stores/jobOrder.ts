/**
 * Queue order: jobs run and list by `priority` (higher first), then `position` (lower first), then insertion
 * (`seq`). Positions are integers spaced {@link POSITION_STEP} apart when added, so a move between two jobs takes
 * the midpoint and touches one row; when two neighbours leave no room, that priority's positions are renumbered
 * (one statement, rare).
 */
import { SluiceError } from '../errors';
import type { QueueDb } from './queueDb';

/** The gap between positions of jobs added one after another. */
export const POSITION_STEP = 1024;

interface Place {
  seq: number;
  priority: number;
  position: number;
}

function placeOf(q: QueueDb, id: string): Place {
  const p = q.stmt('SELECT seq, priority, position FROM jobs WHERE id = ?').get(id) as Place | undefined;
  if (!p) throw new SluiceError('NOT_FOUND', `No queued job ${id}`);
  return p;
}

/** The position after every job's (the next added job's position). Call inside a write transaction. */
export function nextPosition(q: QueueDb): number {
  const row = q.stmt('SELECT MAX(position) AS p FROM jobs').get() as { p: number | null };
  return (row.p ?? 0) + POSITION_STEP;
}

/**
 * Moves a job to the top of the queue: the highest priority in use, before every job of it.
 * @throws SluiceError NOT_FOUND
 */
export function moveToTop(q: QueueDb, id: string): void {
  q.write(() => {
    placeOf(q, id);
    const { p } = q.stmt('SELECT MAX(priority) AS p FROM jobs').get() as { p: number };
    const { m } = q.stmt('SELECT MIN(position) AS m FROM jobs WHERE priority = ? AND id != ?').get(p, id) as {
      m: number | null;
    };
    if (m === null) q.stmt('UPDATE jobs SET priority = ? WHERE id = ?').run(p, id);
    else q.stmt('UPDATE jobs SET priority = ?, position = ? WHERE id = ?').run(p, m - POSITION_STEP, id);
  });
}

/**
 * Moves a job to the bottom of the queue: the lowest priority in use, after every job of it.
 * @throws SluiceError NOT_FOUND
 */
export function moveToBottom(q: QueueDb, id: string): void {
  q.write(() => {
    placeOf(q, id);
    const { p } = q.stmt('SELECT MIN(priority) AS p FROM jobs').get() as { p: number };
    const { m } = q.stmt('SELECT MAX(position) AS m FROM jobs WHERE priority = ? AND id != ?').get(p, id) as {
      m: number | null;
    };
    q.stmt('UPDATE jobs SET priority = ?, position = ? WHERE id = ?').run(p, (m ?? 0) + POSITION_STEP, id);
  });
}

/** Renumbers the positions of one priority to 1, 2, … × {@link POSITION_STEP}, keeping their order. */
function renumber(q: QueueDb, priority: number): void {
  q.stmt(
    `UPDATE jobs SET position = r.n * ${POSITION_STEP}
          FROM (SELECT seq, ROW_NUMBER() OVER (ORDER BY position, seq) AS n FROM jobs WHERE priority = ?) AS r
          WHERE jobs.seq = r.seq`,
  ).run(priority);
}

/** The job just before `b` in b's priority (skipping `id`), or undefined when b is first. */
function before(q: QueueDb, b: Place, id: string): Place | undefined {
  return q
    .stmt(
      `SELECT seq, priority, position FROM jobs WHERE priority = @priority AND (position, seq) < (@position, @seq)
                 AND id != @id ORDER BY position DESC, seq DESC LIMIT 1`,
    )
    .get({ ...b, id }) as Place | undefined;
}

/**
 * Moves job `id` just before job `beforeId` (taking its priority).
 * @throws SluiceError NOT_FOUND when either job does not exist
 */
export function moveBefore(q: QueueDb, id: string, beforeId: string): void {
  if (id === beforeId) return;
  q.write(() => {
    placeOf(q, id);
    let b = placeOf(q, beforeId);
    let prev = before(q, b, id);
    if (prev && b.position - prev.position < 2) {
      renumber(q, b.priority);
      b = placeOf(q, beforeId);
      prev = before(q, b, id);
    }
    const position = prev ? Math.floor((prev.position + b.position) / 2) : b.position - POSITION_STEP;
    q.stmt('UPDATE jobs SET priority = ?, position = ? WHERE id = ?').run(b.priority, position, id);
  });
}

/**
 * Gives a job another priority; it goes after the jobs already there.
 * @throws SluiceError NOT_FOUND; INVALID_REQUEST for a priority that is not a safe integer
 */
export function setPriority(q: QueueDb, id: string, priority: number): void {
  if (!Number.isSafeInteger(priority)) throw new SluiceError('INVALID_REQUEST', `Not a priority: ${priority}`);
  q.write(() => {
    const p = placeOf(q, id);
    if (p.priority === priority) return;
    q.stmt('UPDATE jobs SET priority = ?, position = ? WHERE id = ?').run(priority, nextPosition(q), id);
  });
}
