import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../components/alert.tsx';
import { Button } from '../components/button.tsx';
import { PasswordFields } from '../components/password-fields.tsx';
import { isCreatePasswordValid } from '../login/password-rules.ts';
import { changePassword } from './profile-api.ts';
import { passwordChangeFailure } from './profile-errors.ts';
import { useSessionExpired } from './session-expired.ts';

/** The message of a failed change (i18n key), and whether it is about the current password. */
type Problem = { key: string; current: boolean };

/** Where focus goes once an answer arrives (the form was disabled meanwhile, so it was lost). */
type FocusTarget = 'current' | 'submit' | 'done';

/**
 * Password change for an account that has one: the current password (the proof: no recent
 * sign-in needed) and a new one under the create-password rules; other sessions are signed out
 * unless the person unticks it. Submit stays disabled until the new password is valid. After a
 * wrong current password focus goes to that field, after a change to the confirmation, after
 * other failures back to Submit.
 */
export function PasswordChange({ onChanged }: { onChanged: () => void }) {
  const { t } = useTranslation();
  const sessionExpired = useSessionExpired();
  const id = useId();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [signOutOthers, setSignOutOthers] = useState(true);
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [done, setDone] = useState<{ signedOut: number } | null>(null);
  // A new object each time, so the same target twice in a row moves focus again.
  const [focus, setFocus] = useState<{ target: FocusTarget } | null>(null);
  const currentRef = useRef<HTMLInputElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const doneRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const targets = { current: currentRef, submit: submitRef, done: doneRef };
    if (focus) targets[focus.target].current?.focus();
  }, [focus]);
  const valid = current !== '' && isCreatePasswordValid(password, repeat);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    setProblem(null);
    setDone(null);
    setPending(true);
    try {
      const answer = await changePassword({ current_password: current, new_password: password, sign_out_others: signOutOthers });
      setDone({ signedOut: answer.signed_out });
      setCurrent('');
      setPassword('');
      setRepeat('');
      setFocus({ target: 'done' });
      onChanged();
    } catch (error) {
      const failure = passwordChangeFailure(error);
      if (failure.kind === 'signed-out') return sessionExpired();
      setProblem(failure);
      setFocus({ target: failure.current ? 'current' : 'submit' });
    } finally {
      setPending(false);
    }
  };

  return (
    <section className="profile-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('profile.change_password.title')}</h2>
      <form className="form" noValidate onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor={`${id}-current`}>{t('profile.change_password.current')}</label>
          <input
            id={`${id}-current`}
            type="password"
            autoComplete="current-password"
            ref={currentRef}
            disabled={pending}
            aria-invalid={problem?.current || undefined}
            aria-describedby={problem?.current ? `${id}-problem` : undefined}
            value={current}
            onChange={(event) => setCurrent(event.target.value)}
          />
        </div>
        <PasswordFields password={password} repeat={repeat} onPasswordChange={setPassword} onRepeatChange={setRepeat} disabled={pending} />
        <label className="checkbox">
          <input type="checkbox" checked={signOutOthers} disabled={pending} onChange={(event) => setSignOutOthers(event.target.checked)} />
          {t('profile.change_password.sign_out_others')}
        </label>
        <ErrorAlert id={`${id}-problem`} message={problem ? t(problem.key) : null} />
        {done && (
          // A Notice that can take focus: the fields were cleared and Submit is disabled again.
          <div ref={doneRef} className="alert alert-info" role="status" tabIndex={-1}>
            {done.signedOut > 0 ? t('profile.change_password.changed_signed_out', { count: done.signedOut }) : t('profile.change_password.changed')}
          </div>
        )}
        <Button ref={submitRef} loading={pending} disabled={!valid}>
          {t('profile.change_password.submit')}
        </Button>
      </form>
    </section>
  );
}
