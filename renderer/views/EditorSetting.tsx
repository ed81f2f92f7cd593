/**
 * Settings → Editing (#26 item 1): the command remote files open in for editing (`code -w`, `gvim -f {file}`), or
 * empty for the system's default application. Checked as the engine splits it (app/common/editorCommand.ts: words and
 * quotes, no shell); `{file}` stands for the file, else its path is added at the end. Saved with `settings.set`.
 */
import { useId, useState } from 'react';
import type { Settings } from '../../app/common/ipc/contract';
import { splitEditorCommand } from '../../app/common/editorCommand';
import { useBridge, useStore } from '../state/react';

/** Why the command cannot be started as typed, or null. */
function problemOf(text: string): string | null {
  if (text.trim() === '') return null;
  try {
    splitEditorCommand(text);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** The field, its hint, and Save. */
export function EditorSetting({ settings }: { settings: Settings }) {
  const bridge = useBridge();
  const store = useStore();
  const hint = useId();
  const [text, setText] = useState(settings.editorCommand ?? '');
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  const problem = problemOf(text);
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (problem) return;
    const command = text.trim();
    const r = await bridge.settingsSet({ editorCommand: command });
    if (!r.ok) return setMessage({ error: true, text: `Saving failed: ${r.error.message}` });
    store.dispatch({ type: 'settings', settings: r.value });
    setMessage({
      error: false,
      text: command ? `Saved: files open for editing with ${command}` : "Saved: the system's default application",
    });
  };
  return (
    <form className="editor-setting" aria-label="Editing" onSubmit={(e) => void save(e)}>
      <label>
        Editor command{' '}
        <input
          className="mono"
          aria-label="Editor command"
          aria-describedby={hint}
          aria-invalid={problem ? true : undefined}
          value={text}
          spellCheck={false}
          autoComplete="off"
          placeholder="the system's default application"
          onChange={(e) => {
            setText(e.target.value);
            setMessage(null);
          }}
        />
      </label>
      <p id={hint} className="note">
        For example <span className="mono">code -w</span> or <span className="mono">gvim -f {'{file}'}</span>:{' '}
        <span className="mono">{'{file}'}</span> stands for the edited file, else its path is added at the end. No shell
        runs it (quotes group words; nothing else is expanded). Empty: the system&apos;s default application.
      </p>
      {problem && (
        <p className="error-text" role="alert">
          {problem}
        </p>
      )}
      {message && (
        <p className={message.error ? 'error-text' : 'note'} role="status">
          {message.text}
        </p>
      )}
      <button type="submit" disabled={problem !== null}>
        Save editor command
      </button>
    </form>
  );
}
