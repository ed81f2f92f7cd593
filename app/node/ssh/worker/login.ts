/**
 * The login of a connection's set-up: ssh2's `authHandler` over the posted key material, its questions (password,
 * keyboard-interactive) asked of the coordinator, and what set-up learns on the way.
 */
import type { AuthHandlerMiddleware, Client } from 'ssh2';
import type { Duplex } from 'node:stream';
import { SluiceError } from '../../errors';
import { holdReadyTimeout } from '../../ssh2x';
import { makeAuthHandler } from '../auth';
import type { ConnectParams, ToWorker } from '../workerProtocol';
import type { AuthTrace } from './authTrace';
import type { LoginTally } from './connectErrors';
import type { Coordinator, Question } from './link';

/** What set-up learns while it runs: why it was ended on our side, the login method sent last, the logins tried. */
export interface SetupState {
  /** A refused host key, or a login prompt no one can answer. */
  refusal: SluiceError | null;
  authMethod: string;
  logins: LoginTally;
  /** Each method offered and the server's answers, for `-v` and the failure message. */
  trace: AuthTrace;
}

/**
 * The ssh2 `authHandler` of a connection: {@link makeAuthHandler} over the posted material, its questions asked of the
 * coordinator, and the set-up state kept up to date (the method sent, password and keyboard-interactive logins tried
 * and refused; a prompt no one can answer ends the connection with its error).
 */
export function authHandlerFor(
  link: Coordinator,
  params: ConnectParams,
  client: Client,
  sock: Duplex,
  setup: SetupState,
): AuthHandlerMiddleware {
  /** A question to the coordinator that waits for a person: ssh2's ready timer is held meanwhile. */
  const askPerson = async (q: Question): Promise<ToWorker> => {
    const resume = holdReadyTimeout(client, sock, params.readyTimeoutMs);
    try {
      return await link.ask(q);
    } finally {
      resume();
    }
  };
  // Buffers arrive as plain Uint8Arrays after postMessage's structured clone; ssh2 wants Buffers.
  const auth = { ...params.auth, keys: params.auth.keys.map((k) => ({ ...k, privateKey: Buffer.from(k.privateKey) })) };
  const base = makeAuthHandler(auth, {
    password: params.canAskPassword
      ? async (again) => {
          const answer = await askPerson({ kind: 'password', again });
          return answer.kind === 'password-answer' ? answer.password : undefined;
        }
      : undefined,
    keyboard: async (round) => {
      const answer = await askPerson({ kind: 'keyboard', round });
      if (answer.kind !== 'keyboard-answer' || answer.error || !answer.answers) {
        throw answer.kind === 'keyboard-answer' && answer.error
          ? SluiceError.fromInfo(answer.error)
          : new SluiceError('AUTH_FAILED', 'keyboard-interactive: no answers');
      }
      return answer.answers;
    },
    fail: (e) => {
      setup.refusal ??= e;
      client.end();
    },
    offered: (what) => setup.trace.offered(what),
    agentKeys: (keys) => setup.trace.listedAgentKeys(keys),
  });
  const login = (t: string): boolean => t === 'password' || t === 'keyboard-interactive';
  return (methodsLeft, partial, next) => {
    setup.trace.answered(methodsLeft, partial);
    base(methodsLeft, partial, (m) => {
      // Called again after an attempt: a password or keyboard-interactive login just refused counts towards the
      // server's limit (a close that follows is "too many tries", not a lost connection).
      if (methodsLeft !== null && partial !== true && login(setup.authMethod)) setup.logins.refused++;
      if (m && typeof m === 'object') setup.authMethod = m.type;
      else if (typeof m === 'string') setup.authMethod = m;
      if (m && login(setup.authMethod)) setup.logins.tried++;
      next(m);
    });
  };
}
