import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { useFocusOnEach } from '../components/use-auto-focus.ts';
import { nameProblem, NAME_PROBLEM_KEYS, type NameProblem } from './name-rules.ts';
import { profileFailure } from './profile-errors.ts';
import { saveSetting } from './profile-api.ts';
import { useSessionExpired } from './session-expired.ts';

type Problem = NameProblem | 'failed';

/** The name, shown with an Edit button; editing opens a small form (Enter saves, Escape cancels). */
export function NameSetting({ name, onSaved }: { name: string; onSaved: (name: string) => void }) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  // Saving or cancelling removes the form, and focus with it: it goes back to Edit.
  const [closed, setClosed] = useState(0);
  const editRef = useFocusOnEach<HTMLButtonElement>(closed);
  const close = () => {
    setEditing(false);
    setClosed((count) => count + 1);
  };
  if (!editing) {
    return (
      <dd className="name-row">
        <span>{name || '—'}</span>
        <Button
          ref={editRef}
          type="button"
          variant="link"
          onClick={() => {
            setSaved(false);
            setEditing(true);
          }}
        >
          {t('profile.name_edit')}
        </Button>
        {saved && <Notice message={t('profile.name_saved')} />}
      </dd>
    );
  }
  return (
    <dd>
      <NameForm
        name={name}
        onCancel={close}
        onSaved={(next) => {
          onSaved(next);
          close();
          setSaved(true);
        }}
      />
    </dd>
  );
}

function NameForm({ name, onCancel, onSaved }: { name: string; onCancel: () => void; onSaved: (name: string) => void }) {
  const { t } = useTranslation();
  const sessionExpired = useSessionExpired();
  const id = useId();
  const [value, setValue] = useState(name);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [pending, setPending] = useState(false);
  // Focused when the form opens (autoFocus), and again after a failed save (it was disabled while saving).
  const [failures, setFailures] = useState(0);
  const inputRef = useFocusOnEach<HTMLInputElement>(failures);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local = nameProblem(value);
    if (local) return setProblem(local);
    setProblem(null);
    setPending(true);
    try {
      const saved = await saveSetting({ key: 'name', value });
      onSaved(saved.value);
    } catch (error) {
      const failure = profileFailure(error);
      if (failure.kind === 'signed-out') return sessionExpired();
      setProblem(failure.kind === 'rejected' && failure.status === 422 ? 'invalid' : 'failed');
      setFailures((count) => count + 1);
    } finally {
      setPending(false);
    }
  };

  const problemId = `${id}-problem`;
  const message = problem === 'failed' ? t('profile.name_failed') : problem ? t(NAME_PROBLEM_KEYS[problem]) : null;
  return (
    <form className="form name-form" noValidate onSubmit={(event) => void submit(event)} onKeyDown={(event) => event.key === 'Escape' && !pending && onCancel()}>
      <label className="visually-hidden" htmlFor={`${id}-name`}>
        {t('profile.name')}
      </label>
      <input
        ref={inputRef}
        autoFocus
        id={`${id}-name`}
        type="text"
        autoComplete="name"
        maxLength={200}
        value={value}
        disabled={pending}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? problemId : undefined}
        onChange={(event) => setValue(event.target.value)}
      />
      <ErrorAlert id={problemId} message={message} />
      <div className="profile-actions">
        <Button loading={pending}>{t('profile.name_save')}</Button>
        <Button type="button" variant="secondary" disabled={pending} onClick={onCancel}>
          {t('profile.name_cancel')}
        </Button>
      </div>
    </form>
  );
}
