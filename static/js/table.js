// table.js - the one table component of the page: a <table> with a caption,
// sortable column headers (buttons, so they work from the keyboard) and a
// "Download CSV" button.  Rows are the API's objects; each column says how to
// read a raw value from a row (for sorting and CSV) and how to show it.
//
// column = {key, label, value(row), render(row) -> string | Node,
//           numeric, csv(row), cellClass(row)}

import { el } from './dom.js';

function compare(a, b) {
        const an = a === null || a === undefined || a === '';
        const bn = b === null || b === undefined || b === '';
        if (an || bn) return an === bn ? 0 : (an ? 1 : -1);     // unknowns last
        if (typeof a === 'number' && typeof b === 'number') return a - b;
        if (typeof a === 'boolean' && typeof b === 'boolean') return (a === b) ? 0 : (a ? -1 : 1);
        return String(a).localeCompare(String(b), 'en', { numeric: true });
}

function csvCell(v) {
        if (v === null || v === undefined) return '';
        const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
        return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

export function toCsv(columns, rows) {
        const lines = [columns.map((c) => csvCell(c.label)).join(',')];
        for (const r of rows)
                lines.push(columns.map((c) => csvCell((c.csv || c.value)(r))).join(','));
        return lines.join('\r\n') + '\r\n';
}

export function downloadText(filename, text, type = 'text/csv') {
        const url = URL.createObjectURL(new Blob([text], { type: type + ';charset=utf-8' }));
        const a = el('a', { href: url, download: filename, hidden: true });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Columns a reader turned on or off, per table id, for this page load.
const chosen = new Map();

// The column chooser: a checkbox per optional column (columns marked
// optional start hidden so the key ones fit the screen); the CSV always
// has every column.
function chooser(opts, shown, redraw) {
        const optional = opts.columns.filter((c) => c.optional);
        if (!optional.length) return null;
        const box = el('details', { class: 'columns' },
                el('summary', {}, `Columns (${optional.filter((c) => shown.has(c.key)).length} of ${optional.length} more shown)`));
        for (const c of optional) {
                const id = `${opts.id}-col-${c.key}`;
                const input = el('input', { type: 'checkbox', id, checked: shown.has(c.key) });
                input.addEventListener('change', () => {
                        if (input.checked) shown.add(c.key);
                        else shown.delete(c.key);
                        redraw();
                });
                box.append(el('span', { class: 'field check' }, input, el('label', { for: id }, c.label)));
        }
        return box;
}

/*
 * Render into container (replacing its content).  opts: {id, caption,
 * columns, rows, csvName, sort: {key, dir}, onSort(sort), rowClass(row),
 * expand(row) -> Node (a details row under each row)}.  A column with
 * optional: true starts hidden behind the column chooser.  Returns the table.
 */
export function renderTable(container, opts) {
        if (!chosen.has(opts.id)) chosen.set(opts.id, new Set(opts.columns.filter((c) => !c.optional).map((c) => c.key)));
        const shown = chosen.get(opts.id);
        const columns = opts.columns.filter((c) => !c.optional || shown.has(c.key));
        const { csvName } = opts;
        let sort = opts.sort || null;
        const table = el('table', { id: opts.id, class: 'data' });
        const tbody = el('tbody');

        function sortedRows() {
                const rows = opts.rows.slice();
                if (!sort) return rows;
                const col = columns.find((c) => c.key === sort.key);
                if (!col) return rows;
                rows.sort((a, b) => compare(col.value(a), col.value(b)) * (sort.dir === 'desc' ? -1 : 1));
                return rows;
        }

        const headRow = el('tr');
        for (const c of columns) {
                const th = el('th', { scope: 'col', class: c.numeric ? 'num' : null, 'data-key': c.key });
                if (c.sortable === false) {
                        th.append(c.label);
                } else {
                        const b = el('button', { type: 'button', class: 'sort' }, c.label);
                        b.addEventListener('click', () => {
                                const dir = sort && sort.key === c.key && sort.dir === 'asc' ? 'desc' : 'asc';
                                sort = { key: c.key, dir };
                                fill();
                                if (opts.onSort) opts.onSort(sort);
                        });
                        th.append(b);
                }
                headRow.append(th);
        }

        function fill() {
                for (const th of headRow.children) {
                        const on = sort && th.dataset.key === sort.key;
                        if (on) th.setAttribute('aria-sort', sort.dir === 'asc' ? 'ascending' : 'descending');
                        else th.removeAttribute('aria-sort');
                }
                tbody.replaceChildren();
                for (const r of sortedRows()) {
                        const tr = el('tr', { class: opts.rowClass ? opts.rowClass(r) : null });
                        columns.forEach((c, i) => {
                                const shown = c.render ? c.render(r) : c.value(r);
                                const cls = [c.numeric ? 'num' : null, c.cellClass ? c.cellClass(r) : null]
                                        .filter(Boolean).join(' ') || null;
                                const cell = el(i === 0 ? 'th' : 'td', { class: cls, scope: i === 0 ? 'row' : null },
                                        shown === null || shown === undefined ? '—' : shown);
                                tr.append(cell);
                        });
                        tbody.append(tr);
                        if (opts.expand) {
                                const extra = opts.expand(r);
                                if (extra) tbody.append(el('tr', { class: 'expand' },
                                        el('td', { colspan: String(columns.length) }, extra)));
                        }
                }
        }

        if (opts.caption) table.append(el('caption', {}, opts.caption));
        table.append(el('thead', {}, headRow), tbody);
        fill();

        const tools = el('div', { class: 'table-tools' });
        if (csvName) {
                const b = el('button', { type: 'button', class: 'csv' }, 'Download CSV');
                b.addEventListener('click', () => downloadText(csvName, toCsv(opts.columns, sortedRows())));
                tools.append(b);
        }
        tools.append(el('span', { class: 'muted' }, `${opts.rows.length} rows`));
        const pick = chooser(opts, shown, () => {
                const open = true;
                renderTable(container, { ...opts, sort });
                const d = container.querySelector('details.columns');
                if (d) d.open = open;
        });
        if (pick) tools.append(pick);
        container.replaceChildren(tools, el('div', { class: 'scroll' }, table));
        return table;
}
