import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { ErrorAlert, Notice } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { useAutoFocus } from '../components/use-auto-focus.ts';
import { nameProblem, NAME_PROBLEM_KEYS, type NameProblem } from './name-rules.ts';
import { LOGIN_PATH, profileFailure } from './profile-errors.ts';
import { saveSetting } from './profile-api.ts';

type Problem = NameProblem | 'failed';

/** The name, shown with an Edit button; editing opens a small form (Enter saves, Escape cancels). */
export function NameSetting({ name, onSaved }: { name: string; onSaved: (name: string) => void }) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  if (!editing) {
    return (
      <dd className="name-row">
        <span>{name || '—'}</span>
        <Button
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
        onCancel={() => setEditing(false)}
        onSaved={(next) => {
          onSaved(next);
          setEditing(false);
          setSaved(true);
        }}
      />
    </dd>
  );
}

function NameForm({ name, onCancel, onSaved }: { name: string; onCancel: () => void; onSaved: (name: string) => void }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const id = useId();
  const inputRef = useAutoFocus<HTMLInputElement>();
  const [value, setValue] = useState(name);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [pending, setPending] = useState(false);

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
      if (failure.kind === 'signed-out') return navigate(LOGIN_PATH, { replace: true });
      setProblem(failure.kind === 'rejected' && failure.status === 422 ? 'invalid' : 'failed');
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
