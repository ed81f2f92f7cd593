/**
 * The prompts the engine raises, one at a time in this order: a host key to decide (a replaced or added key is used
 * by connecting again), login questions, a conflict. Each answer goes back through the bridge; a failed answer is
 * logged.
 */
import type { ReactNode } from 'react';
import type { ConflictChoice, HostKeyAnswer } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import { useAppState, useBridge, useStore } from '../state/react';
import { AuthDialog } from './AuthDialog';
import { ConflictDialog } from './ConflictDialog';
import { HostKeyDialog } from './HostKeyDialog';

/** The first pending prompt of each kind, the later kinds held back while an earlier one is open, and the answers. */
export function usePrompts(connect: (site: SiteView) => Promise<void>) {
  const store = useStore();
  const bridge = useBridge();
  const sites = useAppState((s) => s.sites);
  const hostKeyPrompts = useAppState((s) => s.hostKeyPrompts);
  const authPrompts = useAppState((s) => s.authPrompts);
  const conflictPrompts = useAppState((s) => s.conflictPrompts);
  const hostKeyPrompt = hostKeyPrompts[0];
  const authPrompt = hostKeyPrompt ? undefined : authPrompts[0];
  const conflictPrompt = hostKeyPrompt || authPrompt ? undefined : conflictPrompts[0];
  const answerHostKey = async (answer: HostKeyAnswer, confirmHost?: string) => {
    if (!hostKeyPrompt) return;
    const { promptId, siteId } = hostKeyPrompt;
    store.dispatch({ type: 'promptAnswered', promptId });
    const r = await bridge.hostKeyAnswer(
      confirmHost === undefined ? { promptId, answer } : { promptId, answer, confirmHost },
    );
    if (!r.ok) {
      store.localLog('error', `Host key answer failed: ${r.error.message}`);
      return;
    }
    // A replaced or added key is saved, not yet used: connect again, now trusting it.
    const site = sites.sites.find((s) => s.id === siteId);
    if ((answer === 'replace' || answer === 'add') && site) await connect(site);
  };
  const answerAuth = async (answers: string[] | null, remember: boolean) => {
    if (!authPrompt) return;
    const { promptId } = authPrompt;
    store.dispatch({ type: 'promptAnswered', promptId });
    const r = await bridge.authAnswer(answers ? { promptId, answers, remember } : { promptId });
    if (!r.ok) store.localLog('error', `Login answer failed: ${r.error.message}`);
  };
  const answerConflict = async (choice: ConflictChoice, forAll: boolean) => {
    if (!conflictPrompt) return;
    store.dispatch({ type: 'promptAnswered', promptId: conflictPrompt.promptId });
    const r = await bridge.conflictAnswer({ promptId: conflictPrompt.promptId, choice, forAll });
    if (!r.ok) store.localLog('error', `Conflict answer failed: ${r.error.message}`);
  };
  const hostKeySite = hostKeyPrompt ? sites.sites.find((s) => s.id === hostKeyPrompt.siteId)?.name : undefined;
  return {
    hostKeyPrompt,
    authPrompt,
    conflictPrompt,
    conflictsPending: conflictPrompts.length - 1,
    hostKeySite,
    answerHostKey,
    answerAuth,
    answerConflict,
  };
}

/**
 * The host key, login and conflict dialogs of {@link usePrompts}; `children` (the window's own dialogs) come between
 * the login and the conflict dialog, as before the split.
 */
export function PromptDialogs(props: { prompts: ReturnType<typeof usePrompts>; children?: ReactNode }) {
  const { prompts: p, children } = props;
  return (
    <>
      {p.hostKeyPrompt && (
        <HostKeyDialog
          prompt={p.hostKeyPrompt}
          siteName={p.hostKeySite}
          onAnswer={(a, typed) => void p.answerHostKey(a, typed)}
        />
      )}
      {p.authPrompt && (
        <AuthDialog key={p.authPrompt.promptId} prompt={p.authPrompt} onAnswer={(a, r) => void p.answerAuth(a, r)} />
      )}
      {children}
      {p.conflictPrompt && (
        <ConflictDialog
          prompt={p.conflictPrompt}
          pending={p.conflictsPending}
          onAnswer={(c, f) => void p.answerConflict(c, f)}
        />
      )}
    </>
  );
}
