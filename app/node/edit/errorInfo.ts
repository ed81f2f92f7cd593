/** An error as the edit desk reports it: a code and a message, from a SluiceError, a job's error or anything thrown. */
export function errorInfoOf(e: unknown): { code: string; message: string } {
  if (e && typeof e === 'object' && 'code' in e && 'message' in e) {
    const { code, message } = e as { code: unknown; message: unknown };
    if (typeof code === 'string' && typeof message === 'string') return { code, message };
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

/** The error a job that did not end done stands for: its own, else "cancelled" (`what`: "Upload of /srv/a"). */
export function jobError(job: { state: string; error?: { code: string; message: string } }, what: string): Error {
  const info = job.error ?? { code: 'ABORTED', message: `${what} was ${job.state}` };
  return Object.assign(new Error(info.message), { code: info.code });
}
