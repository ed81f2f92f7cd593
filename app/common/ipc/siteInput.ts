/**
 * The validator of a site as the UI, the CLI and an import save it (`sites.save`): names, host, port, user, how to log
 * in, folders, the pool's bounds (app/common/transferLimits.ts), algorithm lists and jump hosts.
 */
import { z } from 'zod';
import { parseJumpHosts } from '../jumpHosts';
import { TRANSFER_LIMITS } from '../transferLimits';

const id = z.string().min(1).max(200);
const path = z.string().min(1).max(4096);
const folderPath = z.string().max(1024);
/** A site's algorithm list (names checked against ssh2's lists by the engine, which names an unknown one). */
const algorithmList = z
  .array(
    z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9][A-Za-z0-9@.+_-]*$/, 'not an algorithm name'),
  )
  .max(40)
  .optional();

export const siteInputSchema = z.strictObject({
  id: id.optional(),
  name: z.string().trim().min(1).max(200),
  folder: folderPath,
  host: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .regex(/^[^\s/@]+$/, 'host must not contain spaces, / or @'),
  port: z.number().int().min(1).max(65535),
  user: z.string().trim().min(1).max(255),
  authMethod: z.enum(['agent', 'key', 'password']),
  keyPath: path.optional(),
  localDir: path.optional(),
  remoteDir: path.optional(),
  connections: z.number().int().min(TRANSFER_LIMITS.connections.min).max(TRANSFER_LIMITS.connections.max).optional(),
  channels: z.number().int().min(TRANSFER_LIMITS.channels.min).max(TRANSFER_LIMITS.channels.max).optional(),
  ciphers: algorithmList,
  kex: algorithmList,
  macs: algorithmList,
  hostKeyAlgorithms: algorithmList,
  speedLimit: z
    .number()
    .int()
    .min(1024)
    .max(2 ** 40)
    .optional(),
  jumpHost: z
    .string()
    .trim()
    .min(1)
    .max(1024)
    .refine((v) => parseJumpHosts(v).ok, { message: 'not a jump host list ([user@]host[:port], comma separated)' })
    .optional(),
});
