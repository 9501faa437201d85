import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { listInvoice, type InvoiceRow } from '../../api/admin.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { capCount } from '../count-badge.ts';
import { ListStatus } from '../list-status.tsx';
import { sortByName } from '../sort-by-name.ts';
import { useLoad } from '../use-load.ts';
import { formatSek, invoiceTotals, rowFee } from './invoice-fee.ts';

/** Product names: the same in every language, so they are not in the catalogues. */
const FUNCTIONS: [keyof InvoiceRow['functions'], string][] = [
  ['system_sms', 'SMS'],
  ['system_cronofy', 'Cronofy'],
];

const INTEGRATIONS: [keyof InvoiceRow['integrations'], string][] = [
  ['alva', 'Alva'],
  ['refapp', 'Refapp'],
  ['sri', 'SRI'],
  ['sri_ref', 'SRI Ref'],
  ['evali', 'Evali'],
];

/** /admin/invoice: one row per tenant with users, functions, integrations and the fee; a total. */
export function InvoicePage() {
  const { t } = useTranslation();
  const invoice = useLoad<InvoiceRow[]>();
  const { run } = invoice;
  useEffect(() => run(listInvoice), [run]);

  const rows = useMemo(() => sortByName(invoice.data ?? []), [invoice.data]);
  const totals = invoiceTotals(rows);
  // useTranslation re-renders on a language change, so this follows the switcher.
  const language = currentLanguage();

  return (
    <section className="admin-page" aria-labelledby="admin-page-title">
      <h1 id="admin-page-title">{t('admin.invoice')}</h1>
      <ListStatus status={invoice.status} error={invoice.error} failedMessage={t('admin.invoice_page.failed')} />
      {invoice.data && rows.length === 0 && <p className="muted">{t('admin.invoice_page.empty')}</p>}
      {rows.length > 0 && (
        <div className="table-scroll">
          <table className="admin-table invoice-table">
            <caption className="visually-hidden">{t('admin.invoice_page.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('admin.invoice_page.tenant')}</th>
                <th scope="col" className="num">
                  {t('admin.invoice_page.users')}
                </th>
                <th scope="col">{t('admin.invoice_page.functions')}</th>
                <th scope="col">{t('admin.invoice_page.integrations')}</th>
                <th scope="col" className="num">
                  {t('admin.invoice_page.fee')}
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.tenant_id}>
                  <th scope="row">{row.name}</th>
                  <td className="num">{row.user_count}</td>
                  <td>
                    <Flags names={FUNCTIONS.filter(([key]) => row.functions?.[key]).map(([, name]) => name)} none={t('admin.invoice_page.none')} />
                  </td>
                  <td>
                    <Flags names={INTEGRATIONS.filter(([key]) => row.integrations?.[key]).map(([, name]) => name)} none={t('admin.invoice_page.none')} />
                  </td>
                  <td className="num">{formatSek(rowFee(row), language)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">
                  {t('admin.invoice_page.total')} <span className="badge">{capCount(rows.length)}</span>
                </th>
                <td className="num">{totals.users}</td>
                <td />
                <td />
                <td className="num">{formatSek(totals.fee, language)}</td>
              </tr>
            </tfoot>
          </table>
        </div>
      )}
    </section>
  );
}

function Flags({ names, none }: { names: string[]; none: string }) {
  if (names.length === 0) return <span className="muted">{none}</span>;
  return (
    <ul className="chips">
      {names.map((name) => (
        <li key={name} className="chip">
          {name}
        </li>
      ))}
    </ul>
  );
}
