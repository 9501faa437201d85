import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Route, Switch, useLocation, useSearch } from 'wouter';
import { LanguageSwitcher } from '../components/language-switcher.tsx';
import { asksSecondFactor } from '../login/second-factor.ts';
import { AccountsPage } from './accounts/accounts-page.tsx';
import { adminLoginUrl, safeAdminReturn } from './admin-auth.ts';
import { useDarkMode } from './dark-mode.ts';
import { ImpersonationProvider } from './impersonation/impersonation.tsx';
import { InvoicePage } from './invoice/invoice-page.tsx';
import { NotificationsPage } from './notifications/notifications-page.tsx';
import { OperatorProvider } from './operator.tsx';
import { SignOutButton } from './sign-out-button.tsx';
import { NewTenantPage } from './tenants/new-tenant-page.tsx';
import { TenantsPage } from './tenants/tenants-page.tsx';
import { TOKENS_BACK_PARAM } from './tenants/user-search.ts';
import { ToastProvider } from './toast.tsx';
import { TokensPage } from './tokens/tokens-page.tsx';
import './admin.css';

interface NavItem {
  href: string;
  key: string;
  icon: string;
  /** Whether the item is the current section (paths are relative to /admin; `query` is the page's). */
  matches: (path: string, query: URLSearchParams) => boolean;
}

/** The tokens page belongs to the section its link was on: Accounts (?back=accounts), else Tenants. */
const tokensFromAccounts = (path: string, query: URLSearchParams) => path.startsWith('/tokens') && query.get(TOKENS_BACK_PARAM) === 'accounts';

const NAV_ITEMS: NavItem[] = [
  {
    href: '/tenants',
    key: 'admin.tenants',
    icon: '▦',
    matches: (path, query) => path === '/' || path.startsWith('/tenants') || (path.startsWith('/tokens') && !tokensFromAccounts(path, query)),
  },
  { href: '/accounts', key: 'admin.accounts', icon: '◉', matches: (path, query) => path.startsWith('/accounts') || tokensFromAccounts(path, query) },
  { href: '/invoice', key: 'admin.invoice', icon: '▤', matches: (path) => path.startsWith('/invoice') },
  { href: '/notifications', key: 'admin.notifications', icon: '◔', matches: (path) => path.startsWith('/notifications') },
];

function decodeParam(value: string | undefined): string {
  try {
    return decodeURIComponent(value ?? '');
  } catch {
    return value ?? '';
  }
}

/** /admin/*: the operator console frame. Rendered inside <Route path="/admin" nest>. */
export function AdminShell() {
  const { t } = useTranslation();
  const [path] = useLocation();
  const query = new URLSearchParams(useSearch());
  // The sign-in notice is /admin?from=… only (spec section 2): a `from` on a console page (an old
  // link, a page's own parameter) must not hide that page behind the notice.
  const from = path === '/' ? query.get('from') : null;
  const [collapsed, setCollapsed] = useState(false);
  const [dark, setDark] = useDarkMode();

  return (
    // Around the whole frame: the top bar's sign-out reports its failure as the pages do.
    <ToastProvider>
      <div className={collapsed ? 'admin collapsed' : 'admin'}>
        <aside className="admin-sidebar" id="admin-sidebar">
          <div className="admin-sidebar-head">
            <span className="brand-mark" aria-hidden="true">
              N
            </span>
            <span className="admin-title">{t('admin.title')}</span>
          </div>
          <nav aria-label={t('admin.nav_label')}>
            <ul>
              {NAV_ITEMS.map((item) => {
                const active = item.matches(path, query);
                return (
                  <li key={item.href}>
                    <Link href={item.href} className={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
                      <span className="nav-icon" aria-hidden="true">
                        {item.icon}
                      </span>
                      <span className="nav-text">{t(item.key)}</span>
                    </Link>
                  </li>
                );
              })}
            </ul>
          </nav>
          <label className="checkbox dark-toggle">
            <input type="checkbox" checked={dark} onChange={(event) => setDark(event.target.checked)} />
            <span className="nav-text">{t('admin.dark_mode')}</span>
          </label>
        </aside>
        <div className="admin-main">
          <header className="admin-topbar">
            <button
              type="button"
              className="btn btn-secondary sidebar-toggle"
              aria-controls="admin-sidebar"
              aria-expanded={!collapsed}
              onClick={() => setCollapsed(!collapsed)}
            >
              {collapsed ? t('admin.expand') : t('admin.collapse')}
            </button>
            <div className="admin-topbar-end">
              <LanguageSwitcher />
              <SignOutButton />
            </div>
          </header>
          <main className="admin-content">
            <OperatorProvider enabled={from === null}>
              {from !== null ? (
                <SignInRequired from={from} secondFactor={asksSecondFactor(query)} />
              ) : (
                <ImpersonationProvider>
                  <AdminRoutes />
                </ImpersonationProvider>
              )}
            </OperatorProvider>
          </main>
        </div>
      </div>
    </ToastProvider>
  );
}

function AdminRoutes() {
  return (
    <Switch>
      <Route path="/" component={TenantsPage} />
      <Route path="/tenants" component={TenantsPage} />
      <Route path="/tenants/new" component={NewTenantPage} />
      <Route path="/accounts" component={AccountsPage} />
      <Route path="/invoice" component={InvoicePage} />
      <Route path="/notifications" component={NotificationsPage} />
      <Route path="/tokens/:email/:account_id">
        {(params) => <TokensPage email={decodeParam(params.email)} accountId={decodeParam(params.account_id)} />}
      </Route>
      <Route>
        <TenantsPage />
      </Route>
    </Switch>
  );
}

/**
 * Shown at /admin?from=…: the session has no operator access (401/403 on a console call), or,
 * with second_factor=1, an operator's sign-in proved no second factor (403 operator/mfa-required).
 */
function SignInRequired({ from, secondFactor }: { from: string; secondFactor: boolean }) {
  const { t } = useTranslation();
  const back = safeAdminReturn(from);
  return (
    <section className="admin-page">
      <h1 id="admin-signin-title">{t('admin.signin_required')}</h1>
      <p>{secondFactor ? t('admin.signin_second_factor') : t('admin.signin_body')}</p>
      <div className="actions">
        <a className="btn btn-primary" href={adminLoginUrl(from, secondFactor)}>
          {t('admin.sign_in')}
        </a>
        {back && (
          <a className="btn btn-secondary" href={back}>
            {t('admin.retry')}
          </a>
        )}
      </div>
    </section>
  );
}
