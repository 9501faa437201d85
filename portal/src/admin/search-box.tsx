import { useId, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../components/button.tsx';

interface SearchBoxProps {
  label: string;
  hint: string;
  value: string;
  onChange: (value: string) => void;
  /** Enter or the Search button, with a non-empty term (admin searches need one). */
  onSearch: (term: string) => void;
  /** Escape: the term and the results are cleared. */
  onClear: () => void;
  /** ArrowDown (+1) / ArrowUp (-1) move a highlight in the results. */
  onMove?: (delta: 1 | -1) => void;
  /**
   * Enter (or Shift+Enter: `shift`) while a row is highlighted acts on that row instead of
   * searching again; answers whether it did.
   */
  onPick?: (shift: boolean) => boolean;
  /** id of the results while they are shown, for aria-controls (which must not name a missing element). */
  resultsId?: string;
  busy?: boolean;
  autoFocus?: boolean;
}

/** The server refuses longer search terms. */
const SEARCH_MAX = 100;

/** The required search of the accounts and tenants pages, driven from the keyboard. */
export function SearchBox(props: SearchBoxProps) {
  const { label, hint, value, onChange, onSearch, onClear, onMove, onPick, resultsId, busy, autoFocus } = props;
  const { t } = useTranslation();
  const id = useId();
  const term = value.trim();

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (!onMove) return;
      event.preventDefault();
      onMove(event.key === 'ArrowDown' ? 1 : -1);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onClear();
    } else if (event.key === 'Enter' && onPick?.(event.shiftKey)) {
      event.preventDefault();
    }
  };

  return (
    <form
      className="admin-search"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        if (term !== '') onSearch(term);
      }}
    >
      <div className="field">
        <label htmlFor={`${id}-input`}>{label}</label>
        <div className="admin-search-row">
          <input
            id={`${id}-input`}
            type="search"
            required
            maxLength={SEARCH_MAX}
            autoComplete="off"
            spellCheck={false}
            autoFocus={autoFocus}
            aria-describedby={`${id}-hint`}
            aria-controls={resultsId}
            value={value}
            onChange={(event) => onChange(event.target.value)}
            onKeyDown={onKeyDown}
          />
          <Button disabled={term === ''} loading={busy}>
            {t('admin.search')}
          </Button>
        </div>
        <p className="muted" id={`${id}-hint`}>
          {hint}
        </p>
      </div>
    </form>
  );
}
