import { useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { createTenant } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { ErrorAlert } from '../../components/alert.tsx';
import { Button } from '../../components/button.tsx';
import { useFocusBack } from '../../components/use-focus-back.ts';
import { useAdminErrorHandler } from '../admin-auth.ts';
import { failureText } from '../failure-text.ts';
import { useToast } from '../toast.tsx';
import { newTenantProblems, slugFromName } from './tenant-slug.ts';

/** 409 type when another tenant has the slug. */
const SLUG_TAKEN = 'tenant/slug-taken';

/**
 * /admin/tenants/new: name and slug. The slug follows the name (stripped to lowercase letters and
 * digits) until the operator edits it; it must be lowercase letters and digits only.
 */
export function NewTenantPage() {
  const { t } = useTranslation();
  const id = useId();
  const [, navigate] = useLocation();
  const toast = useToast();
  const handleAdminError = useAdminErrorHandler();
  const [name, setName] = useState('');
  const [ownSlug, setOwnSlug] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const createButton = useRef<HTMLButtonElement>(null);
  // Creating disables Create, which drops the focus: after a refusal it comes back to Create (a
  // tenant that was created leaves the page).
  useFocusBack(busy, createButton);
  const slug = ownSlug ?? slugFromName(name);
  const problems = newTenantProblems(name, slug);
  const slugInvalid = problems.includes('slug_invalid');

  const submit = async () => {
    if (problems.length > 0) return;
    setBusy(true);
    setFailure(null);
    try {
      await createTenant({ name: name.trim(), slug });
      toast('success', t('admin.tenant.created', { name: name.trim() }));
      navigate(`/tenants?q=${encodeURIComponent(slug)}`);
    } catch (error) {
      setBusy(false);
      if (handleAdminError(error, 'action')) return;
      const message = t('errors.error_creating_tenant');
      setFailure(
        isApiError(error) && error.type === SLUG_TAKEN
          ? `${message}: ${t('admin.tenant.slug_taken', { slug })}`
          : failureText(message, error, t),
      );
    }
  };

  return (
    <section className="admin-page narrow" aria-labelledby="admin-page-title">
      <p>
        <Link href="/tenants">{t('admin.tenant.back')}</Link>
      </p>
      <h1 id="admin-page-title">{t('admin.new_tenant')}</h1>
      <form
        className="form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-name`}>{t('admin.tenant.name')}</label>
          <input id={`${id}-name`} type="text" required autoFocus autoComplete="off" value={name} onChange={(event) => setName(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-slug`}>{t('admin.tenant.slug')}</label>
          <input
            id={`${id}-slug`}
            type="text"
            required
            autoComplete="off"
            spellCheck={false}
            pattern="[a-z0-9]+"
            aria-invalid={slugInvalid || undefined}
            aria-describedby={`${id}-slug-hint`}
            value={slug}
            onChange={(event) => setOwnSlug(event.target.value)}
          />
          <p className={slugInvalid ? 'field-error' : 'muted'} id={`${id}-slug-hint`}>
            {slugInvalid ? t('admin.tenant.slug_invalid') : t('admin.tenant.slug_hint')}
          </p>
        </div>
        <ErrorAlert message={failure} />
        <div className="actions">
          <Button ref={createButton} disabled={problems.length > 0} loading={busy}>
            {t('admin.tenant.create')}
          </Button>
          <Link href="/tenants" className="btn btn-secondary">
            {t('app.cancel')}
          </Link>
        </div>
      </form>
    </section>
  );
}
