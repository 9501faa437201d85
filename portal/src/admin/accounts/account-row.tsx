import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { sendAccountPasswordReset, signAccountOutEverywhere, unlockAccount, type AdminAccount } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { Button } from '../../components/button.tsx';
import { useFocusBack } from '../../components/use-focus-back.ts';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { useConfirm } from '../confirm-modal.tsx';
import { failureText } from '../failure-text.ts';
import { useImpersonate } from '../impersonation/impersonation.tsx';
import { Modal } from '../modal.tsx';
import { useCanChange } from '../operator.tsx';
import { tokensPath } from '../tenants/user-search.ts';
import { useToast } from '../toast.tsx';
import { formatUtc } from '../utc-time.ts';
import { accountKinds, initialsOf, KIND_KEYS, lockEnd, pendingChange } from './account-view.ts';
import { CredentialChips } from './credential-chips.tsx';
import { EmailChangeModal } from './email-change-modal.tsx';
import { LAST_LOGIN_KEYS, lastLogin } from './last-login.ts';
import { lockFacts } from './lock-facts.ts';

/** The unlock's answer when no lock was in force any more (account-actions.service.ts). */
const NOT_LOCKED = 'account/not-locked';

interface AccountRowProps {
  account: AdminAccount;
  onChange: (account: AdminAccount) => void;
}

/**
 * One account of the results: who, what kind, sign-in lock, last login, a pending email change,
 * credentials, tenant access, its sessions and tokens, reset, unlock, sign out everywhere, and
 * (admins) change the email.
 */
export function AccountRow({ account, onChange }: AccountRowProps) {
  const { t } = useTranslation();
  const toast = useToast();
  const handleAdminError = useAdminErrorHandler();
  const [confirmModal, ask] = useConfirm();
  const impersonate = useImpersonate();
  const [sending, setSending] = useState(false);
  const [unlocking, setUnlocking] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const [changingEmail, setChangingEmail] = useState(false);
  const canChange = useCanChange();
  const title = useRef<HTMLSpanElement>(null);
  const resetButton = useRef<HTMLButtonElement>(null);
  const signOutButton = useRef<HTMLButtonElement>(null);
  const unlockButton = useRef<HTMLButtonElement>(null);
  // These calls disable their button, which drops the focus; it comes back when they end (after
  // an unlock that worked the button is gone, and the focus is on Reset password already).
  useFocusBack(sending, resetButton);
  useFocusBack(signingOut, signOutButton);
  useFocusBack(unlocking, unlockButton);
  const now = new Date();
  const login = lastLogin(account.last_login_at, now);
  const lockedUntil = lockEnd(account, now);
  const pending = pendingChange(account, now);

  const sendReset = async () => {
    setSending(true);
    try {
      await sendAccountPasswordReset(account.id);
      toast('success', t('success.reset_email_sent'));
    } catch (error) {
      // A 429 here is a reset-mail budget (the address's or the operator's): the person may
      // already have several mails, of which only the newest link works.
      if (!handleAdminError(error, 'action')) toast('error', failureText(t('errors.failed_to_send_reset_email'), error, t, { limitKey: 'admin.account.reset_limit' }));
    } finally {
      setSending(false);
    }
  };

  // Any operator may unlock (support too, as for the reset mail); the server says why.
  const askUnlock = () =>
    ask({
      title: t('admin.account.unlock_title'),
      content: t('admin.account.unlock_confirm', { email: account.email }),
      confirmLabel: t('admin.account.unlock'),
      onConfirm: async () => {
        setUnlocking(true);
        try {
          await unlockAccount(account.id);
          onChange({ ...account, locked_until: null, lock: null });
          toast('success', t('admin.account.unlocked'));
          // The Unlock button goes with the lock: focus moves to the row's other action, not to the page.
          resetButton.current?.focus();
        } catch (error) {
          if (handleAdminError(error, 'action')) return;
          if (isApiError(error) && error.type === NOT_LOCKED) {
            // The lock ran out (or the person signed in) since the page was loaded: nothing was
            // unlocked, but what the operator wanted is so. The badge and the button go.
            onChange({ ...account, locked_until: null, lock: null });
            toast('success', t('admin.account.already_unlocked', { email: account.email }));
            resetButton.current?.focus();
          } else {
            toast('error', failureText(t('admin.account.unlock_failed'), error, t));
          }
        } finally {
          setUnlocking(false);
        }
      },
    });

  // Any operator may (support too: it only ends access). A warning, so the modal starts on Cancel:
  // Enter alone must not sign someone out of every device.
  const askSignOut = () =>
    ask({
      title: t('admin.account.sign_out_title'),
      content: t('admin.account.sign_out_confirm', { email: account.email }),
      warning: true,
      confirmLabel: t('admin.account.sign_out_everywhere'),
      onConfirm: async () => {
        setSigningOut(true);
        try {
          const { applications } = await signAccountOutEverywhere(account.id);
          toast('success', t('admin.account.signed_out', { applications }));
        } catch (error) {
          if (!handleAdminError(error, 'action')) toast('error', failureText(t('admin.account.sign_out_failed'), error, t));
        } finally {
          setSigningOut(false);
        }
      },
    });

  return (
    <li className="admin-row account-row">
      <Avatar account={account} />
      <div className="account-main">
        <div className="account-title">
          {/* Focusable from code only: where the focus goes when the row's last deletable credential goes. */}
          <span ref={title} className="row-title" tabIndex={-1}>
            {account.name || account.email}
          </span>
          {accountKinds(account).map((kind) => (
            <span key={kind} className={`badge kind-${kind}`}>
              {t(KIND_KEYS[kind])}
            </span>
          ))}
          {lockedUntil && (
            <span className="badge badge-locked" title={lockedUntil}>
              {t('admin.account.locked_until', { time: formatUtc(lockedUntil) })}
            </span>
          )}
        </div>
        {/* How the lock began, to judge an unlock against a reset by (docs/operations.md). */}
        {lockedUntil && account.lock && (
          <p className="muted lock-facts" title={account.lock.user_agent ?? undefined}>
            {lockFacts(account.lock, t)}
          </p>
        )}
        <dl className="facts compact">
          <div>
            <dt>{t('admin.email')}</dt>
            <dd>{account.email}</dd>
          </div>
          <div>
            <dt>{t('admin.account.id')}</dt>
            <dd>
              <code>{account.id}</code>
            </dd>
          </div>
          <div>
            <dt>{t('admin.account.last_login')}</dt>
            <dd title={account.last_login_at ?? undefined}>{t(LAST_LOGIN_KEYS[login.unit], { count: login.count })}</dd>
          </div>
          {pending && (
            <div>
              <dt>{t('admin.email_change.pending_label')}</dt>
              <dd title={pending.expires_at}>{t('admin.email_change.pending', { email: pending.email, time: formatUtc(pending.expires_at) })}</dd>
            </div>
          )}
          <div>
            <dt>{t('admin.account.credentials')}</dt>
            <dd>
              <CredentialChips account={account} onChange={onChange} fallbackFocus={title} />
            </dd>
          </div>
          <div>
            <dt>{t('admin.account.tenant_access')}</dt>
            <dd>
              {account.tenant_access.length === 0 ? (
                t('admin.account.no_tenants')
              ) : (
                <ul className="chips">
                  {account.tenant_access.map((access) =>
                    // Active access links to logging in to that tenant as this account (spec section 2).
                    access.active && impersonate ? (
                      <li key={access.id}>
                        <button
                          type="button"
                          className="chip tenant active chip-button"
                          title={access.slug}
                          aria-label={t('impersonation.login_as_to', { who: account.name || account.email, tenant: access.name })}
                          onClick={() =>
                            impersonate({ tenantId: access.id, tenantName: access.name, as: 'user', accountId: account.id, who: account.name || account.email })
                          }
                        >
                          {access.name}
                        </button>
                      </li>
                    ) : (
                      <li key={access.id} className={access.active ? 'chip tenant active' : 'chip tenant'} title={access.slug}>
                        {access.name}
                        <span className="visually-hidden">
                          {' '}
                          ({access.active ? t('admin.tenant.active') : t('admin.tenant.inactive')})
                        </span>
                      </li>
                    ),
                  )}
                </ul>
              )}
            </dd>
          </div>
        </dl>
      </div>
      <div className="row-actions">
        {/* Where the person is signed in: the tokens page lists their sessions too. Linked from the
            tenant's users as well, but a person without tenant access is only found here. */}
        <Link className="btn btn-secondary" href={tokensPath(account.email, account.id, 'accounts')} aria-label={t('admin.tenant.tokens_of', { email: account.email })}>
          {t('admin.tokens')}
        </Link>
        <Button ref={resetButton} type="button" variant="secondary" loading={sending} onClick={() => void sendReset()}>
          {t('admin.account.reset_password')}
        </Button>
        {lockedUntil && (
          <Button ref={unlockButton} type="button" variant="secondary" loading={unlocking} onClick={askUnlock} aria-haspopup="dialog">
            {t('admin.account.unlock')}
          </Button>
        )}
        <Button ref={signOutButton} type="button" variant="secondary" loading={signingOut} onClick={askSignOut} aria-haspopup="dialog">
          {t('admin.account.sign_out_everywhere')}
        </Button>
        {/* Admins only, as the server answers support 403: the address is where every way back in goes. */}
        {canChange && (
          <Button type="button" variant="secondary" onClick={() => setChangingEmail(true)} aria-haspopup="dialog">
            {t('admin.email_change.open')}
          </Button>
        )}
      </div>
      {confirmModal}
      {canChange && <EmailChangeModal account={account} open={changingEmail} onChange={onChange} onClose={() => setChangingEmail(false)} />}
    </li>
  );
}

/** The profile picture as a button that opens it large in a modal; initials when there is none. */
function Avatar({ account }: { account: AdminAccount }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [broken, setBroken] = useState(false);
  const who = account.name || account.email;
  if (!account.image || broken) {
    return (
      <span className="avatar" aria-hidden="true">
        {initialsOf(account.name, account.email)}
      </span>
    );
  }
  return (
    <>
      <button type="button" className="avatar avatar-button" aria-label={t('admin.account.view_image', { name: who })} onClick={() => setOpen(true)}>
        <img src={account.image} alt="" onError={() => setBroken(true)} />
      </button>
      <Modal open={open} title={t('admin.account.image_title', { name: who })} onClose={() => setOpen(false)}>
        <img className="profile-image-large" src={account.image} alt={t('admin.account.image_alt', { name: who })} />
      </Modal>
    </>
  );
}
